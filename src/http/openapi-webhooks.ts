// The webhooks Motu sends, for the OpenAPI document's `webhooks` section and the event catalog (docs/events.md):
// each event type, when it is sent, its payload's JSON Schema (generated from src/events/payloads.ts into
// src/events/payload-schemas.json by `npm run events:schemas`) and an example built from that schema.
import generated from '../events/payload-schemas.json' with { type: 'json' };
import type { EventType } from '../events/payloads.js';
import type { DisputeStatus } from '../modules/disputes/disputes.table.js';
import type { InvoiceStatus } from '../modules/invoices/invoices.table.js';
import type { PaymentStatus } from '../modules/payments/payments.table.js';
import type { PayoutStatus } from '../modules/payouts/payouts.table.js';
import type { SubscriptionStatus } from '../modules/subscriptions/subscriptions.table.js';
import { CURRENCIES } from '../shared/money.js';
import { EXAMPLES, exampleId } from './openapi-examples.js';

type Json = Record<string, unknown>;

export const PAYLOADS = generated as unknown as { events: Record<EventType, string>; definitions: Record<string, Json> };

/** When each event is sent. */
export const EVENT_DESCRIPTIONS: Readonly<Record<EventType, string>> = {
  'payment.authorized': 'The card was authorized (before capture when the capture mode is MANUAL).',
  'payment.captured': 'The payment was collected; the commission it announces is a projection until settlement.',
  'payment.settled': 'The acquirer settled the funds; the commission is final.',
  'payment.failed': 'The card was refused.',
  'payment.expired': 'The session or payment link expired without a payment.',
  'payment.refunded': 'A refund brought the payment to fully refunded.',
  'payment.partially_refunded': 'A partial refund succeeded; part of the payment remains.',
  'payment.cancelled': 'An authorized, uncaptured payment was cancelled, or a pending one (by the cardholder or through the API: `cancelledBy`).',
  'invoice.issued': 'The invoice was finalized: its legal number is given and its content frozen.',
  'invoice.sent': 'The invoice was sent with its payment link.',
  'invoice.paid': 'The invoice is fully paid.',
  'invoice.partially_paid': 'A payment covered part of the invoice; `amountRemaining` is what is still due.',
  'invoice.overdue': 'The due date passed with an amount still due.',
  'invoice.disputed': 'A payment that paid the invoice was disputed; the invoice is reopened.',
  'invoice.credited': 'A credit note cancelled the whole invoice.',
  'invoice.uncollectible': 'The invoice was marked uncollectible (it can still be paid).',
  'invoice.overpayment_refunded': 'A card payment came when the invoice no longer owed all of it (paid or credited meanwhile), or a chargeback won gave back money the invoice no longer owed (paid again meanwhile): `refundAmount`, what it did not owe, is refunded at once on that payment (`refundId`).',
  'subscription.created': 'A subscription was created; without a card it waits for its mandate.',
  'subscription.payment_succeeded': 'A due date was collected.',
  'subscription.payment_failed': 'A due date was refused; another attempt follows while the retry schedule allows.',
  'subscription.past_due': 'Every attempt of a due date failed: it is unpaid and the subscription past due.',
  'subscription.mandate_revoked': 'The card of the subscription can no longer be charged; `reason` says why.',
  'subscription.mandate_restored': 'A card was attached again; `reason` says who attached it.',
  'subscription.cancelled': 'The subscription was cancelled (final).',
  'customer.created': 'A customer was created, through the API or by a payment carrying the buyer\'s details.',
  'customer.updated': 'A customer changed; `updatedFields` lists what.',
  'payment_method.added': 'A card was saved, through a wallet session, a card link or a payment.',
  'payment_method.removed': 'A saved card can no longer be used; `reason` is deleted, disabled or unknown_at_acquirer.',
  'payout.created': 'A payout to the merchant\'s bank account started, by hand or on the payout schedule.',
  'payout.completed': 'The bank executed the payout.',
  'payout.failed': 'The payout failed, was rejected by the interbank network or cancelled; see `failureReason`.',
  'dispute.created': 'A cardholder disputed a payment (a chargeback or an inquiry).',
  'dispute.updated': 'A dispute changed status; `previousStatus` is the one before.',
  'merchant.session.created': 'A marketplace invited a merchant to enroll.',
  'merchant.session.expired': 'An enrollment invitation expired unused; issue another.',
  'merchant.session.cancelled': 'An enrollment invitation was cancelled.',
  'merchant.onboarding.updated': 'A merchant\'s enrollment status changed.',
  'merchant.created': 'A merchant account was created from an enrollment.',
  'merchant.opened': 'A merchant\'s payment account is open and can collect.',
  'merchant.rejected': 'An enrollment needs corrections or was refused (`enrollmentStatus`).',
  'merchant.linked': 'A merchant was linked to the marketplace.',
  'merchant.unlinked': 'A merchant was unlinked from the marketplace (its account stays open).',
  'agency.invitation.created': 'An agency invited a client.',
  'agency.invitation.expired': 'An agency\'s invitation expired unused.',
  'agency.invitation.cancelled': 'An agency\'s invitation was cancelled.',
  'agency.client.onboarding.updated': 'The enrollment of an agency\'s client changed status.',
  'agency.client.opened': 'The account of an agency\'s client is open.',
  'agency.mandate.created': 'A client entered the agency\'s portfolio.',
  'agency.mandate.updated': 'The scope of an agency\'s mandate changed, or the account\'s ownership was transferred.',
  'agency.mandate.revoked': 'The agency\'s mandate was revoked: its calls on that account are refused.',
};

