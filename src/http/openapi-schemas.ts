// The schemas of the OpenAPI documents as a generator wants them: the objects of the API named once under
// #/components/schemas (Payment, Refund, Customer…) and referenced everywhere they occur, every status and type
// with its enum, and every field with a real example (a Motu id, an amount in minor units), so that neither a
// generated client nor the /docs page shows "string" or 0. Applied to the document only (openapi.ts).
import { CURRENCIES } from '../shared/money.js';
import { TRANSACTION_TYPES } from '../modules/ledger/ledger.table.js';
import type { PaymentStatus, SessionStatus } from '../modules/payments/payments.table.js';
import type { RefundStatus } from '../modules/refunds/refunds.table.js';
import type { DeliveryStatus } from '../events/events.table.js';
import type { EndpointKind } from '../modules/webhooks/endpoints.table.js';
import type { AcquirerAuthorizationsTable } from '../acquirer/acquirer.table.js';
import type { PayoutStatus } from '../modules/payouts/payouts.table.js';
import { EVENT_TYPES } from '../events/payloads.js';
import { EXAMPLES, IN_CONTEXT_EXAMPLES, OBJECT_EXAMPLES, TEXT_EXAMPLES, exampleId } from './openapi-examples.js';
import { webhooksSection as webhooks } from './openapi-webhooks.js';

type Json = Record<string, unknown>;

/** Every value of a string union, checked complete by the compiler. */
function all<T extends string>() {
  return <const A extends readonly T[]>(values: A & ([T] extends [A[number]] ? unknown : 'missing a value')): readonly string[] => values;
}

const PAYMENT_STATUSES = all<PaymentStatus>()(['pending', 'transit', 'captured', 'failed', 'cancelled', 'expired', 'partially_refunded', 'refunded']);
const SESSION_STATUSES = all<SessionStatus>()(['open', 'complete', 'expired', 'cancelled']);
const REFUND_STATUSES = all<RefundStatus>()(['pending', 'succeeded', 'failed']);
const DELIVERY_STATUSES = all<DeliveryStatus>()(['pending', 'sending', 'succeeded', 'abandoned']);
const ENDPOINT_KINDS = all<EndpointKind>()(['merchant', 'agency']);
const ATTEMPT_STATUSES = all<AcquirerAuthorizationsTable['status']>()(['challenge', 'authorized', 'refused', 'captured', 'cancelled']);
const PAYOUT_STATUSES = all<PayoutStatus>()(['pending', 'in_transit', 'paid', 'failed', 'cancelled']);
const CAPTURE_MODES = ['AUTO', 'MANUAL'];
/** Fields holding a currency: Motu's currencies, wherever they occur. */
const CURRENCY_FIELDS = new Set(['currency', 'originalCurrency']);

/**
 * The named objects: where each first appears (`METHOD path status`, then a JSON pointer inside that schema when the
 * object is nested). Every schema of the document equal to one of these is replaced by a reference to it.
 */
