// Test clocks (test mode only): create one at a frozen time, put customers on it, and advance it. Advancing only asks;
// the worker then runs what falls due on the clock, in time order (advance.ts), and sets it `ready` again.
import type { Database, Trx } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { paginate, type PageRequest } from '../../shared/pagination.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import { advanceBound, CLOCK_LIMITS, clockInstant } from './limits.js';
import type { TestClockRow } from './test-clocks.table.js';

export function testClockView(row: TestClockRow) {
  return {
    id: row.id,
    name: row.name,
    frozenTime: row.frozen_time,
    status: row.status,
    /** While advancing: the time asked for. */
    advancingTo: row.target_time,
    createdAt: row.created_at,
  };
}

/** Test helpers answer a live key 403 (the API checks the path first; the command line comes through here). */
export function testModeOnly(owner: Owner): void {
  if (owner.mode !== 'test') throw new AppError('PERMISSION_DENIED', 'Test helpers need a test key (sk_test_…)');
}

export class TestClocksService {
  constructor(private readonly db: Database, private readonly clock: Clock) {}

  private mine(q: Database['kysely'] | Trx, owner: Owner) {
    return q.selectFrom('test_clocks').selectAll().where(ownedBy(owner));
  }

  private async find(owner: Owner, id: string): Promise<TestClockRow> {
    testModeOnly(owner);
    const row = await this.mine(this.db.kysely, owner).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('test clock', id);
    return row;
  }

  async create(owner: Owner, input: { frozenTime: string; name?: string }) {
    testModeOnly(owner);
    const frozen = clockInstant('frozenTime', input.frozenTime);
    const now = this.clock.now().toISOString();
    const row: TestClockRow = {
      id: newId('clk'), merchant_id: owner.merchantId, mode: owner.mode, name: input.name ?? null, frozen_time: frozen,
      status: 'ready', target_time: null, claimed_at: null, created_at: now, updated_at: now,
    };
    await this.db.kysely.insertInto('test_clocks').values(row).execute();
    return testClockView(row);
  }

  async get(owner: Owner, id: string) {
    return testClockView(await this.find(owner, id));
  }

  async list(owner: Owner, page: PageRequest) {
    testModeOnly(owner);
    const result = await paginate(this.mine(this.db.kysely, owner), page, (id) => this.mine(this.db.kysely, owner).where('id', '=', id).executeTakeFirst());
    return { data: result.data.map(testClockView), hasMore: result.hasMore };
  }

  /**
   * Forward only, and not while a previous advance runs: 422 CLOCK_NOT_ADVANCEABLE. Within the clock's limits
   * (limits.ts): 422 CLOCK_ADVANCE_TOO_FAR beyond them, with the latest time allowed. The clock row is locked while
   * the bound is read, so a subscription created meanwhile (which locks it too) is counted.
   */
  async advance(owner: Owner, id: string, frozenTime: string) {
    const row = await this.find(owner, id);
    const target = clockInstant('frozenTime', frozenTime);
    await this.db.transaction(async (trx) => {
      const now = await this.db.lockForUpdate(trx.selectFrom('test_clocks').selectAll().where('id', '=', id)).executeTakeFirstOrThrow();
      if (now.status !== 'ready' || now.frozen_time >= target) {
        throw new AppError('CLOCK_NOT_ADVANCEABLE', now.status === 'advancing'
          ? `Test clock ${id} is still advancing to ${now.target_time}; wait until it is ready`
          : `Test clock ${id} is at ${now.frozen_time}; it only moves forward, to a later time`, { id, frozenTime: row.frozen_time, status: now.status });
      }
      const bound = await advanceBound(trx, id, new Date(now.frozen_time));
      if (target > bound.latest.toISOString()) {
        const why = bound.subscriptionId
          ? `at most ${CLOCK_LIMITS.dueDatesPerAdvance} due dates of subscription ${bound.subscriptionId}`
          : `at most ${CLOCK_LIMITS.maxAdvanceDays} days, and never into the year 2100`;
        throw new AppError('CLOCK_ADVANCE_TOO_FAR', `One advance moves test clock ${id} ${why}: to ${bound.latest.toISOString()} at the latest; advance again from there`, {
          id, frozenTime: now.frozen_time, latestFrozenTime: bound.latest.toISOString(), subscriptionId: bound.subscriptionId,
        });
      }
      await trx.updateTable('test_clocks').set({ status: 'advancing', target_time: target, claimed_at: null, updated_at: this.clock.now().toISOString() })
        .where('id', '=', id).execute();
    });
    return this.get(owner, id);
  }
}
