// Route schemas of payment sessions and payments: one TypeBox schema drives validation, types and OpenAPI.
// The `order` schemas are strict on purpose: unknown keys inside `order` are removed before validation
// (stripUnknown: the API drops them silently, docs/compatibility.md), so what remains is exactly what the schema
// describes.
import { Type, type Static, type TSchema } from 'typebox';
import { ListQuery, Nullable } from '../../http/schemas.js';
import { FreeJson } from '../../http/json-limits.js';

import { MAX_AMOUNT } from '../../shared/money.js';
import { PlatformDistribution } from '../splits/splits.schemas.js';

export { MAX_AMOUNT };
const Amount = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description });
const Text = (max: number) => Type.String({ maxLength: max });

export const Address = Type.Object(
  {
    streetNumber: Type.Optional(Text(20)),
    street: Type.Optional(Text(200)),
    line1: Type.Optional(Text(200)),
    line2: Type.Optional(Text(200)),
    complement: Type.Optional(Text(200)),
    city: Type.Optional(Text(100)),
    postalCode: Type.Optional(Text(20)),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' })),
    label: Type.Optional(Text(200)),
    firstName: Type.Optional(Text(100)),
    lastName: Type.Optional(Text(100)),
    phone: Type.Optional(Text(30)),
    email: Type.Optional(Text(254)),
  },
  { additionalProperties: false },
);

export const TaxLine = Type.Object(
  {
    id: Type.Optional(Text(200)),
    type: Type.Enum(['PERCENTAGE']),
    value: Type.Integer({ minimum: 0, maximum: 100_000, description: 'hundredths of a percent: 11 % = 1100' }),
  },
  { additionalProperties: false },
);

export const OrderItem = Type.Object(
  {
    product: Type.String({ minLength: 1, maxLength: 200 }),
    unitPrice: Amount('minor unit'),
    quantity: Type.Integer({ minimum: 1, maximum: 100_000 }),
    description: Type.Optional(Text(1000)),
    discount: Type.Optional(Amount('minor unit, subtracted from unitPrice × quantity')),
    taxDetail: Type.Optional(Type.Array(TaxLine, { maxItems: 10 })),
  },
  { additionalProperties: false },
);

export const Order = Type.Object(
  {
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "the merchant's order reference" })),
    amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'minor unit: EUR cents, whole XPF' }),
    currency: Type.Enum(['XPF', 'EUR']),
    items: Type.Optional(Type.Array(OrderItem, { maxItems: 500 })),
    discount: Type.Optional(Amount('order-level discount, minor unit')),
    taxAmount: Type.Optional(Amount('tax in minor unit; with isInclTaxAmount false and no taxDetail.rate, added on top')),
    taxDetail: Type.Optional(
      Type.Object(
        {
          rate: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: 'basis points: 16 % = 1600' })),
          id: Type.Optional(Text(200)),
          type: Type.Optional(Type.Enum(['PERCENTAGE'])),
        },
        { additionalProperties: false },
      ),
    ),
    platformConfig: Type.Optional(FreeJson({ keyMaxLength: 100, description: 'kept as given' })),
    delivery: Type.Optional(
      Type.Object(
        {
          mode: Type.Optional(Text(100)),
          firstName: Type.Optional(Text(100)),
          lastName: Type.Optional(Text(100)),
          fee: Type.Optional(Amount('descriptive only; never part of the amount check')),
          address: Type.Optional(Address),
        },
        { additionalProperties: false },
      ),
    ),
    buyer: Type.Optional(
      Type.Object(
        {
          id: Type.Optional(Text(255)),
          email: Type.Optional(Text(254)),
          phone: Type.Optional(Text(30)),
          firstName: Type.Optional(Text(100)),
          lastName: Type.Optional(Text(100)),
          billingAddress: Type.Optional(Address),
        },
        { additionalProperties: false },
      ),
    ),
    invoicing: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          send: Type.Optional(Type.Boolean()),
          operationType: Type.Optional(Type.Enum(['GOODS', 'SERVICES', 'MIXED'])),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const UrlText = Type.String({ minLength: 1, maxLength: 2048 });