const NAMED: ReadonlyArray<readonly [name: string, at: string]> = [
  ['StoreRef', 'GET /api/v1/payments/{id} 200 /properties/store/anyOf/0'],
  ['PaymentSessionCreated', 'POST /api/v1/payments/sessions 201'],
  ['PaymentSession', 'GET /api/v1/payments/sessions/{id} 200'],
  ['PaymentLink', 'POST /api/v1/payments/links 201'],
  ['Payment', 'GET /api/v1/payments/{id} 200'],
  ['Refund', 'POST /api/v1/payments/{id}/refund 201'],
  ['Customer', 'GET /api/v1/customers/{id} 200'],
  ['UpdatedCustomer', 'PATCH /api/v1/customers/{id} 200'],
  ['PaymentMethod', 'GET /api/v1/payment-methods/{id} 200'],
  ['WalletSession', 'POST /api/v1/customers/{id}/sessions 201'],
  ['CardLink', 'GET /api/v1/card-links/{id} 200'],
  ['WebhookEndpoint', 'GET /api/v1/webhook-endpoints/{id} 200'],
  ['Event', 'GET /api/v1/events/{id} 200'],
  ['Delivery', 'GET /api/v1/events/{id}/deliveries 200 /properties/data/items'],
  ['Balance', 'GET /api/v1/balance 200'],
  ['BalanceTransaction', 'GET /api/v1/balance-transactions/{id} 200'],
  ['BankAccount', 'GET /api/v1/bank-accounts/{id} 200'],
  ['Deleted', 'DELETE /api/v1/bank-accounts/{id} 200'],
  ['PayoutSchedule', 'GET /api/v1/payout-schedule 200'],
  ['Payout', 'GET /api/v1/payouts/{id} 200'],
  ['TestClock', 'GET /api/v1/test-helpers/test-clocks/{id} 200'],
  ['Dispute', 'GET /api/v1/disputes/{id} 200'],
  ['Subscription', 'GET /api/v1/subscriptions/{id} 200'],
  ['DueDate', 'GET /api/v1/subscriptions/{id}/due-dates 200 /properties/data/items'],
  ['BillingSettings', 'GET /api/v1/billing/settings 200'],
  ['Invoice', 'GET /api/v1/billing/invoices/{id} 200'],
  ['CreditNote', 'POST /api/v1/billing/invoices/{id}/credit-notes 201'],
  // the admin document
  ['BalanceTransaction', 'POST /admin/v1/merchants/{id}/adjustments 201'],
  ['Payout', 'POST /admin/v1/payouts/{id}/paid 200'],
  ['Dispute', 'POST /admin/v1/disputes/{id}/close 200'],
  ['BankStatementResult', 'POST /admin/v1/payouts/camt054 200'],
  ['Merchant', 'GET /admin/v1/merchants 200 /properties/data/items'],
  ['MerchantCreated', 'POST /admin/v1/merchants 201'],
  ['Contract', 'POST /admin/v1/merchants/{id}/contracts 201'],
  ['Store', 'POST /admin/v1/merchants/{id}/stores 201'],
  ['MerchantDetail', 'GET /admin/v1/merchants/{id} 200'],
  ['ApiKeyCreated', 'POST /admin/v1/merchants/{id}/keys 201'],
  ['ApiKeyRevoked', 'DELETE /admin/v1/keys/{id} 200'],
  ['User', 'GET /admin/v1/merchants/{id}/users 200 /properties/data/items'],
  ['UserCreated', 'POST /admin/v1/merchants/{id}/users 201'],
  // platforms (marketplaces)
  ['OnboardingSession', 'GET /api/v1/platform/onboarding-sessions/{id} 200'],
  ['OnboardingCase', 'GET /api/v1/platform/onboarding-cases/{id} 200'],
  ['Seller', 'GET /api/v1/platform/merchants/{id} 200'],
  ['ReviewedOnboardingCase', 'POST /admin/v1/onboarding-cases/{id}/decision 200'],
];

/** Enums of string fields the routes type as plain strings, per named object and property path. */
const ENUMS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  StoreRef: {},
  PaymentSession: {
    status: SESSION_STATUSES, paymentStatus: PAYMENT_STATUSES, captureMode: CAPTURE_MODES,
    successPageMode: ['auto', 'show', 'redirect'], failurePageMode: ['show', 'redirect'],
  },
  Payment: {
    status: PAYMENT_STATUSES, captureMode: CAPTURE_MODES,
    'attempts.status': ATTEMPT_STATUSES,
  },
  Refund: { status: REFUND_STATUSES },
  WebhookEndpoint: { kind: ENDPOINT_KINDS },
  Event: { type: EVENT_TYPES },
  Delivery: { status: DELIVERY_STATUSES, 'target.type': ['endpoint', 'notification_url'] },
  BalanceTransaction: { 'source.type': ['payment', 'refund', 'dispute', 'payout', 'adjustment'] },
  BankStatementResult: { 'skipped.status': PAYOUT_STATUSES },
  DueDate: { 'attempts.outcome': ['succeeded', 'failed', 'pending'] },
};