/** Descriptions of the payload fields payloads.ts does not comment, by name. */
export const FIELD_DESCRIPTIONS: Readonly<Record<string, string>> = {
  paymentId: 'The payment (pay_…).', status: 'The object\'s status after the change.', externalId: 'Your own id of the payment, as given at creation.',
  store: 'The store the payment was taken for, or null.', customerId: 'The customer (cus_…), or null.',
  privateData: 'The free JSON you gave at creation, returned as is.', customerCreated: 'True when the payment created the customer.',
  paymentMethodId: 'The saved card (pm_…), or null when none was saved.', cardBrand: 'The card\'s brand (VISA, MASTERCARD, CB…).',
  cardLast4: 'The last four digits of the card.', grossAmount: 'The amount in the original currency (minor unit).',
  originalCurrency: 'The currency the order was placed in.', settlement: 'The amounts collected, the commission and the net, with each fee line.',
  capturedAmount: 'Captured, in the original currency (minor unit).', mobupayCommission: 'The service\'s commission (minor unit; the name is kept for existing integrations).',
  netAmount: 'What the merchant receives (minor unit).', currency: 'ISO 4217 code.', settled: 'False until the acquirer\'s settlement arrives.',
  detailedFees: 'Each fee line.', id: 'The identifier of the object.', label: 'What the line is, in words.', type: 'The kind of line (PERCENTAGE for a rate).',
  rate: 'Basis points (250 = 2.50 %).', amount: 'Minor unit of `currency`.', amountEur: 'The same amount in exact EUR cents.',
  taxAmount: 'Tax, minor unit.', taxAmountEur: 'Tax, EUR cents.', taxes: 'Each tax of the line.', value: 'The tax rate in basis points.',
  totalAmount: 'Line total, minor unit.', totalAmountEur: 'Line total, EUR cents.', code: 'The store\'s code.', name: 'The store\'s name.',
  refusalCode: 'Why the card was refused (do_not_honor, insufficient_funds, expired_card…).', refusalMessage: 'The refusal in words.',
  refundId: 'The refund (re_…).', refundAmount: 'What the payment paid beyond what the invoice owed, refunded (minor unit).', refundOriginalAmount: 'This refund, in the original currency.',
  totalRefundedOriginalAmount: 'Every refund so far, in the original currency.', remainingOriginalAmount: 'What can still be refunded, in the original currency.',
  cancelledBy: 'Who cancelled a pending payment: porteur (the cardholder) or merchant_api.', invoiceId: 'The invoice (inv_…).',
  number: 'The legal number (F-YYYY-NNNNNN), null while a draft.', total: 'Total due, minor unit.', amountPaid: 'Paid so far, minor unit.',
  amountRemaining: 'Still due, minor unit.', dueDate: 'The due date (ISO 8601).', subscriptionId: 'The subscription (sub_…).',
  interval: 'day, week, month or year.', intervalCount: 'How many intervals between due dates.', nextDueDate: 'The next due date, or null when none is left.',
  amountDue: 'What the unpaid due date was for, minor unit.', reason: 'Why, in a word (see the event).', updatedFields: 'The fields that changed.',
  payoutId: 'The payout (po_…).', recipientId: 'The bank account (ba_…); never its details.', automatic: 'True when the payout schedule made it.',
  arrivalDate: 'The day the funds are expected (YYYY-MM-DD).', failureReason: 'Why the payout failed.', disputeId: 'The dispute (dp_…).',
  kind: 'chargeback or inquiry.', evidenceDueBy: 'The last moment to submit evidence.', previousStatus: 'The status before this change.',
  merchantId: 'The merchant (mer_…).', sessionId: 'The enrollment session.', enrollmentStatus: 'The enrollment\'s status.',
  agencyId: 'The agency (mer_…).', invitationId: 'The agency\'s invitation (agi_…).', mandateId: 'The mandate (mdt_…).',
  scopes: 'What the mandate lets the agency do (payments.read, refunds.write…).', previousScopes: 'The scopes before this change.',
  change: 'scopes, or ownership_transferred.', previousAgencyId: 'The agency that held the mandate before (mer_…).',
  revokedBy: 'Who revoked it: client or agency.',
  attempt: 'Counted from 1.', nextAttemptAt: 'When the next attempt is, null when none is left.', reference: 'The payment\'s SPR-… reference.',
  order: 'The merchant\'s own order reference.',
};

