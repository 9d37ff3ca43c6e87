// The bounds of a test clock, so that what one advance asks of the worker stays small whatever the merchant asks: a
// daily subscription advanced five years in one call was 1,825 due dates (their payments, invoices and events), 20 s
// of the worker's time and ten times the database. A clock holds a few customers and subscriptions; one advance covers
// at most CLOCK_LIMITS.dueDatesPerAdvance due dates of each of its subscriptions and at most maxAdvanceDays; and its
// time stays within the years 2000 to 2099. docs/test-clocks.md, *Limits*.
import type { Database, Trx } from '../../db/database.js';
import { AppError, invalidField } from '../../shared/errors.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import { dueDate } from '../subscriptions/due-dates.js';

export const CLOCK_LIMITS = {
  /** A clock's time, from (inclusive) … */
  earliest: '2000-01-01T00:00:00.000Z',
  /** … to (exclusive). */
  latest: '2100-01-01T00:00:00.000Z',
  /** How far one advance may move a clock. */
  maxAdvanceDays: 731,
  /** Due dates of any one subscription one advance may cover. */
  dueDatesPerAdvance: 31,
  customersPerClock: 3,
  subscriptionsPerClock: 10,
} as const;

const DAY_MS = 86_400_000;

/** A clock's time from the API: an ISO 8601 date-time within CLOCK_LIMITS (else 400 naming `field`). */
export function clockInstant(field: string, text: string): string {
  const ms = Date.parse(text);
  if (Number.isNaN(ms) || ms < Date.parse(CLOCK_LIMITS.earliest) || ms >= Date.parse(CLOCK_LIMITS.latest)) {
    throw invalidField(field, 'must be an ISO 8601 date-time from 2000-01-01 to the end of 2099');
  }
  return new Date(ms).toISOString();
}

/**
 * Makes room for one more customer or subscription on a clock, in the caller's transaction: the clock must be the
 * caller's, in test mode (else 400 on testClockId); its row is locked
 * (so two creations at once cannot both take the last place), then its objects counted. 422 CLOCK_OBJECT_LIMIT when full.
 */
export async function takeClockPlace(db: Database, trx: Trx, owner: Owner, clockId: string, kind: 'customer' | 'subscription'): Promise<void> {
  if (owner.mode !== 'test') throw invalidField('testClockId', 'test clocks are for test mode only');
  const clock = await db.lockForUpdate(trx.selectFrom('test_clocks').select('id').where('id', '=', clockId).where(ownedBy(owner))).executeTakeFirst();
  if (!clock) throw invalidField('testClockId', `no test clock ${clockId}`);
  const table = kind === 'customer' ? 'customers' : 'subscriptions';
  const limit = kind === 'customer' ? CLOCK_LIMITS.customersPerClock : CLOCK_LIMITS.subscriptionsPerClock;
  const { n } = await trx.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).where('test_clock_id', '=', clockId).executeTakeFirstOrThrow();
  if (Number(n) >= limit) {
    throw new AppError('CLOCK_OBJECT_LIMIT', `Test clock ${clockId} holds ${limit} ${kind === 'customer' ? 'customers' : 'subscriptions'} already, its most; use another clock`, {
      testClockId: clockId, kind, limit,
    });
  }
}

/**
 * The latest time one advance may take a clock at `frozen` to, and why: maxAdvanceDays on, or just before the due date
 * that would be one more than dueDatesPerAdvance for one of its subscriptions that may still fall due.
 */
export async function advanceBound(trx: Trx, clockId: string, frozen: Date): Promise<{ latest: Date; subscriptionId: string | null }> {
  let latest = new Date(Math.min(frozen.getTime() + CLOCK_LIMITS.maxAdvanceDays * DAY_MS, Date.parse(CLOCK_LIMITS.latest) - 1));
  let subscriptionId: string | null = null;
  const subscriptions = await trx.selectFrom('subscriptions').select(['id', 'start_date', 'interval', 'interval_count', 'due_count', 'end_after'])
    .where('test_clock_id', '=', clockId).where('status', 'in', ['waiting_mandate', 'active', 'past_due']).execute();
  for (const sub of subscriptions) {
    const start = new Date(sub.start_date);
    // The first due date after the clock's time (one waiting for its card has not moved its count on).
    let first = sub.due_count;
    while (dueDate(start, sub.interval, sub.interval_count, first) <= frozen) first += 1;
    const beyond = first + CLOCK_LIMITS.dueDatesPerAdvance;
    if (sub.end_after !== null && beyond >= sub.end_after) continue; // it ends within the bound
    const bound = new Date(dueDate(start, sub.interval, sub.interval_count, beyond).getTime() - 1);
    if (bound < latest) {
      latest = bound;
      subscriptionId = sub.id;
    }
  }
  return { latest, subscriptionId };
}
