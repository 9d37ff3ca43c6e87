// Merchant-initiated payments (POST /api/v1/payments): the merchant's server charges a saved card, with no
// customer present (no 3-D Secure challenge). Same store and contract rules as a payment session (the sessions
// service resolves them), same events and settlement as a hosted payment. A refusal is a value, not an HTTP
// error: the payment is created `failed` with its refusal code, and `payment.failed` is emitted.
//
// Never inside a transaction while the acquirer answers: the payment is written pending first, the
// authorization asked, then its outcome written with its events in a second short transaction.
import type { AuthorizationOutcome, CardInfo } from '../../acquirer/acquirer.js';
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads } from '../../events/payloads.js';
import type { MerchantAuth } from '../../http/auth.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, validationError, type FieldError } from '../../shared/errors.js';
import { newId, newPaymentReference } from '../../shared/ids.js';
import { toEurCents } from '../../shared/money.js';
import { checkOrderAmount, orderFieldProblems } from '../payments/order.js';
import { attemptsOf, paymentBase, settlementOf, storeOf } from '../payments/payment-events.js';
import type { PaymentsService } from '../payments/payments.service.js';
import type { PaymentRow } from '../payments/payments.table.js';
import type { OrderInput } from '../payments/sessions.schemas.js';
import type { PaymentSessionsService } from '../payments/sessions.service.js';
import { urlProblem } from '../payments/urls.js';

type Owner = Pick<MerchantAuth, 'merchantId' | 'mode' | 'storeId'>;

export interface MerchantPaymentInput {
  paymentMethodId: string;
  order: OrderInput;
  captureMode?: 'AUTO' | 'MANUAL';
  storeId?: string;
  merchantConfigId?: string;
  notificationUrl: string;
  privateData?: Record<string, unknown>;
  externalId?: string;
}

const PRIVATE_DATA_MAX_BYTES = 16_384;

