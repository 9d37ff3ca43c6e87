// Automatic payouts: the merchant's schedule (GET/PATCH /api/v1/payout-schedule) and the worker's daily run. On each
// day the schedule falls on (UTC), every currency with a usable default bank account is paid out: the whole available
// balance, or with a delay of N days, what has been available for N days (never more than the balance). A run claims
// the merchant's day first (last_run_on), so two workers, or a worker restarted mid-run, never pay one day twice.
import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import { readBalance } from '../ledger/running-balance.js';
import type { PayoutsService } from './payouts.service.js';
import { WEEKDAYS, type PayoutInterval, type PayoutScheduleRow, type Weekday } from './payouts.table.js';

/** Merchants paid out side by side in a run. */
const RUN_CONCURRENCY = 4;

export interface PayoutScheduleInput {
  interval?: PayoutInterval;
  weeklyAnchor?: Weekday;
  monthlyAnchor?: number;
  delayDays?: number;
}

/** Live payouts wait two days by default; test ones none, so a test balance is paid out the day it is available. */
export function defaultSchedule(mode: Mode): Omit<PayoutScheduleRow, 'merchant_id' | 'mode' | 'updated_at'> {
  return { interval: 'daily', weekly_anchor: 'monday', monthly_anchor: 1, delay_days: mode === 'live' ? 2 : 0, last_run_on: null };
}

export function scheduleView(row: Omit<PayoutScheduleRow, 'merchant_id' | 'mode' | 'updated_at'>, now: Date) {
  return {
    interval: row.interval,
    weeklyAnchor: row.weekly_anchor,
    monthlyAnchor: row.monthly_anchor,
    delayDays: row.delay_days,
    nextRunOn: nextRunOn(row, now),
  };
}

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Does the schedule pay out on this UTC day? */
export function fallsOn(row: Pick<PayoutScheduleRow, 'interval' | 'weekly_anchor' | 'monthly_anchor'>, day: Date): boolean {
  switch (row.interval) {
    case 'manual': return false;
    case 'daily': return true;
    case 'weekly': return WEEKDAYS[day.getUTCDay()] === row.weekly_anchor;
    case 'monthly': {
      const lastDay = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 0)).getUTCDate();
      return day.getUTCDate() === Math.min(row.monthly_anchor, lastDay);
    }
  }
}

/** The next UTC day (today included when it has not run yet) an automatic payout runs; null when manual. */
function nextRunOn(row: Omit<PayoutScheduleRow, 'merchant_id' | 'mode' | 'updated_at'>, now: Date): string | null {
  if (row.interval === 'manual') return null;
  for (let i = 0; i < 62; i++) {
    const day = addSeconds(now, i * 86_400);
    if (i === 0 && row.last_run_on === utcDay(now)) continue;
    if (fallsOn(row, day)) return utcDay(day);
  }
  return null;
}

export class PayoutScheduleService {
  constructor(private readonly db: Database, private readonly clock: Clock, private readonly payouts: PayoutsService) {}

  private async row(owner: Owner) {
    const row = await this.db.kysely.selectFrom('payout_schedules').selectAll().where(ownedBy(owner)).executeTakeFirst();
    return row ?? defaultSchedule(owner.mode);
  }

  async get(owner: Owner) {
    merchantWide(owner);
    return scheduleView(await this.row(owner), this.clock.now());
  }

  async update(owner: Owner, input: PayoutScheduleInput) {
    merchantWide(owner);
    const current = await this.row(owner);
    const next = {
      interval: input.interval ?? current.interval,
      weekly_anchor: input.weeklyAnchor ?? current.weekly_anchor,
      monthly_anchor: input.monthlyAnchor ?? current.monthly_anchor,
      delay_days: input.delayDays ?? current.delay_days,
      updated_at: this.clock.now().toISOString(),
    };
    await this.db.kysely.insertInto('payout_schedules')
      .values({ merchant_id: owner.merchantId, mode: owner.mode, last_run_on: current.last_run_on, ...next })
      .onConflict((oc) => oc.columns(['merchant_id', 'mode']).doUpdateSet(next)).execute();
    return scheduleView({ ...next, last_run_on: current.last_run_on }, this.clock.now());
  }

