// Payouts: the merchant's available balance sent to one of its bank accounts. Creating one debits the balance
// (`payout`) in the same transaction, lists the available transactions it carries, and emits payout.created; the
// bank's answer ends it paid (payout.completed) or failed (payout.failed, the amount credited back with
// `payout_failure`). In test mode the bank is simulated by the destination's IBAN, MOTU_TEST_PAYOUT_SECONDS after
// creation; in live mode the operator records the bank's answer. Payouts are the merchant's, not a store's.
import type { Database, Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads, type PayoutData } from '../../events/payloads.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { allRows, paginate, type PageRequest } from '../../shared/pagination.js';
import type { BankAccountsService } from '../bank-accounts/bank-accounts.service.js';
import type { BalanceService } from '../ledger/balance.service.js';
import { post } from '../ledger/postings.js';
import { readBalance } from '../ledger/running-balance.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import type { PayoutRow } from './payouts.table.js';
import { testBankAnswer } from './test-bank.js';

export interface PayoutInput {
  currency: 'EUR' | 'XPF';
  amount?: number;
  bankAccountId?: string;
  description?: string;
}

/** Failed payouts in a row on one account after which it is `errored` and automatic payouts to it pause. */
export const FAILURES_BEFORE_ERRORED = 3;
/** A live transfer usually arrives the next business day. */
const LIVE_ARRIVAL_SECONDS = 86_400;
const BATCH = 100;

export function payoutView(row: PayoutRow) {
  return {
    id: row.id,
    amount: Number(row.amount),
    currency: row.currency,
    status: row.status,
    automatic: row.automatic === 1,
    bankAccountId: row.bank_account_id,
    recipientId: row.bank_account_id,
    arrivalDate: row.arrival_date,
    description: row.description,
    failureReason: row.failure_reason,
    failureMessage: row.failure_message,
    createdAt: row.created_at,
  };
}

function eventData(row: PayoutRow): PayoutData {
  return {
    payoutId: row.id, recipientId: row.bank_account_id, amount: Number(row.amount), currency: row.currency, status: row.status,
    automatic: row.automatic === 1, arrivalDate: row.arrival_date,
  };
}

function merchantWide(owner: Owner): void {
  if (owner.storeId) throw new AppError('PERMISSION_DENIED', "Payouts are the merchant's, not a store's: use a key that is not bound to a store");
}