/** The `{id}` of a path names an object of this prefix (the longest matching segment wins). */
const PATH_PREFIXES: ReadonlyArray<readonly [segment: string, prefix: string]> = [
  ['/payments/sessions/', 'ses'], ['/sdk/sessions/', 'ses'], ['/payments/', 'pay'], ['/customers/', 'cus'], ['/payment-methods/', 'pm'],
  ['/card-links/', 'cl'], ['/webhook-endpoints/', 'we'], ['/events/', 'whe'], ['/balance-transactions/', 'txn'],
  ['/bank-accounts/', 'ba'], ['/payouts/', 'po'], ['/test-clocks/', 'clk'], ['/disputes/', 'dp'], ['/subscriptions/', 'sub'],
  ['/billing/invoices/', 'inv'], ['/billing/credit-notes/', 'cn'], ['/merchants/', 'mer'], ['/contracts/', 'mcf'],
  ['/stores/', 'sto'], ['/keys/', 'key'],
  ['/onboarding-sessions/', 'obs'], ['/onboarding-cases/', 'obc'],
];

/** The prefix of the `id` of each named object. */
const ID_PREFIXES: Readonly<Record<string, string>> = {
  StoreRef: 'sto', PaymentSession: 'ses', Payment: 'pay', Refund: 're', Customer: 'cus', UpdatedCustomer: 'cus',
  PaymentMethod: 'pm', CardLink: 'cl', WebhookEndpoint: 'we', Event: 'whe', Delivery: 'del', BalanceTransaction: 'txn',
  BankAccount: 'ba', Deleted: 'ba', Payout: 'po', TestClock: 'clk', Dispute: 'dp', Subscription: 'sub', Invoice: 'inv',
  CreditNote: 'cn', Merchant: 'mer', MerchantCreated: 'mer', MerchantDetail: 'mer', Contract: 'mcf', Store: 'sto',
  ApiKeyCreated: 'key', ApiKeyRevoked: 'key', User: 'usr', UserCreated: 'usr',
  OnboardingSession: 'obs', OnboardingCase: 'obc', Seller: 'mer', ReviewedOnboardingCase: 'obc',
};

/** The `id` of an object nested under this property name. */
const NESTED_IDS: Readonly<Record<string, string>> = {
  store: exampleId('sto'), attempts: exampleId('att'), source: exampleId('pay'), buyer: 'crm-000451', taxDetail: 'TVA',
};

/** Currencies as enums wherever a currency field is a plain string (or null). */
function currencyEnums(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) currencyEnums(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [name, property] of Object.entries(((node as Json).properties ?? {}) as Record<string, Json>)) {
    if (!CURRENCY_FIELDS.has(name)) continue;
    // A plain string, or the string of a nullable one (`anyOf: [string, null]`).
    for (const schema of [property, ...((property.anyOf ?? []) as Json[])]) {
      if (schema.type === 'string' && !hasEnum(schema)) schema.enum = [...CURRENCIES];
    }
  }
  for (const [key, value] of Object.entries(node)) if (key !== 'examples' && key !== 'example') currencyEnums(value);
}

/** JSON with sorted keys: two schemas are the same object when their canonical texts are equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Json)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function pointer(root: unknown, path: string): unknown {
  let node = root;
  for (const part of path.split('/').filter(Boolean)) node = (node as Json | undefined)?.[part];
  return node;
}

function located(doc: Json, at: string): Json | undefined {
  const [method, path, status, inner] = at.split(' ') as [string, string, string, string | undefined];
  const op = (doc.paths as Record<string, Json> | undefined)?.[path]?.[method.toLowerCase()] as Json | undefined;
  const responses = op?.responses as Record<string, Json> | undefined;
  const schema = (responses?.[status]?.content as Record<string, Json> | undefined)?.['application/json']?.schema;
  return (inner ? pointer(schema, inner) : schema) as Json | undefined;
}

/** Replaces, everywhere below `node`, a schema equal to a named one by its reference. */
function referenceNamed(node: unknown, byText: Map<string, string>, except?: string): unknown {
  if (Array.isArray(node)) return node.map((item) => referenceNamed(item, byText));
  if (!node || typeof node !== 'object') return node;
  const name = byText.get(canonical(node));
  if (name && name !== except) return { $ref: `#/components/schemas/${name}` };
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === 'example' || key === 'examples' ? value : referenceNamed(value, byText);
  return out;
}

