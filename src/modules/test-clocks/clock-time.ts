// "Now" for one object. Objects of a customer on a test clock (its payments, their sessions and disputes) live at the
// clock's frozen time; every other object lives at the real time. Every time-driven rule runs for one scope at a time:
// the real time and the objects on no clock (the worker's scheduler), or one clock's time and its objects (the clock's
// advance, src/modules/test-clocks/advance.ts). So a frozen clock holds its objects still, and advancing it moves
// session expiry, authorization expiry, settlement and dispute deadlines together.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export interface ClockScope {
  /** null: the objects on no clock, at the real time. */
  clockId: string | null;
  now: Date;
}

/** The real time for the objects on no clock. */
export function realTime(now: Date): ClockScope {
  return { clockId: null, now };
}

/** `.where(onClock(scope))` on a table with test_clock_id: the objects the scope's rule may move. */
export function onClock(scope: Pick<ClockScope, 'clockId'>, column = 'test_clock_id') {
  return (eb: ExpressionBuilder<any, any>) => (scope.clockId === null ? eb(eb.ref(column), 'is', null) : eb(eb.ref(column), '=', scope.clockId));
}

/** The time of an object on the given clock (its frozen time), or `realNow` for an object on none. */
export async function timeOn(q: Kysely<DB>, clockId: string | null | undefined, realNow: Date): Promise<Date> {
  if (!clockId) return realNow;
  const row = await q.selectFrom('test_clocks').select('frozen_time').where('id', '=', clockId).executeTakeFirst();
  return row ? new Date(row.frozen_time) : realNow;
}
