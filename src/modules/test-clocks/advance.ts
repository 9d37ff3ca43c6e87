// The worker's part of a test clock's advance: every rule that falls due on the clock up to the time asked for, in time
// order. Each rule says when the next thing on a clock falls due; the clock steps to the earliest such time, every
// rule runs at that time for that clock's objects, and so on until the target. Then the clock is `ready` at the target.
// A year of monthly due dates is a few dozen steps, not a year of scheduler ticks.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import type { ClockScope } from './clock-time.js';

export interface TimeRule {
  name: string;
  /** When the earliest thing this rule would move on the clock falls due, strictly after `after`; null: nothing. */
  nextDue(db: Kysely<DB>, clockId: string, after: Date): Promise<Date | null>;
  /** Moves what is due at `scope.now` among the scope's objects; returns how many it moved. */
  run(scope: ClockScope): Promise<number>;
}

/** A run left by a stopped worker is taken over after this long. */
const CLAIM_SECONDS = 60;
/** Steps per clock per call; a longer advance goes on at the next call (its claim renewed). */
const MAX_STEPS = 5_000;

/** Advances every clock asked to; returns how many became ready. */
export async function advanceTestClocks(db: Database, clock: Clock, rules: readonly TimeRule[]): Promise<number> {
  const stale = addSeconds(clock.now(), -CLAIM_SECONDS).toISOString();
  const asked = await db.kysely.selectFrom('test_clocks').select('id').where('status', '=', 'advancing')
    .where((eb) => eb.or([eb('claimed_at', 'is', null), eb('claimed_at', '<', stale)])).limit(20).execute();
  let ready = 0;
  for (const { id } of asked) {
    const claim = await db.kysely.updateTable('test_clocks').set({ claimed_at: clock.now().toISOString() })
      .where('id', '=', id).where('status', '=', 'advancing')
      .where((eb) => eb.or([eb('claimed_at', 'is', null), eb('claimed_at', '<', stale)])).executeTakeFirst();
    if (Number(claim.numUpdatedRows) !== 1) continue;
    if (await runClock(db, clock, rules, id)) ready += 1;
  }
  return ready;
}

async function runClock(db: Database, clock: Clock, rules: readonly TimeRule[], id: string): Promise<boolean> {
  const row = await db.kysely.selectFrom('test_clocks').select(['frozen_time', 'target_time']).where('id', '=', id).executeTakeFirstOrThrow();
  const target = new Date(row.target_time!);
  let current = new Date(row.frozen_time);
  await runAt(rules, id, current);
  for (let steps = 0; ; steps++) {
    const dues = await Promise.all(rules.map((rule) => rule.nextDue(db.kysely, id, current)));
    const next = Math.min(...dues.filter((d): d is Date => d !== null).map((d) => d.getTime()));
    if (!Number.isFinite(next) || next > target.getTime()) break;
    if (steps === MAX_STEPS) {
      // Goes on at the next call, from where it stands (anyone may take the claim over).
      await db.kysely.updateTable('test_clocks').set({ claimed_at: null }).where('id', '=', id).execute();
      return false;
    }
    current = new Date(next);
    await db.kysely.updateTable('test_clocks').set({ frozen_time: current.toISOString(), claimed_at: clock.now().toISOString() }).where('id', '=', id).execute();
    await runAt(rules, id, current);
  }
  await db.kysely.updateTable('test_clocks')
    .set({ frozen_time: target.toISOString(), status: 'ready', target_time: null, claimed_at: null, updated_at: clock.now().toISOString() })
    .where('id', '=', id).where('status', '=', 'advancing').execute();
  return true;
}

/** Every rule at one time, again while any still moves something (rules work in batches, and one may make work for another). */
async function runAt(rules: readonly TimeRule[], clockId: string, now: Date): Promise<void> {
  for (let round = 0; round < 100; round++) {
    let moved = 0;
    for (const rule of rules) moved += await rule.run({ clockId, now });
    if (moved === 0) return;
  }
}