const all = <T extends string>() => <const A extends readonly T[]>(values: A & ([T] extends [A[number]] ? unknown : 'missing a value')): readonly string[] => values;

/** Statuses of the payload families (payloads.ts types them as strings). */
const STATUS_ENUMS: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/^Payment(?!Method)/, all<PaymentStatus>()(['pending', 'transit', 'captured', 'failed', 'cancelled', 'expired', 'partially_refunded', 'refunded'])],
  [/^Invoice/, all<InvoiceStatus>()(['draft', 'open', 'partially_paid', 'paid', 'disputed', 'credited', 'uncollectible'])],
  [/^Subscription/, all<SubscriptionStatus>()(['waiting_mandate', 'active', 'past_due', 'cancelled', 'ended'])],
  [/^Payout/, all<PayoutStatus>()(['pending', 'in_transit', 'paid', 'failed', 'cancelled'])],
  [/^Dispute/, all<DisputeStatus>()(['needs_response', 'under_review', 'won', 'lost', 'warning_needs_response', 'warning_under_review', 'warning_closed'])],
];

/** A seller's entry of platformDistribution (docs/platforms.md, the worked example's seller A). */
const SPLIT_SELLER = {
  merchantId: exampleId('mer', 1), amount: 6000, discount: 0, commission: 650, netAmount: 5350, currency: 'EUR', refundedAmount: 0, refundedCommission: 0,
  detailedCommission: [
    { id: 'platform_commission', label: 'Platform commission', type: 'PERCENTAGE', rate: 1000, amount: 600, amountEur: 600, totalAmount: 600, totalAmountEur: 600 },
    { id: 'platform_fixed_fee', label: 'Platform fixed fee', totalAmount: 50, totalAmountEur: 50 },
  ],
};

/** Example values particular to payloads, by field (the rest come from the API's examples). */
const PAYLOAD_EXAMPLES: Readonly<Record<string, unknown>> = {
  grossAmount: 4500, refundAmount: 600, refundOriginalAmount: 1500, totalRefundedOriginalAmount: 1500, remainingOriginalAmount: 3000, amountDue: 4500,
  mobupayCommission: 131, netAmount: 4369, totalAmount: 131, totalAmountEur: 131, cancelledBy: 'merchant_api',
  customerCreated: false, settled: false, automatic: true, disputeId: exampleId('dp'),
  agencyId: exampleId('mer'), merchantId: exampleId('mer', 1), invitationId: exampleId('agi'), mandateId: exampleId('mdt'),
  scopes: ['payments.read', 'refunds.write'], previousScopes: ['payments.read'], previousAgencyId: exampleId('mer', 2), revokedBy: 'client',
  caseId: exampleId('obc'),
  sessionId: 'enr_4kQ7mZ2x', enrollmentStatus: 'CORRECTION_REQUESTED', interval: 'month', reason: 'card_expired',
  previousStatus: 'needs_response', status: 'active', failureReason: 'account_closed', refundId: exampleId('re'), kind: 'chargeback',
  // Split payments (docs/platforms.md): the worked example's seller A and platform, and its refund's shares.
  detailedCommission: SPLIT_SELLER.detailedCommission,
  platformDistribution: [SPLIT_SELLER, {
    role: 'platform', merchantId: exampleId('mer'), commission: 900, discounts: 1000, financing: 2000, fees: 261, netAmount: -2361, currency: 'EUR', refundedCommission: 0,
  }],
  refundDistribution: [{ merchantId: exampleId('mer', 1), amount: 2182, commission: 236 }],
};