export const SessionBody = Type.Object(
  {
    storeId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'sto_… id or store code' })),
    merchantConfigId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'contract mcf_…' })),
    order: Order,
    captureMode: Type.Optional(Type.Enum(['AUTO', 'MANUAL'], { default: 'AUTO' })),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    saveCustomer: Type.Optional(Type.Boolean({ default: false })),
    allowCustomerToSavePaymentMethod: Type.Optional(Type.Boolean({ default: false })),
    savePaymentMethodCheckedByDefault: Type.Optional(Type.Boolean({ default: true })),
    isInclTaxAmount: Type.Optional(Type.Boolean({ default: true })),
    languageCode: Type.Optional(
      Type.String({ minLength: 2, maxLength: 5, pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,2})?$', default: 'fr' }),
    ),
    redirectUrl: UrlText,
    failureRedirectUrl: Type.Optional(UrlText),
    failurePageMode: Type.Optional(Type.Enum(['show', 'redirect'], { default: 'show' })),
    successPageMode: Type.Optional(Type.Enum(['auto', 'show', 'redirect'], { default: 'auto' })),
    notificationUrl: UrlText,
    expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 2_592_000, default: 86_400, description: 'seconds' })),
    privateData: Type.Optional(FreeJson({ keyMaxLength: 100 })),
  },
  { additionalProperties: false },
);
/** What a session or a link is created from: a link may leave out both URLs (LinkBody), a session may not. */
export type SessionInput = Omit<Static<typeof SessionBody>, 'redirectUrl' | 'notificationUrl'>
  & Partial<Pick<Static<typeof SessionBody>, 'redirectUrl' | 'notificationUrl'>>;
export type OrderInput = Static<typeof Order>;


export const StoreRef = Nullable(Type.Object({ id: Type.String(), code: Type.String(), name: Type.String() }));

/**
 * A new session answers its payment's status, which is always `pending` then (the integrations of other services read
 * it so); the session's own status (`open`, …) is `GET /payments/sessions/{id}`'s.
 */
export const CreatedPaymentStatus = Type.Literal('pending', { description: "the payment's status: pending until the customer pays" });

export const SessionCreated = Type.Object({
  paymentId: Type.String(),
  sessionId: Type.String(),
  checkoutUrl: Type.String(),
  store: StoreRef,
  status: CreatedPaymentStatus,
  externalId: Nullable(Type.String()),
  expiresAt: Type.String(),
});

const Json = Type.Record(Type.String(), Type.Unknown());

export const PaymentView = Type.Object({
  id: Type.String(),
  paymentId: Type.String(),
  status: Type.String(),
  reference: Type.String({ description: 'SPR-… payment reference, as in events' }),
  orderReference: Nullable(Type.String()),
  order: Json,
  externalId: Nullable(Type.String()),
  amount: Type.Integer({ description: 'original currency minor unit, taxes included' }),
  currency: Type.String(),
  amountCents: Type.Integer({ description: 'EUR cents' }),
  originalAmount: Type.Integer(),
  originalCurrency: Type.String(),
  taxAmount: Type.Integer(),
  isInclTaxAmount: Type.Boolean(),
  captureMode: Type.String(),
  store: StoreRef,
  customerId: Nullable(Type.String()),
  email: Nullable(Type.String()),
  sessionId: Nullable(Type.String()),
  refusalCode: Nullable(Type.String()),
  refusalMessage: Nullable(Type.String()),
  authorizedAmount: Type.Integer(),
  capturedAmount: Type.Integer(),
  refundedAmount: Type.Integer(),
  disputedAmount: Type.Integer({ description: 'taken back by open or lost chargebacks; a refund may not reach into it' }),
  subscriptionId: Nullable(Type.String({ description: "a subscription's charge: the subscription" })),
  dueDate: Nullable(Type.String({ description: "a subscription's charge: the due date it collects" })),
  paymentMethodId: Nullable(Type.String()),
  cardBrand: Nullable(Type.String()),
  cardLast4: Nullable(Type.String()),
  privateData: Nullable(Json),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  expiresAt: Nullable(Type.String()),
  // Lifecycle (lifecycle.service.ts): on every view
  settled: Type.Optional(Type.Boolean()),
  authorizedAt: Type.Optional(Nullable(Type.String())),
  capturedAt: Type.Optional(Nullable(Type.String())),
  settledAt: Type.Optional(Nullable(Type.String())),
  // only on GET /payments/{id}: the acquirer's attempts, the refunds and the fees
  attempts: Type.Optional(Type.Array(Type.Object({
    id: Type.String(),
    status: Type.String(),
    amount: Type.Integer(),
    currency: Type.String(),
    refusalCode: Nullable(Type.String()),
    cardBrand: Type.String(),
    cardLast4: Type.String(),
    network: Type.String(),
    createdAt: Type.String(),
  }))),
  refunds: Type.Optional(Type.Array(Json)),
  settlement: Type.Optional(Json),
  platformDistribution: Type.Optional(PlatformDistribution),
});