/** `anyOf` of one-value string enums (TypeBox unions of literals) as one `enum`, which every generator understands. */
function simplify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplify);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = simplify(value);
  const branches = out.anyOf as Json[] | undefined;
  const single = (b: Json) => b.type === 'string' && Array.isArray(b.enum) && b.enum.length === 1 && Object.keys(b).length === 2;
  if (Array.isArray(branches) && branches.length > 1 && branches.every(single)) {
    const { anyOf: _, ...rest } = out;
    return { type: 'string', enum: branches.map((b) => (b.enum as string[])[0]), ...rest };
  }
  // A nullable one-value enum union: anyOf [{enum: a}, {enum: b}, {type: null}] → anyOf [{enum: [a, b]}, {type: null}].
  if (Array.isArray(branches) && branches.length > 2 && branches.at(-1)?.type === 'null' && branches.slice(0, -1).every(single)) {
    return { ...out, anyOf: [{ type: 'string', enum: branches.slice(0, -1).map((b) => (b.enum as string[])[0]) }, { type: 'null' }] };
  }
  return out;
}

function setEnum(schema: Json, path: string, values: readonly string[]): void {
  const [head, ...rest] = path.split('.');
  const property = (schema.properties as Record<string, Json> | undefined)?.[head!];
  if (!property) throw new Error(`OpenAPI enums: no property ${path}`);
  if (rest.length) {
    const object = (property.items ?? property) as Json;
    setEnum(object, rest.join('.'), values);
    return;
  }
  const target = Array.isArray(property.anyOf) ? ((property.anyOf as Json[]).find((b) => b.type === 'string') ?? property) : property;
  target.enum = [...values];
}

function hasEnum(schema: Json): boolean {
  return Array.isArray(schema.enum) || (Array.isArray(schema.anyOf) && (schema.anyOf as Json[]).some((b) => Array.isArray(b.enum)));
}

/** Whether an example of the dictionary suits this schema (a name may be a string here and a number there). */
function fits(example: unknown, schema: Json): boolean {
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as Json[]) : [schema];
  return branches.some((branch) => {
    if (Array.isArray(example)) return branch.type === 'array' && example.every((item) => fits(item, (branch.items ?? {}) as Json));
    if (typeof example === 'number') return branch.type === 'integer' || branch.type === 'number';
    if (typeof example !== 'string' || branch.type !== 'string') return false;
    if (branch.format === 'date-time' && !/^\d{4}-\d\d-\d\dT/.test(example)) return false;
    if (typeof branch.pattern === 'string' && !new RegExp(branch.pattern, 'u').test(example)) return false;
    return typeof branch.maxLength !== 'number' || example.length <= branch.maxLength;
  });
}

function candidates(name: string): unknown[] {
  return [EXAMPLES[name], TEXT_EXAMPLES[name]].filter((value) => value !== undefined);
}

function exampleFor(choices: unknown[], schema: Json): unknown {
  return choices.find((choice) => fits(choice, schema));
}

/** An object of free keys (JSON kept as given): its example is a whole object. */
function isFreeObject(schema: Json): boolean {
  const free = (s: Json) => s.type === 'object' && !s.properties;
  return free(schema) || (Array.isArray(schema.anyOf) && (schema.anyOf as Json[]).some(free)) || (schema.type === 'array' && free((schema.items ?? {}) as Json));
}

function isScalar(schema: Json): boolean {
  const t = schema.type;
  return t === 'string' || t === 'integer' || t === 'number' || (Array.isArray(schema.anyOf) && (schema.anyOf as Json[]).some((b) => b.type === 'string' || b.type === 'integer'));
}