export class PayoutsService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly bankAccounts: BankAccountsService,
    private readonly balance: BalanceService,
    private readonly options: { testPayoutSeconds: number },
  ) {}

  private mine(q: Trx | Database['kysely'], owner: Owner) {
    return q.selectFrom('payouts').selectAll().where(ownedBy(owner));
  }

  private async find(owner: Owner, id: string): Promise<PayoutRow> {
    const row = await this.mine(this.db.kysely, owner).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('payout', id);
    return row;
  }

  /** The available balance of a currency, on the caller's transaction. */
  private async available(trx: Trx, owner: Owner, currency: string): Promise<number> {
    return (await readBalance(trx, owner, { byStore: false, currency }))[0]?.available ?? 0;
  }

  async create(owner: Owner, input: PayoutInput, automatic = false) {
    merchantWide(owner);
    const account = input.bankAccountId
      ? await this.bankAccounts.withIban(owner, input.bankAccountId)
      : await this.bankAccounts.defaultWithIban(owner, input.currency);
    if (!account || account.currency !== input.currency) {
      throw new AppError('NO_BANK_ACCOUNT', input.bankAccountId
        ? `Bank account ${input.bankAccountId} is not one of yours in ${input.currency}`
        : `No default bank account in ${input.currency}: add one with POST /api/v1/bank-accounts`, { currency: input.currency });
    }
    const now = this.clock.now();
    const test = owner.mode === 'test';
    const answerAt = test ? addSeconds(now, this.options.testPayoutSeconds) : undefined;
    const id = newId('po');
    await this.db.transaction(async (trx) => {
      // One payout of a merchant at a time reads and debits its balance (PostgreSQL: the merchant's row locked).
      await this.db.lockForUpdate(trx.selectFrom('merchants').select('id').where('id', '=', owner.merchantId)).execute();
      const available = await this.available(trx, owner, input.currency);
      const amount = input.amount ?? available;
      if (amount <= 0 || amount > available) {
        throw new AppError('INSUFFICIENT_BALANCE', `The available balance is ${available} ${input.currency}; a payout cannot exceed it`, {
          available, requested: amount, currency: input.currency,
        });
      }
      const row: PayoutRow = {
        id, merchant_id: owner.merchantId, mode: owner.mode, amount, currency: input.currency, status: test ? 'in_transit' : 'pending',
        automatic: automatic ? 1 : 0, bank_account_id: account.id, description: input.description ?? null,
        arrival_date: (answerAt ?? addSeconds(now, LIVE_ARRIVAL_SECONDS)).toISOString(), failure_reason: null, failure_message: null,
        answer_due_at: answerAt?.toISOString() ?? null, created_at: now.toISOString(), updated_at: now.toISOString(),
      };
      await trx.insertInto('payouts').values(row).execute();
      await this.carry(trx, owner, row, amount === available);
      await post(trx, { owner: { ...owner, storeId: null }, type: 'payout', amount: -amount, currency: input.currency, source: { type: 'payout', id }, description: input.description ?? 'Payout', at: now });
      await recordEvent(trx, { merchantId: owner.merchantId, mode: owner.mode, at: now, ...payloads.payoutCreated(eventData(row)) });
    });
    return payoutView(await this.find(owner, id));
  }

  /**
   * The available transactions the payout carries, among those no payout carried yet. A payout of the whole available
   * balance carries them all (they sum to it, plus what an earlier partial payout left to it). A partial one carries
   * whole sources (a payment with its fee, a refund, an adjustment), oldest first, as long as they fit in its amount,
   * and leaves the rest to the next payout.
   * Payouts' own transactions are never carried.
   */
  private async carry(trx: Trx, owner: Owner, payout: PayoutRow, wholeBalance: boolean): Promise<void> {
    const rows = await trx.selectFrom('balance_transactions as t')
      .leftJoin('ledger_postings as r', (j) => j.onRef('r.transaction_id', '=', 't.id').on('r.kind', '=', 'release'))
      .leftJoin('payout_items as i', 'i.transaction_id', 't.id')
      .select(['t.id', 't.amount', 't.source_type', 't.source_id'])
      .where(ownedBy(owner, { alias: 't' })).where('t.currency', '=', payout.currency).where('t.type', '<>', 'payout')
      .where('i.transaction_id', 'is', null)
      .where((eb) => eb.or([eb('t.pending', '=', 0), eb('r.id', 'is not', null)]))
      .orderBy('t.created_at').orderBy('t.id').execute();
    let carried = rows.map((t) => t.id);
    if (!wholeBalance) {
      const sources = new Map<string, { ids: string[]; amount: number }>();
      for (const t of rows) {
        const key = `${t.source_type}:${t.source_id}`;
        const source = sources.get(key) ?? sources.set(key, { ids: [], amount: 0 }).get(key)!;
        source.ids.push(t.id);
        source.amount += Number(t.amount);
      }
      carried = [];
      let sum = 0;
      for (const source of sources.values()) {
        if (sum + source.amount > payout.amount) break;
        sum += source.amount;
        carried.push(...source.ids);
      }
    }
    for (let i = 0; i < carried.length; i += 200) {
      await trx.insertInto('payout_items').values(carried.slice(i, i + 200).map((transaction_id) => ({ transaction_id, payout_id: payout.id }))).execute();
    }
  }

  async list(owner: Owner, page: PageRequest) {
    merchantWide(owner);
    const result = await paginate(this.mine(this.db.kysely, owner), page, (id) => this.mine(this.db.kysely, owner).where('id', '=', id).executeTakeFirst());
    return { data: result.data.map(payoutView), hasMore: result.hasMore };
  }

  /** Every payout, newest first, a batch at a time (the CSV export). */
  batches(owner: Owner) {
    merchantWide(owner);
    return allRows(this.mine(this.db.kysely, owner));
  }

  async get(owner: Owner, id: string) {
    merchantWide(owner);
    return payoutView(await this.find(owner, id));
  }

  /** Every transaction a payout carries, a batch at a time (the CSV export). */
  async transactionBatches(owner: Owner, id: string) {
    merchantWide(owner);
    await this.find(owner, id);
    return this.balance.batches(owner, { payoutId: id });
  }

  /** The balance transactions a payout carries (its own `payout` transaction is not among them), newest first. */
  async transactions(owner: Owner, id: string, page: PageRequest) {
    merchantWide(owner);
    await this.find(owner, id);
    return this.balance.list(owner, { payoutId: id, ...page });
  }

  /** Cancels a payout the bank has not taken yet (pending): its amount is credited back, and payout.failed says "cancelled". */
  async cancel(owner: Owner, id: string) {
    merchantWide(owner);
    await this.find(owner, id);
    const ended = await this.end(id, ['pending'], { status: 'cancelled', reason: 'cancelled', message: 'Cancelled by the merchant' });
    if (!ended) {
      const row = await this.find(owner, id);
      throw new AppError('PAYOUT_NOT_CANCELLABLE', `Payout ${id} is ${row.status}; only a pending payout can be cancelled`, { status: row.status });
    }
    return payoutView(await this.find(owner, id));
  }

  /** The operator records the bank's answer to a live payout. */
  async recordAnswer(id: string, answer: { paid: true } | { paid: false; reason: string; message?: string }) {
    const row = await this.db.kysely.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('payout', id);
    const ended = answer.paid
      ? await this.end(id, ['pending', 'in_transit'], { status: 'paid' })
      : await this.end(id, ['pending', 'in_transit'], { status: 'failed', reason: answer.reason, message: answer.message ?? answer.reason });
    if (!ended) throw new AppError('PAYOUT_NOT_PENDING', `Payout ${id} is ${row.status} already`, { status: row.status });
    return payoutView((await this.db.kysely.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow()));
  }

  /** Test mode: the simulated bank answers the payouts whose time has come; returns how many it answered. */
  async answerDueTestPayouts(now: Date): Promise<number> {
    const due = await this.db.kysely.selectFrom('payouts').select(['id', 'bank_account_id'])
      .where('status', '=', 'in_transit').where('mode', '=', 'test').where('answer_due_at', '<=', now.toISOString())
      .orderBy('answer_due_at').limit(BATCH).execute();
    let answered = 0;
    for (const payout of due) {
      const iban = await this.bankAccounts.ibanOf(payout.bank_account_id);
      const answer = iban ? testBankAnswer(iban) : { paid: false as const, reason: 'no_account', message: 'The bank account does not exist' };
      const ended = answer.paid
        ? await this.end(payout.id, ['in_transit'], { status: 'paid' })
        : await this.end(payout.id, ['in_transit'], { status: 'failed', reason: answer.reason, message: answer.message });
      if (ended) answered += 1;
    }
    return answered;
  }

  /**
   * Ends a payout once (conditional on its status): paid → payout.completed; failed or cancelled → its amount credited
   * back (`payout_failure`) and payout.failed. Three failures in a row on one account make it `errored`.
   */
  private async end(id: string, from: PayoutRow['status'][], outcome: { status: 'paid' } | { status: 'failed' | 'cancelled'; reason: string; message: string }): Promise<boolean> {
    const at = this.clock.now();
    return this.db.transaction(async (trx) => {
      const set = outcome.status === 'paid'
        ? { status: 'paid' as const, updated_at: at.toISOString() }
        : { status: outcome.status, failure_reason: outcome.reason, failure_message: outcome.message, updated_at: at.toISOString() };
      const res = await trx.updateTable('payouts').set(set).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return false;
      const row = await trx.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const owner = { merchantId: row.merchant_id, mode: row.mode, storeId: null };
      if (outcome.status === 'paid') {
        await recordEvent(trx, { merchantId: row.merchant_id, mode: row.mode, at, ...payloads.payoutCompleted(eventData(row)) });
        return true;
      }
      await post(trx, { owner, type: 'payout_failure', amount: Number(row.amount), currency: row.currency, source: { type: 'payout', id }, description: `Payout ${outcome.status}: ${outcome.reason}`, at });
      await recordEvent(trx, { merchantId: row.merchant_id, mode: row.mode, at, ...payloads.payoutFailed({ ...eventData(row), failureReason: outcome.reason }) });
      if (outcome.status === 'failed') {
        const last = await trx.selectFrom('payouts').select('status').where('bank_account_id', '=', row.bank_account_id)
          .where('status', 'in', ['paid', 'failed']).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(FAILURES_BEFORE_ERRORED).execute();
        if (last.length === FAILURES_BEFORE_ERRORED && last.every((p) => p.status === 'failed')) {
          await trx.updateTable('bank_accounts').set({ status: 'errored' }).where('id', '=', row.bank_account_id).execute();
        }
      }
      return true;
    });
  }
}