export const SessionView = Type.Object({
  id: Type.String(),
  sessionId: Type.String(),
  paymentId: Type.String(),
  status: Type.String(),
  paymentStatus: Type.String(),
  checkoutUrl: Type.String(),
  store: StoreRef,
  customerId: Nullable(Type.String()),
  email: Nullable(Type.String()),
  externalId: Nullable(Type.String()),
  reference: Type.String(),
  orderReference: Nullable(Type.String()),
  amount: Type.Integer(),
  currency: Type.String(),
  amountCents: Type.Integer(),
  captureMode: Type.String(),
  saveCustomer: Type.Boolean(),
  isInclTaxAmount: Type.Boolean(),
  allowCustomerToSavePaymentMethod: Type.Boolean(),
  savePaymentMethodCheckedByDefault: Type.Boolean(),
  languageCode: Type.String(),
  redirectUrl: Nullable(Type.String()),
  failureRedirectUrl: Nullable(Type.String()),
  successPageMode: Type.String(),
  failurePageMode: Type.String(),
  notificationUrl: Nullable(Type.String()),
  merchantConfigId: Type.String(),
  cardAttempts: Type.Integer({ description: 'cards sent to the acquirer for this session (hosted page and card component)' }),
  cardAttemptsLeft: Type.Integer({ description: 'cards it may still send (MOTU_MAX_CARD_ATTEMPTS); 0: the customer can no longer pay' }),
  createdAt: Type.String(),
  expiresAt: Type.String(),
});

export const PaymentListQuery = Type.Object(
  {
    ...ListQuery,
    status: Type.Optional(
      Type.Enum(['pending', 'transit', 'captured', 'failed', 'cancelled', 'expired', 'partially_refunded', 'refunded']),
    ),
    storeId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    createdFrom: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after (ISO 8601)' })),
    createdTo: Type.Optional(Type.String({ format: 'date-time', description: 'created before (ISO 8601)' })),
    amountMin: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999, description: "amount at least this (inclusive), in the minor unit of the payment's own currency" })),
    amountMax: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999, description: "amount at most this (inclusive), in the minor unit of the payment's own currency" })),
    currency: Type.Optional(Type.Union([Type.Literal('XPF'), Type.Literal('EUR')])),
    customerEmail: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: "the payment's email, else its customer's; exact, case-insensitive" })),
    cardLast4: Type.Optional(Type.String({ pattern: '^[0-9]{4}$', description: 'the last 4 digits of the card that paid (or was refused)' })),
    q: Type.Optional(Type.String({
      minLength: 1, maxLength: 255,
      description: 'search, exact: a payment id (pay_…), the payment reference (SPR-…), the order reference, or a customer email (case-insensitive)',
    })),
  },
  { additionalProperties: false },
);
export type PaymentListFilter = Static<typeof PaymentListQuery>;

/**
 * Removes, in place, every key the schema does not describe inside `value` (objects, arrays of objects,
 * nullable unions). Values of the wrong type are left for the validator to report.
 */
export function stripUnknown(schema: TSchema, value: unknown): void {
  const s = schema as { type?: string; properties?: Record<string, TSchema>; items?: TSchema; anyOf?: TSchema[]; patternProperties?: unknown };
  if (Array.isArray(s.anyOf)) {
    for (const branch of s.anyOf) stripUnknown(branch, value);
    return;
  }
  if (s.type === 'array' && s.items && Array.isArray(value)) {
    for (const element of value) stripUnknown(s.items, element);
    return;
  }
  if (s.type === 'object' && s.properties && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = Object.prototype.hasOwnProperty.call(s.properties, key) ? s.properties[key] : undefined;
      if (!child) delete record[key];
      else stripUnknown(child, record[key]);
    }
  }
}
