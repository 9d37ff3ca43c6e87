// What every payment event of the lifecycle carries (docs/payments.md, Events): the base fields the existing
// integrations read, and the settlement block computed from the payment's contract, its authorization attempts (kept on
// the payment, never asked of the acquirer) and its refunds. Read on the caller's transaction so the event shows the state written with it.
import type { Kysely } from 'kysely';
import { compiledQuery } from '../../db/compiled.js';
import type { Trx } from '../../db/database.js';
import type { ReferenceCache } from '../../db/reference-cache.js';
import type { DB } from '../../db/schema.js';
import type { PaymentBase, Settlement } from '../../events/payloads.js';
import { isCurrency, toEurCents } from '../../shared/money.js';
import { settlementBlock, type FeeContract } from '../payments/fees.js';
import type { PaymentRow } from '../payments/payments.table.js';
import { storeRef, type StoreRef } from '../payments/payments.views.js';

// Compiled once (src/db/compiled.ts): every payment event reads them.
const storeById = compiledQuery((db, p: { id: string }) => db.selectFrom('stores').select(['id', 'code', 'name']).where('id', '=', p.id));
const contractFees = compiledQuery((db, p: { id: string }) =>
  db.selectFrom('contracts').select(['commission_rate', 'fixed_fee', 'authorization_fee', 'tax_rate']).where('id', '=', p.id));
const succeededRefunds = compiledQuery((db, p: { paymentId: string }) =>
  db.selectFrom('refunds').select(['id', 'amount']).where('payment_id', '=', p.paymentId).where('status', '=', 'succeeded').orderBy('created_at').orderBy('id'));

export async function storeOf(trx: Trx, payment: PaymentRow): Promise<StoreRef> {
  if (!payment.store_id) return null;
  const store = await storeById.executeTakeFirst(trx, { id: payment.store_id });
  return storeRef(store);
}

/** `amount` is EUR cents (the payment's amount, or `originalAmount` when the event is about part of it). */
export function paymentBase(payment: PaymentRow, store: StoreRef, originalAmount = payment.amount): PaymentBase {
  const currency = isCurrency(payment.currency) ? payment.currency : 'EUR';
  return {
    paymentId: payment.id,
    status: payment.status,
    reference: payment.reference,
    order: { reference: payment.order_reference },
    externalId: payment.external_id,
    amount: originalAmount === payment.amount ? payment.amount_eur_cents : toEurCents(originalAmount, currency),
    currency: 'EUR',
    store,
    customerId: payment.customer_id,
    privateData: payment.private_data ? (JSON.parse(payment.private_data) as Record<string, unknown>) : null,
  };
}

/** The fee terms of a contract, what the settlement block is computed from. */
export function feeTerms(q: Kysely<DB>, contractId: string): Promise<FeeContract> {
  return contractFees.executeTakeFirstOrThrow(q, { id: contractId });
}

/** A contract's fee terms as a caller with a ReferenceCache gives them to the transitions (read on `trx` when not cached). */
export type FeeTermsOf = (trx: Kysely<DB>, contractId: string) => Promise<FeeContract>;

/**
 * The fee terms from `reference`: contracts are reference rows, so every payment event of a contract finds them in the
 * process until a contract changes (Database.referenceStamp), instead of reading them on each transition. A miss reads
 * on the caller's transaction, which holds SQLite's one connection.
 */
export function cachedFeeTerms(reference: ReferenceCache): FeeTermsOf {
  return (trx, contractId) => reference.get(`fee-terms:${contractId}`, () => feeTerms(trx, contractId));
}

/**
 * `attempts`: the payment's own count unless the caller has the acquirer's list at hand (the payment's detail view).
 * `terms`: the contract's fee terms when the caller has them (from a ReferenceCache); read on `trx` otherwise.
 */
export async function settlementOf(trx: Kysely<DB>, payment: PaymentRow, attempts = payment.authorization_attempts, terms?: FeeContract): Promise<Settlement> {
  const contract = terms ?? await feeTerms(trx, payment.contract_id);
  // A refund succeeds on the transaction that adds it to the payment's refunded_amount (refundApplied): none
  // succeeded while that is 0, as on every authorization and capture, and nothing to read.
  const refunds = payment.refunded_amount === 0 ? [] : await succeededRefunds.execute(trx, { paymentId: payment.id });
  return settlementBlock(
    {
      currency: payment.currency,
      capturedAmount: payment.captured_amount,
      attempts,
      settled: payment.settled === 1,
      refunds,
    },
    contract,
  );
}
