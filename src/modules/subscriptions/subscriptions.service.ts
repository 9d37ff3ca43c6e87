// Subscriptions through the merchant API: create, read, list, the due dates' history, change (card, amount, retry
// schedule…), cancel now or at the period's end, retry a past-due one. The charging of due dates is the engine's
// (subscriptions.engine.ts), run by the worker and by a test clock's advance.
import type { Database, Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads } from '../../events/payloads.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { paginate, type PageRequest } from '../../shared/pagination.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import { timeOn } from '../test-clocks/clock-time.js';
import { takeClockPlace } from '../test-clocks/limits.js';
import { restoreMandate } from './mandates.js';
import type { SubscriptionsEngine } from './subscriptions.engine.js';
import type { Interval, SubscriptionRow, SubscriptionStatus } from './subscriptions.table.js';
import { dueDateView, subscriptionView, type AttemptView } from './subscriptions.views.js';

export interface SubscriptionInput {
  customerId: string;
  paymentMethodId?: string;
  amount: number;
  currency: 'EUR' | 'XPF';
  interval: Interval;
  intervalCount?: number;
  startDate?: string;
  description?: string;
  storeId?: string;
  retrySchedule?: number[];
  endAfter?: number;
  invoicing?: { enabled: boolean; daysUntilDue?: number };
  privateData?: Record<string, unknown>;
}

export interface SubscriptionPatch {
  paymentMethodId?: string;
  collectMissed?: boolean;
  amount?: number;
  description?: string;
  retrySchedule?: number[];
  privateData?: Record<string, unknown>;
}

export const DEFAULT_RETRY_SCHEDULE = [1, 3, 5, 7];
const FINAL: readonly SubscriptionStatus[] = ['cancelled', 'ended'];

export function createdEventData(row: SubscriptionRow) {
  return {
    subscriptionId: row.id, customerId: row.customer_id, status: row.status, amount: row.amount, currency: row.currency,
    interval: row.interval, intervalCount: row.interval_count, nextDueDate: subscriptionView(row).nextDueDate,
  };
}

export class SubscriptionsService {
  constructor(private readonly db: Database, private readonly clock: Clock, private readonly engine: SubscriptionsEngine) {}

  private mine(q: Database['kysely'] | Trx, owner: Owner) {
    return q.selectFrom('subscriptions').selectAll().where(ownedBy(owner, { store: true }));
  }

  private async find(q: Database['kysely'] | Trx, owner: Owner, id: string): Promise<SubscriptionRow> {
    const row = await this.mine(q, owner).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('subscription', id);
    return row;
  }

  /**
   * The subscription's row, locked until `trx` ends: a change reads the status it decides on only once the changes
   * before it have committed, so of concurrent cancels one cancels and the others are refused as they would be one
   * after the other (SQLite's single writer serializes them already).
   */
  private async lock(trx: Trx, owner: Owner, id: string): Promise<SubscriptionRow> {
    const row = await this.db.lockForUpdate(this.mine(trx, owner).where('id', '=', id)).executeTakeFirst();
    if (!row) throw notFound('subscription', id);
    return row;
  }

  /** An active card of the customer, or 404 (none of the merchant's) / 422 PAYMENT_METHOD_UNUSABLE. */
  private async usableCard(q: Database['kysely'] | Trx, owner: Owner, customerId: string, paymentMethodId: string): Promise<void> {
    const pm = await q.selectFrom('payment_methods').select(['id', 'status', 'customer_id']).where('id', '=', paymentMethodId).where(ownedBy(owner)).executeTakeFirst();
    if (!pm) throw new AppError('NOT_FOUND', `No payment method with id ${paymentMethodId}`, { field: 'paymentMethodId', id: paymentMethodId });
    if (pm.status !== 'active' || pm.customer_id !== customerId) {
      throw new AppError('PAYMENT_METHOD_UNUSABLE', pm.status !== 'active'
        ? `Payment method ${paymentMethodId} was removed; it can no longer be charged`
        : `Payment method ${paymentMethodId} is not a card of customer ${customerId}`, { field: 'paymentMethodId', id: paymentMethodId });
    }
  }