export class MerchantPaymentsService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly acquirers: Acquirers,
    private readonly sessions: PaymentSessionsService,
    private readonly payments: PaymentsService,
    private readonly config: Pick<Config, 'allowLoopbackUrls'>,
  ) {}

  async charge(owner: Owner, input: MerchantPaymentInput) {
    const fields: FieldError[] = [];
    const problem = urlProblem(input.notificationUrl, 'notification', { mode: owner.mode, allowLoopbackUrls: this.config.allowLoopbackUrls });
    if (problem) fields.push({ field: 'notificationUrl', message: problem });
    fields.push(...orderFieldProblems(input.order));
    if (input.privateData && Buffer.byteLength(JSON.stringify(input.privateData)) > PRIVATE_DATA_MAX_BYTES) {
      fields.push({ field: 'privateData', message: `must not exceed ${PRIVATE_DATA_MAX_BYTES} bytes as JSON` });
    }
    const acquirer = this.acquirers.forMode(owner.mode);

    const pending = await this.db.transaction(async (trx) => {
      const store = await this.sessions.resolveStore(trx, owner, input.storeId);
      const contract = await this.sessions.resolveContract(trx, owner, store, input.merchantConfigId, fields);
      const pm = await trx.selectFrom('payment_methods').selectAll()
        .where('id', '=', input.paymentMethodId).where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode).executeTakeFirst();
      if (!pm) throw new AppError('NOT_FOUND', `No payment method with id ${input.paymentMethodId}`, { field: 'paymentMethodId', id: input.paymentMethodId });
      if (pm.status !== 'active') {
        fields.push({ field: 'paymentMethodId', message: `was removed (${pm.removed_reason ?? 'deleted'}); it can no longer be charged` });
      }
      if (fields.length > 0) throw validationError(fields);
      checkOrderAmount(input.order);
      if (!contract) throw new AppError('BUSINESS_RULE_VIOLATION', 'This merchant has no active default contract; ask the operator to set one');
      const now = this.clock.now().toISOString();
      const payment = {
        id: newId('pay'), merchant_id: owner.merchantId, mode: owner.mode, session_id: null, status: 'pending' as const,
        reference: newPaymentReference(), order_reference: input.order.reference ?? null, external_id: input.externalId ?? null,
        amount: input.order.amount, currency: input.order.currency, amount_eur_cents: toEurCents(input.order.amount, input.order.currency),
        tax_amount: 0, is_incl_tax_amount: 1, order_json: JSON.stringify(input.order), capture_mode: input.captureMode ?? 'AUTO',
        store_id: store?.id ?? null, contract_id: contract.id, customer_id: pm.customer_id, customer_created: 0, email: null,
        save_customer: 0, notification_url: input.notificationUrl,
        private_data: input.privateData && Object.keys(input.privateData).length > 0 ? JSON.stringify(input.privateData) : null,
        authorized_amount: 0, captured_amount: 0, refunded_amount: 0, refusal_code: null, refusal_message: null,
        payment_method_id: pm.id, card_brand: pm.brand, card_last4: pm.last4, card_network: pm.network,
        authorized_at: null, captured_at: null, settled: 0, acquirer_authorization_id: null, operation: null, operation_at: null,
        refund_reserved: 0, settled_at: null, created_at: now, updated_at: now,
      };
      await trx.insertInto('payments').values(payment).execute();
      return { paymentId: payment.id, cardRef: pm.acquirer_card_ref, amount: payment.amount, currency: payment.currency, capture: payment.capture_mode === 'AUTO' };
    });

    const outcome = await acquirer.authorize({
      mode: owner.mode, source: { cardRef: pending.cardRef }, amount: pending.amount, currency: pending.currency,
      merchantReference: pending.paymentId, capture: pending.capture,
    });
    await this.record(pending.paymentId, outcome);
    return this.payments.get(owner, pending.paymentId);
  }

  private async record(paymentId: string, outcome: AuthorizationOutcome): Promise<void> {
    const before = await this.db.kysely.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
    const attempts = await attemptsOf(this.acquirers, before);
    await this.db.transaction(async (trx) => {
      // The events' time is read in the transaction, not before it waited for its turn (group commit, locks): a
      // payment's events then never carry a time earlier than the one recorded before them.
      const at = this.clock.now();
      const now = at.toISOString();
      const event = async (row: PaymentRow) => ({ merchantId: row.merchant_id, mode: row.mode, paymentId: row.id, at, notificationUrl: row.notification_url });
      if (outcome.status !== 'authorized') {
        // A refusal, or a card the acquirer no longer knows: the payment fails with a refusal code.
        const refusal = outcome.status === 'refused'
          ? { code: outcome.refusalCode as string, message: outcome.refusalMessage }
          : outcome.status === 'error' && outcome.code === 'UNKNOWN_CARD'
            ? { code: 'card_unknown', message: outcome.message }
            : { code: 'processing_error', message: outcome.status === 'error' ? outcome.message : 'The card needs its holder to authenticate' };
        await trx.updateTable('payments').set({
          status: 'failed', refusal_code: refusal.code, refusal_message: refusal.message,
          ...(outcome.status === 'refused' ? cardColumns(outcome.card) : {}), updated_at: now,
          ...(outcome.status === 'refused' ? { acquirer_authorization_id: outcome.authorizationId } : {}),
        }).where('id', '=', paymentId).where('status', '=', 'pending').execute();
        const row = await trx.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
        await recordEvent(trx, {
          ...(await event(row)),
          ...payloads.paymentFailed({ ...paymentBase(row, await storeOf(trx, row)), refusalCode: refusal.code, refusalMessage: refusal.message }),
        });
        return;
      }
      await trx.updateTable('payments').set({
        status: 'transit', authorized_amount: before.amount, authorized_at: now, acquirer_authorization_id: outcome.authorizationId,
        ...cardColumns(outcome.card), updated_at: now,
      }).where('id', '=', paymentId).where('status', '=', 'pending').execute();
      const authorized = await trx.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
      const store = await storeOf(trx, authorized);
      await recordEvent(trx, {
        ...(await event(authorized)),
        ...payloads.paymentAuthorized({
          ...paymentBase(authorized, store), status: 'transit', customerId: authorized.customer_id, customerCreated: false,
          paymentMethodId: authorized.payment_method_id, cardBrand: authorized.card_brand, cardLast4: authorized.card_last4,
          grossAmount: authorized.amount, originalCurrency: authorized.currency, settlement: await settlementOf(trx, authorized, attempts),
        }),
      });
      if (!outcome.captured) return;
      await trx.updateTable('payments').set({ status: 'captured', captured_amount: authorized.amount, captured_at: now, updated_at: now })
        .where('id', '=', paymentId).where('status', '=', 'transit').execute();
      const captured = await trx.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
      await recordEvent(trx, {
        ...(await event(captured)),
        ...payloads.paymentCaptured({
          ...paymentBase(captured, store), grossAmount: captured.amount, originalCurrency: captured.currency,
          settlement: await settlementOf(trx, captured, attempts),
        }),
      });
    });
  }
}

function cardColumns(card: CardInfo | null) {
  return card ? { card_brand: card.brand, card_last4: card.last4, card_network: card.network } : {};
}
