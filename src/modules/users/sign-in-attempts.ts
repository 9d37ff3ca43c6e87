// The sign-in lockout, counted per email address whether or not a user has it (so a known address and an unknown one
// get the same answers), and in the database (so every api process sees it).
//
// An attempt is counted before its password or code is checked: `begin` takes the next number in one locked step, so
// of 150 attempts sent at once exactly ten are checked and the others are refused unseen. Each attempt is then judged
// by its own number: the tenth that fails locks the address; an eleventh arriving while ten are still counted locks it
// at once. A success gives back only its own attempt (or resets the count when nothing came after it): it never lifts
// a lock that other attempts set.
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { sha256Hex } from '../../shared/hash.js';

export const LOCKOUT_FAILURES = 10;
export const LOCKOUT_MINUTES = 15;

/** One counted attempt: its address's key and its number since the count last started. */
export interface Attempt {
  readonly key: string;
  readonly number: number;
}

/** An address's count is forgotten after this long without an attempt (and its lock over). */
export const FORGET_AFTER_HOURS = 24;

/**
 * Deletes the counts of addresses left alone FORGET_AFTER_HOURS and not locked: anyone may try any address, so the
 * table would otherwise keep a row per address ever tried. Run hourly by the worker.
 */
export async function purgeSignInAttempts(db: Database, clock: Clock): Promise<number> {
  const now = clock.now();
  const before = new Date(now.getTime() - FORGET_AFTER_HOURS * 3600_000).toISOString();
  const result = await db.kysely.deleteFrom('sign_in_attempts').where('updated_at', '<', before)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now.toISOString())])).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function normalizedEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class SignInAttempts {
  constructor(private readonly db: Database, private readonly clock: Clock) {}

  /** Counts an attempt at `email` before it is checked; ACCOUNT_LOCKED while the address is locked or would be. */
  async begin(email: string): Promise<Attempt> {
    const key = sha256Hex(`sign-in\n${normalizedEmail(email)}`);
    const now = this.clock.now();
    const outcome = await this.db.transaction(async (trx) => {
      await trx.insertInto('sign_in_attempts').values({ email_hash: key, attempts: 0, locked_until: null, updated_at: now.toISOString() })
        .onConflict((oc) => oc.column('email_hash').doNothing()).execute();
      const row = await this.db.lockForUpdate(trx.selectFrom('sign_in_attempts').select(['attempts', 'locked_until']).where('email_hash', '=', key))
        .executeTakeFirstOrThrow();
      // A lock that has run out starts the count again.
      const expired = row.locked_until !== null && Date.parse(row.locked_until) <= now.getTime();
      if (row.locked_until !== null && !expired) return { lockedUntil: row.locked_until, number: 0 };
      const number = (expired ? 0 : row.attempts) + 1;
      const lockedUntil = number > LOCKOUT_FAILURES ? this.lockEnd(now) : null;
      await trx.updateTable('sign_in_attempts').set({ attempts: number, locked_until: lockedUntil, updated_at: now.toISOString() })
        .where('email_hash', '=', key).execute();
      return { lockedUntil, number };
    });
    if (outcome.lockedUntil) throw this.locked(outcome.lockedUntil, now);
    return { key, number: outcome.number };
  }

  /** The attempt failed: it stays counted; the tenth locks the address, and is answered ACCOUNT_LOCKED. */
  async failed(attempt: Attempt): Promise<void> {
    if (attempt.number < LOCKOUT_FAILURES) return;
    const now = this.clock.now();
    const lockedUntil = await this.db.transaction(async (trx) => {
      const row = await this.db.lockForUpdate(trx.selectFrom('sign_in_attempts').select('locked_until').where('email_hash', '=', attempt.key))
        .executeTakeFirstOrThrow();
      if (row.locked_until !== null && Date.parse(row.locked_until) > now.getTime()) return row.locked_until;
      const until = this.lockEnd(now);
      await trx.updateTable('sign_in_attempts').set({ locked_until: until, updated_at: now.toISOString() }).where('email_hash', '=', attempt.key).execute();
      return until;
    });
    throw this.locked(lockedUntil, now);
  }

  /**
   * The attempt succeeded: the count starts again when no other attempt came after it and nothing is locked;
   * otherwise only this attempt is given back, and a lock stays.
   */
  async succeeded(attempt: Attempt): Promise<void> {
    await this.db.transaction(async (trx) => {
      const row = await this.db.lockForUpdate(trx.selectFrom('sign_in_attempts').select(['attempts', 'locked_until']).where('email_hash', '=', attempt.key))
        .executeTakeFirst();
      if (!row) return;
      const attempts = row.attempts === attempt.number && row.locked_until === null ? 0 : Math.max(0, row.attempts - 1);
      await trx.updateTable('sign_in_attempts').set({ attempts, updated_at: this.clock.now().toISOString() }).where('email_hash', '=', attempt.key).execute();
    });
  }

  /** The attempt was neither right nor wrong (the password asks for a code not sent yet): given back. */
  async released(attempt: Attempt): Promise<void> {
    await this.db.kysely.updateTable('sign_in_attempts')
      .set((eb) => ({ attempts: eb.case().when('attempts', '>', 0).then(eb('attempts', '-', 1)).else(0).end(), updated_at: this.clock.now().toISOString() }))
      .where('email_hash', '=', attempt.key).execute();
  }

  private lockEnd(now: Date): string {
    return new Date(now.getTime() + LOCKOUT_MINUTES * 60_000).toISOString();
  }

  private locked(lockedUntil: string, now: Date): AppError {
    const retryAfterSeconds = Math.max(1, Math.ceil((Date.parse(lockedUntil) - now.getTime()) / 1000));
    return new AppError('ACCOUNT_LOCKED', `Too many failed sign-ins: this account is locked for ${Math.ceil(retryAfterSeconds / 60)} more minutes`, { retryAfterSeconds });
  }
}