/** Gives each property without an example the example of its name (the id of its object for `id`). */
function addExamples(node: unknown, id: string | undefined, parent = ''): void {
  if (Array.isArray(node)) {
    for (const item of node) addExamples(item, id, parent);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Json;
  if (schema.$ref) return;
  const properties = schema.properties as Record<string, Json> | undefined;
  for (const [name, property] of Object.entries(properties ?? {})) {
    if (property.$ref || property.examples !== undefined || property.example !== undefined || property.const !== undefined) continue;
    if (isFreeObject(property) && OBJECT_EXAMPLES[name] !== undefined) {
      property.examples = [OBJECT_EXAMPLES[name]];
      continue;
    }
    const scalarArray = property.type === 'array' && isScalar((property.items ?? {}) as Json);
    if (!isScalar(property) && !scalarArray) continue;
    if (hasEnum(property) || (scalarArray && hasEnum(property.items as Json))) continue;
    const contextual = IN_CONTEXT_EXAMPLES[`${parent}.${name}`];
    const example = exampleFor(name === 'id' && id ? [id] : contextual !== undefined ? [contextual] : candidates(name), property);
    if (example !== undefined) property.examples = [example];
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'examples' || key === 'example') continue;
    if (key === 'properties') {
      for (const [name, property] of Object.entries(value as Record<string, Json>)) addExamples(property, NESTED_IDS[name], name);
    } else {
      addExamples(value, id, key === 'anyOf' || key === 'items' ? parent : '');
    }
  }
}

function pathIdPrefix(path: string): string | undefined {
  let best: readonly [string, string] | undefined;
  for (const entry of PATH_PREFIXES) {
    const at = path.lastIndexOf(`${entry[0]}{id}`);
    if (at >= 0 && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}

export function finishSchemas(doc: Json, _kind: 'merchant' | 'admin'): void {
  const components = doc.components as Json;
  const schemas = components.schemas as Json;
  // 1. Name the objects, then reference them wherever they occur.
  const byText = new Map<string, string>();
  const found: Array<[string, Json]> = [];
  for (const [name, at] of NAMED) {
    const schema = located(doc, at);
    if (!schema || schemas[name]) continue;
    found.push([name, structuredClone(schema)]);
    byText.set(canonical(schema), name);
    schemas[name] = true; // reserved; filled below
  }
  doc.paths = referenceNamed(doc.paths, byText);
  for (const [name, schema] of found) schemas[name] = referenceNamed(schema, byText, name);
  // 2. Enums: TypeBox unions as enums, the plain strings of ENUMS given theirs.
  doc.paths = simplify(doc.paths);
  components.schemas = simplify(schemas);
  const named = components.schemas as Record<string, Json>;
  for (const [name, enums] of Object.entries(ENUMS)) {
    if (!named[name]) continue;
    for (const [path, values] of Object.entries(enums)) setEnum(named[name]!, path, values);
  }
  currencyEnums(doc.paths);
  currencyEnums(named);
  // 3. Examples, by property name; `id` by its object; path parameters by what the path names.
  for (const [name, schema] of Object.entries(named)) addExamples(schema, ID_PREFIXES[name] && exampleId(ID_PREFIXES[name]));
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const op of Object.values(item) as Json[]) {
      addExamples(op.requestBody, undefined);
      const prefix = pathIdPrefix(path);
      for (const response of Object.values((op.responses ?? {}) as Record<string, Json>)) addExamples(response, prefix && exampleId(prefix));
      for (const parameter of (op.parameters ?? []) as Json[]) {
        if (parameter.$ref || parameter.example !== undefined || hasEnum((parameter.schema ?? {}) as Json)) continue;
        const name = parameter.name as string;
        const choices = parameter.in === 'path' && name === 'id' ? [exampleId(pathIdPrefix(path) ?? 'pay')] : candidates(name);
        const example = exampleFor(choices, (parameter.schema ?? {}) as Json);
        if (example !== undefined) parameter.example = example;
      }
    }
  }
}

export function webhooksSection(components: Json): Json {
  return webhooks(components);
}