  async create(owner: Owner, input: SubscriptionInput) {
    const id = newId('sub');
    const row = await this.db.transaction(async (trx) => {
      const customer = await trx.selectFrom('customers').select(['id', 'test_clock_id']).where('id', '=', input.customerId).where(ownedBy(owner)).executeTakeFirst();
      if (!customer) throw new AppError('NOT_FOUND', `No customer with id ${input.customerId}`, { field: 'customerId', id: input.customerId });
      if (input.paymentMethodId !== undefined) await this.usableCard(trx, owner, customer.id, input.paymentMethodId);
      if (customer.test_clock_id) await takeClockPlace(this.db, trx, owner, customer.test_clock_id, 'subscription');
      const storeId = input.storeId ?? owner.storeId ?? null;
      if (input.storeId !== undefined) {
        const store = await trx.selectFrom('stores').select('id').where('merchant_id', '=', owner.merchantId)
          .where((eb) => eb.or([eb('id', '=', input.storeId!), eb('code', '=', input.storeId!)])).executeTakeFirst();
        if (!store || (owner.storeId && owner.storeId !== store.id)) throw invalidField('storeId', 'is not one of your stores');
      }
      // Dated by the customer's test clock when it has one.
      const now = await timeOn(trx, customer.test_clock_id, this.clock.now());
      const start = input.startDate ? new Date(input.startDate) : now;
      if (input.startDate && (Number.isNaN(start.getTime()) || start.getUTCFullYear() < 2000 || start.getUTCFullYear() > 9999)) {
        throw invalidField('startDate', 'must be an ISO 8601 date-time');
      }
      const row: SubscriptionRow = {
        id, merchant_id: owner.merchantId, mode: owner.mode, store_id: storeId, customer_id: customer.id,
        payment_method_id: input.paymentMethodId ?? null, amount: input.amount, currency: input.currency, interval: input.interval,
        interval_count: input.intervalCount ?? 1, start_date: start.toISOString(), description: input.description ?? null,
        retry_schedule: JSON.stringify(input.retrySchedule ?? DEFAULT_RETRY_SCHEDULE), end_after: input.endAfter ?? null,
        invoicing: input.invoicing ? JSON.stringify(input.invoicing) : null,
        private_data: input.privateData ? JSON.stringify(input.privateData) : null,
        status: input.paymentMethodId ? 'active' : 'waiting_mandate', next_due_date: start.toISOString(), due_count: 0,
        cancel_at: null, cancelled_at: null, test_clock_id: customer.test_clock_id, created_at: now.toISOString(), updated_at: now.toISOString(),
      };
      await trx.insertInto('subscriptions').values(row).execute();
      await recordEvent(trx, { merchantId: owner.merchantId, mode: owner.mode, at: this.clock.now(), ...payloads.subscriptionCreated(createdEventData(row)) });
      return row;
    });
    // A start date already reached is charged at once (not at the worker's next look).
    if (row.status === 'active') await this.engine.runFor(row.id);
    return subscriptionView(await this.find(this.db.kysely, owner, id));
  }

  async get(owner: Owner, id: string) {
    return subscriptionView(await this.find(this.db.kysely, owner, id));
  }

  async list(owner: Owner, query: PageRequest & { customerId?: string; status?: SubscriptionStatus }) {
    let q = this.mine(this.db.kysely, owner);
    if (query.customerId) q = q.where('customer_id', '=', query.customerId);
    if (query.status) q = q.where('status', '=', query.status);
    const page = await paginate(q, query, (cursor) => this.mine(this.db.kysely, owner).where('id', '=', cursor).executeTakeFirst());
    return { data: page.data.map(subscriptionView), hasMore: page.hasMore };
  }

  /** The due dates opened so far, newest first, each with its attempts (the payments that charged it). */
  async dueDates(owner: Owner, id: string, page: PageRequest) {
    await this.find(this.db.kysely, owner, id);
    const limit = page.limit ?? 20;
    let q = this.db.kysely.selectFrom('subscription_due_dates').selectAll().where('subscription_id', '=', id);
    if (page.startingAfter) {
      const cursor = page.startingAfter;
      if (Number.isNaN(Date.parse(cursor))) throw invalidField('startingAfter', 'is a due date of this list');
      q = q.where('due_date', '<', new Date(cursor).toISOString());
    }
    const rows = await q.orderBy('due_date', 'desc').limit(limit + 1).execute();
    const shown = rows.slice(0, limit);
    const payments = shown.length === 0 ? [] : await this.db.kysely.selectFrom('payments')
      .select(['id', 'due_date', 'status', 'refusal_code', 'created_at'])
      .where('subscription_id', '=', id).where('due_date', 'in', shown.map((r) => r.due_date)).orderBy('created_at').orderBy('id').execute();
    const attemptsOf = (due: string): AttemptView[] => payments.filter((p) => p.due_date === due).map((p) => ({
      at: p.created_at, paymentId: p.id, refusalCode: p.refusal_code,
      outcome: p.status === 'failed' ? 'failed' : p.status === 'pending' || p.status === 'transit' ? 'pending' : 'succeeded',
    }));
    return { data: shown.map((r) => dueDateView(r, attemptsOf(r.due_date))), hasMore: rows.length > limit };
  }

