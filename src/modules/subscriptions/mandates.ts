// A subscription's mandate is its card. When the card can no longer be charged (deleted by the cardholder or the
// merchant, disabled, unknown at the acquirer), every subscription charging it waits for a mandate: it opens no due
// date until a card is attached again (subscriptions.service.ts). Called by the wallet on the transaction that removes
// the card, so the removal and the revocation commit together.
import type { Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads } from '../../events/payloads.js';

export async function revokeMandates(trx: Trx, paymentMethodId: string, reason: 'deleted' | 'disabled' | 'unknown_at_acquirer', at: Date): Promise<number> {
  const subscriptions = await trx.selectFrom('subscriptions').select(['id', 'merchant_id', 'mode'])
    .where('payment_method_id', '=', paymentMethodId).where('status', 'in', ['active', 'past_due']).execute();
  for (const s of subscriptions) {
    const res = await trx.updateTable('subscriptions').set({ status: 'waiting_mandate', payment_method_id: null, updated_at: at.toISOString() })
      .where('id', '=', s.id).where('status', 'in', ['active', 'past_due']).executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) continue;
    await recordEvent(trx, { merchantId: s.merchant_id, mode: s.mode, at, ...payloads.subscriptionMandateRevoked({ subscriptionId: s.id, paymentMethodId, reason }) });
  }
  return subscriptions.length;
}
