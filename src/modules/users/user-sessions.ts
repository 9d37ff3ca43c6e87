// Back-office sessions: a random token in the user's cookie; the database keeps its SHA-256 as the row's id, so a
// copy of the database opens no session. A session ends at sign-out, when its user is removed, or after
// IDLE_HOURS without a request; its last request is written at most once a minute (not one write per request).
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { sha256Hex } from '../../shared/hash.js';
import { randomToken } from '../../shared/ids.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { Role } from './users.table.js';

export const SESSION_COOKIE = 'motu_dashboard';
export const IDLE_HOURS = 12;
const TOUCH_AFTER_MS = 60_000;

/** A signed-in user, as a request carrying the cookie speaks for. */
export interface UserSession {
  sessionId: string;
  userId: string;
  email: string;
  role: Role;
  merchantId: string;
  mode: Mode;
  csrfToken: string;
}

export class UserSessions {
  constructor(private readonly db: Database, private readonly clock: Clock) {}

  /** Opens a session in test mode; answers the cookie's token (shown to nobody else) and the session. */
  async open(userId: string): Promise<{ token: string; csrfToken: string }> {
    const token = randomToken(43);
    const csrfToken = randomToken(32);
    const now = this.clock.now().toISOString();
    await this.db.kysely.insertInto('user_sessions').values({
      id: sha256Hex(token), user_id: userId, mode: 'test', csrf_token: csrfToken, created_at: now, last_seen_at: now, ended_at: null,
    }).execute();
    return { token, csrfToken };
  }

  /**
   * The session a cookie's token opens, or null (unknown, ended, idle too long, user removed). A request keeps the
   * session alive; `touch: false` only looks (an open event stream checking its session is not a request).
   */
  async resolve(token: string, options: { touch?: boolean } = {}): Promise<UserSession | null> {
    if (!/^[0-9A-Za-z]{43}$/.test(token)) return null;
    const id = sha256Hex(token);
    const row = await this.db.kysely
      .selectFrom('user_sessions')
      .innerJoin('users', 'users.id', 'user_sessions.user_id')
      .select(['user_sessions.id', 'user_sessions.mode', 'user_sessions.csrf_token', 'user_sessions.last_seen_at', 'user_sessions.ended_at',
        'users.id as user_id', 'users.email', 'users.role', 'users.merchant_id', 'users.removed_at'])
      .where('user_sessions.id', '=', id)
      .executeTakeFirst();
    if (!row || row.ended_at !== null || row.removed_at !== null) return null;
    const now = this.clock.now();
    const idleMs = now.getTime() - Date.parse(row.last_seen_at);
    if (idleMs > IDLE_HOURS * 3600_000) return null;
    if (idleMs > TOUCH_AFTER_MS && options.touch !== false) {
      await this.db.kysely.updateTable('user_sessions').set({ last_seen_at: now.toISOString() }).where('id', '=', id).execute();
    }
    return { sessionId: id, userId: row.user_id, email: row.email, role: row.role, merchantId: row.merchant_id, mode: row.mode, csrfToken: row.csrf_token };
  }

  async switchMode(sessionId: string, mode: Mode): Promise<void> {
    await this.db.kysely.updateTable('user_sessions').set({ mode }).where('id', '=', sessionId).execute();
  }

  async end(sessionId: string): Promise<void> {
    await this.db.kysely.updateTable('user_sessions').set({ ended_at: this.clock.now().toISOString() })
      .where('id', '=', sessionId).where('ended_at', 'is', null).execute();
  }
}
