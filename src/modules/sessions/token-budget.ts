// The card-token budget of a payment or wallet session. The card fields are mounted for one session and name it
// with every token request; the token endpoint (acquirer module) takes a slot here before the acquirer writes the card
// and its token, so an anonymous caller cannot create rows beyond what the session's payer could need.
import type { Kysely } from 'kysely';
import { compiledQuery } from '../../db/compiled.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { iso } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { TakeTokenSlot } from '../../acquirer/fields/fields.routes.js';
import type { Mode } from '../merchants/merchants.table.js';

// Compiled once (src/db/compiled.ts): every card token takes a slot.
const takeSlot = compiledQuery((db, p: { sessionId: string; mode: Mode; now: string; tokensPerSession: number }) => db.updateTable('payment_sessions')
  .set((eb) => ({ tokens_issued: eb('tokens_issued', '+', 1) }))
  .where('id', '=', p.sessionId).where('mode', '=', p.mode).where('status', '=', 'open')
  // On a test clock, the clock's expiry rule closes the session (its status says); otherwise the real time.
  .where((eb) => eb.or([eb('expires_at', '>', p.now), eb('test_clock_id', 'is not', null)]))
  .where('tokens_issued', '<', p.tokensPerSession));

/**
 * Takes one of the session's card tokens, or throws NOT_FOUND, SESSION_EXPIRED or TOO_MANY_ATTEMPTS. `q`: the
 * transaction to take it in (a live widget's session row is written in the same one); by default a statement alone.
 */
export function sessionTokenBudget(db: Database, clock: Clock, tokensPerSession: number): TakeTokenSlot {
  // Without a transaction of the caller's: Database.singleWrite (on SQLite a turn of the group commit rather than a
  // commit and an fsync of its own on the event loop; on PostgreSQL the statement alone).
  return (sessionId, mode, q) => q ? take(sessionId, mode, q) : db.singleWrite((own) => take(sessionId, mode, own));
  async function take(sessionId: string, mode: Mode, q: Kysely<DB>): Promise<void> {
    const now = iso(clock.now());
    // One conditional increment: concurrent requests of one session are serialized on its row (a row lock on
    // PostgreSQL, the single writer on SQLite), so together they never pass the bound.
    if ((await takeSlot.run(q, { sessionId, mode, now, tokensPerSession })) === 1) return;
    throw await refusal(q, sessionId, mode, now, tokensPerSession);
  }
}

/**
 * Whether the session has a card token left, without taking it (read only): throws as taking one would. A live
 * widget checks before asking the acquirer for a widget session, then takes the slot with the session's row.
 */
export function sessionTokenCheck(clock: Clock, tokensPerSession: number) {
  /** `session`: the session's row as the caller read it (no query of its own). */
  return (session: TokenBudgetRow): void => {
    const error = refusalOf(session, iso(clock.now()), tokensPerSession, false);
    if (error) throw error;
  };
}

/** What the budget is decided on: a payment_sessions row's columns. */
export interface TokenBudgetRow {
  status: string;
  expires_at: string;
  tokens_issued: number;
  test_clock_id: string | null;
}

/** Why the session gave no card token: the increment failed (unknown, closed, or its budget spent). */
async function refusal(q: Kysely<DB>, sessionId: string, mode: Mode, now: string, tokensPerSession: number): Promise<AppError> {
  const session = await q.selectFrom('payment_sessions').select(['status', 'expires_at', 'tokens_issued', 'test_clock_id'])
    .where('id', '=', sessionId).where('mode', '=', mode).executeTakeFirst();
  if (!session) return new AppError('NOT_FOUND', 'Unknown session: the card fields must be mounted for an open session');
  return refusalOf(session, now, tokensPerSession, true);
}

/** Why the session gives no card token now, or null when it has one left. `spent`: the increment failed, the budget is spent. */
function refusalOf(session: TokenBudgetRow, now: string, tokensPerSession: number, spent: true): AppError;
function refusalOf(session: TokenBudgetRow, now: string, tokensPerSession: number, spent: boolean): AppError | null;
function refusalOf(session: TokenBudgetRow, now: string, tokensPerSession: number, spent: boolean): AppError | null {
  if (session.status !== 'open' || (session.test_clock_id === null && session.expires_at <= now)) {
    return new AppError('SESSION_EXPIRED', 'This session is no longer active');
  }
  if (!spent && session.tokens_issued < tokensPerSession) return null;
  // No Retry-After: a session's budget never refills; the payer starts again from the merchant.
  return new AppError('TOO_MANY_ATTEMPTS', 'Too many cards entered for this session; return to the merchant to start again', {
    maxTokens: tokensPerSession,
  });
}