  /**
   * The automatic run of `now`'s UTC day, for every merchant and mode with a usable default bank account: claims each
   * merchant's day, then pays out each of its currencies. Returns the payouts made.
   */
  async runDue(now: Date): Promise<number> {
    const today = utcDay(now);
    const candidates = await this.db.kysely.selectFrom('bank_accounts as b')
      .leftJoin('payout_schedules as s', (j) => j.onRef('s.merchant_id', '=', 'b.merchant_id').onRef('s.mode', '=', 'b.mode'))
      .select(['b.merchant_id', 'b.mode', 'b.currency', 's.interval', 's.weekly_anchor', 's.monthly_anchor', 's.delay_days', 's.last_run_on'])
      .where('b.is_default', '=', 1).where('b.deleted_at', 'is', null).where('b.status', '=', 'new')
      .where((eb) => eb.or([eb('s.last_run_on', 'is', null), eb('s.last_run_on', '<', today)]))
      .orderBy('b.merchant_id').orderBy('b.mode').execute();
    const byOwner = new Map<string, { owner: Owner; schedule: ReturnType<typeof defaultSchedule>; currencies: string[] }>();
    for (const c of candidates) {
      const key = `${c.merchant_id}:${c.mode}`;
      const schedule = c.interval
        ? { interval: c.interval, weekly_anchor: c.weekly_anchor!, monthly_anchor: c.monthly_anchor!, delay_days: c.delay_days!, last_run_on: c.last_run_on }
        : defaultSchedule(c.mode);
      const entry = byOwner.get(key) ?? byOwner.set(key, { owner: { merchantId: c.merchant_id, mode: c.mode, storeId: null }, schedule, currencies: [] }).get(key)!;
      entry.currencies.push(c.currency);
    }
    let made = 0;
    const due = [...byOwner.values()].filter((entry) => fallsOn(entry.schedule, now));
    // A few merchants at a time: each payout is a short transaction of its own (one merchant's payouts take turns on
    // its row), and on PostgreSQL the round trips of several overlap.
    let next = 0;
    const lane = async () => {
      while (next < due.length) {
        const { owner, schedule, currencies } = due[next++]!;
        const paid = await this.payDay(owner, schedule, currencies, today, now);
        made += paid;
      }
    };
    await Promise.all(Array.from({ length: RUN_CONCURRENCY }, lane));
    return made;
  }

  /** One merchant's day: claimed, then each currency paid out. */
  private async payDay(owner: Owner, schedule: ReturnType<typeof defaultSchedule>, currencies: string[], today: string, now: Date): Promise<number> {
    if (!(await this.claimDay(owner, schedule, today))) return 0;
    let made = 0;
    for (const currency of currencies) {
      const amount = await this.payable(owner, currency, schedule.delay_days, now);
      if (amount <= 0) continue;
      try {
        await this.payouts.create(owner, { currency: currency as 'EUR' | 'XPF', amount, description: 'Automatic payout' }, true);
        made += 1;
      } catch (err) {
        // The balance moved between the reading and the payout (a refund): paid at the next run.
        if (!(err instanceof AppError) || (err.code !== 'INSUFFICIENT_BALANCE' && err.code !== 'NO_BANK_ACCOUNT')) throw err;
      }
    }
    return made;
  }

  private async claimDay(owner: Owner, schedule: ReturnType<typeof defaultSchedule>, today: string): Promise<boolean> {
    const now = this.clock.now().toISOString();
    const res = await this.db.kysely.insertInto('payout_schedules')
      .values({
        merchant_id: owner.merchantId, mode: owner.mode, interval: schedule.interval, weekly_anchor: schedule.weekly_anchor,
        monthly_anchor: schedule.monthly_anchor, delay_days: schedule.delay_days, last_run_on: today, updated_at: now,
      })
      .onConflict((oc) => oc.columns(['merchant_id', 'mode']).doUpdateSet({ last_run_on: today })
        .where((eb) => eb.or([eb('payout_schedules.last_run_on', 'is', null), eb('payout_schedules.last_run_on', '<', today)])))
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** What an automatic payout pays: the available balance, or with a delay what was available `delayDays` ago and is still unpaid. */
  private async payable(owner: Owner, currency: string, delayDays: number, now: Date): Promise<number> {
    const available = (await readBalance(this.db.kysely, owner, { byStore: false, currency }))[0]?.available ?? 0;
    if (delayDays === 0 || available <= 0) return available;
    const cutoff = addSeconds(now, -delayDays * 86_400).toISOString();
    const aged = await this.db.kysely.selectFrom('balance_transactions as t')
      .leftJoin('ledger_postings as r', (j) => j.onRef('r.transaction_id', '=', 't.id').on('r.kind', '=', 'release'))
      .leftJoin('payout_items as i', 'i.transaction_id', 't.id')
      .select(sql<number>`coalesce(cast(sum(t.amount) as bigint), 0)`.as('total'))
      .where(ownedBy(owner, { alias: 't' })).where('t.currency', '=', currency).where('t.type', '<>', 'payout').where('i.transaction_id', 'is', null)
      .where((eb) => eb.or([
        eb.and([eb('t.pending', '=', 0), eb('t.created_at', '<=', cutoff)]),
        eb.and([eb('r.id', 'is not', null), eb('r.created_at', '<=', cutoff)]),
      ])).executeTakeFirstOrThrow();
    return Math.min(available, Number(aged.total));
  }
}

function merchantWide(owner: Owner): void {
  if (owner.storeId) throw new AppError('PERMISSION_DENIED', "The payout schedule is the merchant's, not a store's: use a key that is not bound to a store");
}
