// Saved cards (payment methods): saving one on a caller's transaction (wallet sessions, card links and the
// hosted checkout's save-my-card all come here), reading, removing. A card already in the customer's wallet
// (same acquirer fingerprint, still active) is never saved twice: the existing pm_ is returned.
import type { CardInfo } from '../../acquirer/acquirer.js';
import type { Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads } from '../../events/payloads.js';
import { newId } from '../../shared/ids.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { PaymentMethodRow, RemovalReason } from './wallet.table.js';
import { revokeMandates } from '../subscriptions/mandates.js';
import { ownedBy } from '../merchants/scope.js';

export interface WalletOwner {
  merchantId: string;
  mode: Mode;
}

export interface SavePaymentMethodInput {
  owner: WalletOwner;
  customerId: string;
  /** The acquirer's durable card reference (`cardRef` of a verification or a saving authorization). */
  cardRef: string;
  /** What the acquirer told about the card. */
  card: CardInfo;
  /** Event time: pass clock.now(). */
  at: Date;
}

export interface SavedPaymentMethod {
  paymentMethod: PaymentMethodRow;
  /** false when the card was already in the wallet (same fingerprint): no event then. */
  created: boolean;
}

/** The public shape of a payment method: never the number, never the acquirer's reference. */
export function paymentMethodView(row: PaymentMethodRow) {
  return {
    id: row.id,
    object: 'payment_method' as const,
    customerId: row.customer_id,
    type: 'card' as const,
    brand: row.brand,
    network: row.network,
    networks: JSON.parse(row.networks) as string[],
    last4: row.last4,
    expMonth: row.exp_month,
    expYear: row.exp_year,
    fingerprint: row.fingerprint,
    status: row.status,
    removedReason: row.removed_reason,
    createdAt: row.created_at,
  };
}

export type PaymentMethodView = ReturnType<typeof paymentMethodView>;

/** The `payment_method.*` event data: the full object as known to the merchant, plus the card names payment events use. */
function eventData(row: PaymentMethodRow) {
  return { ...paymentMethodView(row), cardBrand: row.brand, cardLast4: row.last4 };
}

/**
 * Saves a card in a customer's wallet on the caller's transaction, or returns the active payment method that
 * already holds this card. A new one writes `payment_method.added` on the same transaction.
 */
export async function savePaymentMethod(trx: Trx, input: SavePaymentMethodInput): Promise<SavedPaymentMethod> {
  const existing = () =>
    trx.selectFrom('payment_methods').selectAll()
      .where(ownedBy(input.owner))
      .where('customer_id', '=', input.customerId).where('fingerprint', '=', input.card.fingerprint)
      .where('status', '=', 'active').executeTakeFirst();
  const found = await existing();
  if (found) return { paymentMethod: found, created: false };
  const row: PaymentMethodRow = {
    id: newId('pm'),
    merchant_id: input.owner.merchantId,
    mode: input.owner.mode,
    customer_id: input.customerId,
    acquirer_card_ref: input.cardRef,
    brand: input.card.brand,
    network: input.card.network,
    networks: JSON.stringify(input.card.networks),
    last4: input.card.last4,
    exp_month: input.card.expMonth,
    exp_year: input.card.expYear,
    fingerprint: input.card.fingerprint,
    status: 'active',
    removed_reason: null,
    removed_at: null,
    created_at: input.at.toISOString(),
  };
  // A concurrent save of the same card in the same wallet fails on the partial unique index (active, fingerprint)
  // and rolls back its transaction: the wallet never holds one card twice.
  await trx.insertInto('payment_methods').values(row).execute();
  await recordEvent(trx, {
    merchantId: row.merchant_id, mode: row.mode, at: input.at, ...payloads.paymentMethodAdded(eventData(row)),
  });
  return { paymentMethod: row, created: true };
}

/** Marks an active payment method removed and writes `payment_method.removed`; false if it was not active. */
export async function removePaymentMethod(trx: Trx, row: PaymentMethodRow, reason: RemovalReason, at: Date): Promise<PaymentMethodRow | null> {
  const now = at.toISOString();
  const res = await trx.updateTable('payment_methods').set({ status: 'removed', removed_reason: reason, removed_at: now })
    .where('id', '=', row.id).where('status', '=', 'active').executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return null;
  const removed: PaymentMethodRow = { ...row, status: 'removed', removed_reason: reason, removed_at: now };
  await recordEvent(trx, {
    merchantId: row.merchant_id, mode: row.mode, at, ...payloads.paymentMethodRemoved({ ...eventData(removed), reason }),
  });
  // The subscriptions charging this card wait for a mandate from now on.
  await revokeMandates(trx, row.id, reason, at);
  return removed;
}

/**
 * The acquirer refused a charge of a saved card as unknown (`card_unknown`): the card can never be charged again, so
 * it leaves the wallet (`payment_method.removed`, reason `unknown_at_acquirer`) on the transaction that records the
 * payment's failure. Nothing when the charge used no saved card or the card was already removed.
 */
export async function removeUnknownCard(trx: Trx, paymentMethodId: string | null, at: Date): Promise<void> {
  if (!paymentMethodId) return;
  const row = await trx.selectFrom('payment_methods').selectAll().where('id', '=', paymentMethodId).executeTakeFirst();
  if (row) await removePaymentMethod(trx, row, 'unknown_at_acquirer', at);
}