/** The `id` of an object under this field, or of the payload itself by its definition. */
const IDS: Readonly<Record<string, unknown>> = {
  store: exampleId('sto'), detailedFees: 'spirit_commission', taxes: 'tva', CustomerData: exampleId('cus'), CustomerUpdatedData: exampleId('cus'),
  PaymentMethodData: exampleId('pm'), PaymentMethodRemovedData: exampleId('pm'),
};
/** Examples of a field inside a given object (`object.field`). */
const IN_CONTEXT: Readonly<Record<string, unknown>> = {
  'order.reference': 'ORDER-2026-0042', 'store.name': 'Fare Ute Papeete', 'taxes.type': 'VAT', 'detailedFees.type': 'PERCENTAGE',
  // 2.50 % of 45.00 EUR, and 16 % VAT on it
  'detailedFees.rate': 250, 'detailedFees.amount': 113, 'detailedFees.amountEur': 113, 'detailedFees.taxAmount': 18,
  'detailedFees.taxAmountEur': 18, 'taxes.value': 1600, 'taxes.amount': 18, 'taxes.amountEur': 18,
};
const LABELS: Readonly<Record<string, string>> = { detailedFees: 'Commission Motu', taxes: 'TVA' };

/** FIELD_DESCRIPTIONS on the fields, nested objects included, that payloads.ts does not comment. */
function describe(schema: Json, parent: string): void {
  for (const [field, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const description = FIELD_DESCRIPTIONS[`${parent}.${field}`] ?? FIELD_DESCRIPTIONS[field];
    if (!property.description && description) property.description = description;
    if (property.type === 'object') describe(property, field);
  }
}

function definitions(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(PAYLOADS.definitions)) {
    const copy = structuredClone(schema);
    describe(copy, '');
    const properties = (copy.properties ?? {}) as Record<string, Json>;
    for (const [field, property] of Object.entries(properties)) {
      if (field === 'currency' || field === 'originalCurrency') {
        if (property.type === 'string' && property.const === undefined) property.enum = [...CURRENCIES];
      }
      if (field === 'status' || field === 'previousStatus') {
        const values = STATUS_ENUMS.find(([pattern]) => pattern.test(name))?.[1];
        if (values && property.type === 'string' && property.const === undefined) property.enum = [...values];
      }
    }
    out[name] = copy;
  }
  return out;
}

/** An example of a schema, from the example dictionaries; `missing` collects the fields none covers. */
export function exampleOf(schema: Json, defs: Record<string, Json>, field = '', parent = '', missing: string[] = []): unknown {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop()!;
    return exampleOf(defs[name]!, defs, field, name, missing);
  }
  if (schema.const !== undefined) return schema.const;
  const known = IN_CONTEXT[`${parent}.${field}`] ?? PAYLOAD_EXAMPLES[field] ?? EXAMPLES[field];
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).includes(known) ? known : schema.enum[0];
  if (Array.isArray(schema.anyOf)) {
    const branch = (schema.anyOf as Json[]).find((b) => b.type !== 'null') ?? {};
    return exampleOf(branch, defs, field, parent, missing);
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const type = types.find((t) => t !== 'null');
  if (type === 'object') {
    const out: Json = {};
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      if (name === 'id' && (IDS[field] ?? IDS[parent]) !== undefined) out.id = IDS[field] ?? IDS[parent];
      else if (name === 'label' && LABELS[field]) out.label = LABELS[field];
      else out[name] = exampleOf(property, defs, name, field || parent, missing);
    }
    return out;
  }
  if (type === 'array' && Array.isArray(known)) return known;
  if (type === 'array') return [exampleOf((schema.items ?? {}) as Json, defs, field, parent, missing)];
  if (type === 'boolean') return PAYLOAD_EXAMPLES[field] ?? true;
  const value = known;
  const fits = (type === 'string' && typeof value === 'string') || ((type === 'number' || type === 'integer') && typeof value === 'number');
  if (fits) return value;
  missing.push(`${parent || field}`);
  return type === 'string' ? '' : 0;
}

