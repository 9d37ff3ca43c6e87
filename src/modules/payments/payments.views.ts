// Rows → API objects. `reference` is the SPR-… payment reference, as in every payment event (where the
// existing integrations read it); the merchant's own order reference is `orderReference` and `order.reference`.
import type { Store } from '../merchants/merchants.table.js';
import type { PaymentRow, PaymentSessionRow } from './payments.table.js';

export type StoreRef = { id: string; code: string; name: string } | null;

export function storeRef(store: Pick<Store, 'id' | 'code' | 'name'> | undefined | null): StoreRef {
  return store ? { id: store.id, code: store.code, name: store.name } : null;
}

function parseObject(text: string | null): Record<string, unknown> | null {
  return text ? (JSON.parse(text) as Record<string, unknown>) : null;
}

/** The order as given: a split payment's mark (src/modules/splits/platform-config.ts) is not the merchant's. */
function orderOf(text: string): Record<string, unknown> {
  const order = parseObject(text) ?? {};
  if ('platformSplit' in order) delete order.platformSplit;
  return order;
}

export function checkoutUrl(publicUrl: string, sessionId: string): string {
  return `${publicUrl}/checkout/${sessionId}`;
}

export function paymentView(row: PaymentRow, store: StoreRef, session: Pick<PaymentSessionRow, 'expires_at'> | undefined) {
  return {
    id: row.id,
    paymentId: row.id,
    status: row.status,
    reference: row.reference,
    orderReference: row.order_reference,
    order: orderOf(row.order_json),
    externalId: row.external_id,
    amount: row.amount,
    currency: row.currency,
    amountCents: row.amount_eur_cents,
    originalAmount: row.amount,
    originalCurrency: row.currency,
    taxAmount: row.tax_amount,
    isInclTaxAmount: row.is_incl_tax_amount === 1,
    captureMode: row.capture_mode,
    store,
    customerId: row.customer_id,
    email: row.email,
    sessionId: row.session_id,
    refusalCode: row.refusal_code,
    refusalMessage: row.refusal_message,
    authorizedAmount: row.authorized_amount,
    capturedAmount: row.captured_amount,
    refundedAmount: row.refunded_amount,
    disputedAmount: row.disputed_amount,
    subscriptionId: row.subscription_id,
    dueDate: row.due_date,
    paymentMethodId: row.payment_method_id,
    cardBrand: row.card_brand,
    cardLast4: row.card_last4,
    privateData: parseObject(row.private_data),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: session?.expires_at ?? null,
    settled: row.settled === 1,
    authorizedAt: row.authorized_at,
    capturedAt: row.captured_at,
    settledAt: row.settled_at,
  };
}

export function sessionView(publicUrl: string, session: PaymentSessionRow, payment: PaymentRow, store: StoreRef, maxCardAttempts: number) {
  return {
    id: session.id,
    sessionId: session.id,
    paymentId: payment.id,
    status: session.status,
    paymentStatus: payment.status,
    checkoutUrl: checkoutUrl(publicUrl, session.id),
    store,
    customerId: payment.customer_id,
    email: session.email,
    externalId: payment.external_id,
    reference: payment.reference,
    orderReference: payment.order_reference,
    amount: payment.amount,
    currency: payment.currency,
    amountCents: payment.amount_eur_cents,
    captureMode: payment.capture_mode,
    saveCustomer: payment.save_customer === 1,
    isInclTaxAmount: payment.is_incl_tax_amount === 1,
    allowCustomerToSavePaymentMethod: session.allow_save_payment_method === 1,
    savePaymentMethodCheckedByDefault: session.save_payment_method_default === 1,
    languageCode: session.language_code,
    redirectUrl: session.redirect_url,
    failureRedirectUrl: session.failure_redirect_url,
    successPageMode: session.success_page_mode,
    failurePageMode: session.failure_page_mode,
    notificationUrl: payment.notification_url || null, // '': a link created without one
    merchantConfigId: payment.contract_id,
    cardAttempts: session.card_attempts,
    cardAttemptsLeft: Math.max(0, maxCardAttempts - session.card_attempts),
    createdAt: session.created_at,
    expiresAt: session.expires_at,
  };
}
