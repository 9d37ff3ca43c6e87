// The back-office's audit log: every change a user makes, with who made it. The row is written before the change runs
// (pending) and completed with its outcome after, so no change happens without its row: a process stopped in between
// leaves the row pending, which the log shows as such.
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { paginate, type PageRequest } from '../../shared/pagination.js';
import type { Owner } from '../merchants/principal.js';
import type { AuditOutcome, AuditRow } from './audit.table.js';

export interface AuditEntry {
  id: string;
  /**
   * Who acted: the back-office user, and the key when they acted with a key made in the back-office; or an agency
   * acting under its mandate, with its key (`user` then names the agency: its id, and no email).
   */
  actedBy: { userId: string; keyId?: string } | { agencyId: string; keyId: string | null };
  user: { id: string; email: string };
  action: string;
  objectId: string | null;
  outcome: AuditOutcome;
  statusCode: number | null;
  createdAt: string;
}

export class AuditService {
  constructor(private readonly db: Database, private readonly clock: Clock) {}

  /** Writes the row of a change about to run; answers its id, to complete with `complete`. */
  async begin(owner: Owner, userId: string, action: string, objectId: string | null, keyId: string | null = null, agencyId: string | null = null): Promise<string> {
    const id = newId('aud');
    await this.db.kysely.insertInto('audit_log').values({
      id, merchant_id: owner.merchantId, mode: owner.mode, user_id: userId, key_id: keyId, agency_id: agencyId, action, object_id: objectId,
      outcome: 'pending', status_code: null, created_at: this.clock.now().toISOString(),
    }).execute();
    return id;
  }

  /** The change's outcome, and the object it created when it named none beforehand. */
  async complete(id: string, statusCode: number, objectId: string | null): Promise<void> {
    const outcome: AuditOutcome = statusCode < 400 ? 'succeeded' : 'failed';
    await this.db.kysely.updateTable('audit_log')
      .set((eb) => ({ outcome, status_code: statusCode, object_id: eb.fn.coalesce('object_id', eb.val(objectId)) }))
      .where('id', '=', id).execute();
  }

  async list(owner: Owner, filter: PageRequest & { objectId?: string; userId?: string }) {
    const mine = () => this.db.kysely.selectFrom('audit_log').selectAll().where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode);
    let q = mine();
    if (filter.objectId) q = q.where('object_id', '=', filter.objectId);
    if (filter.userId) q = q.where('user_id', '=', filter.userId);
    const page = await paginate(q, filter, (id) => mine().where('id', '=', id).executeTakeFirst());
    return { data: await this.views(page.data), hasMore: page.hasMore };
  }

  /** Every entry of one object, oldest first (a payment's timeline). */
  async ofObject(owner: Owner, objectId: string): Promise<AuditEntry[]> {
    const rows = await this.db.kysely.selectFrom('audit_log').selectAll().where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode)
      .where('object_id', '=', objectId).orderBy('created_at').orderBy('id').limit(200).execute();
    return this.views(rows);
  }

  private async views(rows: AuditRow[]): Promise<AuditEntry[]> {
    const userIds = [...new Set(rows.map((r) => r.user_id))];
    const users = userIds.length ? await this.db.kysely.selectFrom('users').select(['id', 'email']).where('id', 'in', userIds).execute() : [];
    const emails = new Map(users.map((u) => [u.id, u.email]));
    return rows.map((r) => ({
      id: r.id, actedBy: r.agency_id ? { agencyId: r.agency_id, keyId: r.key_id } : r.key_id ? { userId: r.user_id, keyId: r.key_id } : { userId: r.user_id }, user: { id: r.user_id, email: emails.get(r.user_id) ?? '' }, action: r.action, objectId: r.object_id,
      outcome: r.outcome, statusCode: r.status_code, createdAt: r.created_at,
    }));
  }
}