const pascal = (type: string) => type.split(/[._]/).map((part) => part[0]!.toUpperCase() + part.slice(1)).join('');

/** The event envelope every delivery's body has. */
export function envelopeOf(type: EventType, defs: Record<string, Json>): { schema: Json; example: Json } {
  const data = PAYLOADS.events[type];
  return {
    schema: {
      type: 'object',
      required: ['id', 'type', 'createdAt', 'data'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', description: 'The event (whe_…); deduplicate on it: an event may arrive more than once', examples: [exampleId('whe')] },
        type: { type: 'string', const: type },
        createdAt: { type: 'string', format: 'date-time', description: 'When the change happened (ISO 8601, UTC)', examples: [EXAMPLES.createdAt] },
        data: { $ref: `#/components/schemas/${data}` },
      },
    },
    example: { id: exampleId('whe'), type, createdAt: EXAMPLES.createdAt, data: exampleOf({ $ref: `#/components/schemas/${data}` }, defs) },
  };
}

const SIGNATURE_HEADERS: ReadonlyArray<readonly [string, string, string]> = [
  ['X-Service-Event-Id', 'The event id, as in the body', exampleId('whe')],
  ['X-Service-Timestamp', 'Unix seconds when this attempt was signed; refuse one older than 5 minutes', '1773480413'],
  ['X-Service-Signature-V2', 'Hex HMAC-SHA256 of "<timestamp>.<raw body>" with your webhook secret: verify this one', '9ab1c04e2f6d8b3a5c7e9f1d2b4a6c8e0f2d4b6a8c0e2f4d6b8a0c2e4f6d8b1a'],
  ['X-Service-Signature', 'V1, hex HMAC-SHA256 of the raw body (no replay protection; kept for existing integrations)', '5f2c8e1a3b7d9f0c2e4a6b8d0f1c3e5a7b9d1f3e5c7a9b0d2f4e6a8c1b3d5f7e'],
];

/** The payload definitions as components (the API's own names win: a payload's clash is prefixed with Event). */
export function webhooksSection(components: Json): Json {
  const schemas = components.schemas as Json;
  let defs = definitions();
  const clashes = Object.keys(defs).filter((name) => schemas[name] !== undefined);
  if (clashes.length) {
    let text = JSON.stringify(defs);
    for (const name of clashes) text = text.replaceAll(`"#/components/schemas/${name}"`, `"#/components/schemas/Event${name}"`);
    defs = Object.fromEntries(Object.entries(JSON.parse(text) as Record<string, Json>).map(([name, schema]) => [clashes.includes(name) ? `Event${name}` : name, schema]));
  }
  Object.assign(schemas, defs);
  const webhooks: Json = {};
  for (const type of Object.keys(PAYLOADS.events) as EventType[]) {
    const { schema, example } = envelopeOf(type, defs);
    webhooks[type] = {
      post: {
        operationId: `on${pascal(type)}`,
        summary: `${type}: ${EVENT_DESCRIPTIONS[type]}`,
        description: 'Sent to every enabled endpoint subscribed to this type (and to the payment\'s notificationUrl for payment events), signed with your webhook secret. Answer any 2xx within 10 seconds; anything else is retried after 30 s, 2 min, 10 min, 1 h and 6 h. See docs/events.md.',
        tags: ['Webhooks'],
        security: [],
        parameters: SIGNATURE_HEADERS.map(([name, description, example]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example })),
        requestBody: { required: true, content: { 'application/json': { schema, example } } },
        responses: {
          '200': { description: 'Received (any 2xx will do)' },
          '400': { description: 'Refused (a bad signature, for example): the delivery is retried, then abandoned' },
        },
      },
    };
  }
  return webhooks;
}