  /** `by`: who restores a mandate with a new card, the merchant's integration (a key) or its team (the back-office). */
  async update(owner: Owner, id: string, patch: SubscriptionPatch, by: 'integration' | 'merchant' = 'integration') {
    const at = this.clock.now();
    await this.db.transaction(async (trx) => {
      const current = await this.lock(trx, owner, id);
      if (FINAL.includes(current.status)) throw cancelledError(current);
      const set: Partial<SubscriptionRow> = { updated_at: at.toISOString() };
      if (patch.amount !== undefined) set.amount = patch.amount;
      if (patch.description !== undefined) set.description = patch.description;
      if (patch.retrySchedule !== undefined) set.retry_schedule = JSON.stringify(patch.retrySchedule);
      if (patch.privateData !== undefined) set.private_data = JSON.stringify(patch.privateData);
      if (patch.collectMissed && patch.paymentMethodId === undefined) throw invalidField('collectMissed', 'goes with paymentMethodId (the card that restores the mandate)');
      if (patch.paymentMethodId !== undefined) {
        await this.usableCard(trx, owner, current.customer_id, patch.paymentMethodId);
        set.payment_method_id = patch.paymentMethodId;
        if (current.status === 'waiting_mandate') {
          Object.assign(set, await restoreMandate(trx, current, patch.paymentMethodId, by, patch.collectMissed ?? false, at));
        }
      }
      const res = await trx.updateTable('subscriptions').set(set).where('id', '=', id).where('status', '=', current.status).executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new AppError('IDEMPOTENCY_KEY_IN_USE', `Subscription ${id} changed meanwhile; try again`, { id });
    });
    // Missed due dates asked for are charged now, without waiting for the worker (or a test clock's advance).
    await this.engine.runFor(id);
    return this.get(owner, id);
  }

  async cancel(owner: Owner, id: string, atPeriodEnd: boolean) {
    const at = this.clock.now();
    await this.db.transaction(async (trx) => {
      const current = await this.lock(trx, owner, id);
      if (FINAL.includes(current.status)) throw cancelledError(current);
      if (atPeriodEnd) {
        await trx.updateTable('subscriptions').set({ cancel_at: current.next_due_date, updated_at: at.toISOString() }).where('id', '=', id).execute();
        return;
      }
      // Ended meanwhile by the engine (which does not take the lock): refused as a cancel after it would be.
      if (!(await cancelNow(trx, current, at))) throw cancelledError(await this.find(trx, owner, id));
    });
    return this.get(owner, id);
  }

  /** A past-due subscription's unpaid due date charged again now; paid, the subscription is active from the next due date. */
  async retry(owner: Owner, id: string) {
    // The unpaid due dates are put back on the row's lock, so a cancel in between either comes first (refused here) or
    // after (and stops them again).
    await this.db.transaction(async (trx) => {
      const current = await this.lock(trx, owner, id);
      if (FINAL.includes(current.status)) throw cancelledError(current);
      if (current.status !== 'past_due') throw new AppError('SUBSCRIPTION_NOT_PAST_DUE', `Subscription ${id} is ${current.status}; only a past-due one is retried`, { status: current.status });
      const now = await timeOn(trx, current.test_clock_id, this.clock.now());
      await trx.updateTable('subscription_due_dates').set({ status: 'retrying', next_attempt_at: now.toISOString() })
        .where('subscription_id', '=', id).where('status', '=', 'unpaid').execute();
    });
    await this.engine.runFor(id);
    return this.get(owner, id);
  }
}

export async function cancelNow(trx: Trx, row: SubscriptionRow, at: Date): Promise<boolean> {
  const when = (await timeOn(trx, row.test_clock_id, at)).toISOString();
  const res = await trx.updateTable('subscriptions').set({ status: 'cancelled', cancelled_at: when, updated_at: when })
    .where('id', '=', row.id).where('status', 'not in', FINAL).executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return false;
  // Due dates still being retried stop with it.
  await trx.updateTable('subscription_due_dates').set({ status: 'unpaid', next_attempt_at: null })
    .where('subscription_id', '=', row.id).where('status', 'in', ['scheduled', 'retrying']).execute();
  await recordEvent(trx, {
    merchantId: row.merchant_id, mode: row.mode, at,
    ...payloads.subscriptionCancelled({ subscriptionId: row.id, status: 'cancelled', customerId: row.customer_id }),
  });
  return true;
}

function cancelledError(row: SubscriptionRow): AppError {
  return new AppError('SUBSCRIPTION_CANCELLED', `Subscription ${row.id} is ${row.status}: it can no longer change`, { status: row.status });
}
