// Hostile input: property-based and fuzz requests on every route the app registers: the OpenAPI documents' routes, the
// JSON routes left out of them (card fields, checkout), the pages, assets and probes, and the event stream over a real
// socket (the back-office's /dashboard/api routes: test/back-office-hostile.test.ts). A route added anywhere is swept
// without a word here, or fails 'every registered route is swept'.
// Whatever arrives, the answer is never a 500, a failure always has the error shape {code, message} (an HTML page
// answers the payer in HTML), and a request that failed wrote nothing (the row count of every table is the same
// before and after).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, test } from 'node:test';
import fc from 'fast-check';
import { ADMIN_TOKEN, eachDatabase, type RegisteredRoute, type TestApp } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createKey, createMerchant, createStore, createCustomer } from './support/factories.js';
import { createSession, paidPayment } from './support/payments.js';
import { saveCard } from './support/wallet.js';
import { rowCounts, tableNames } from './support/tables.js';
import { readStream } from './support/stream.js';
import { createOnboardingSession, makeAgency, onboardSeller } from './support/platforms.js';

interface Operation {
  method: string;
  path: string;
  query: string[];
  bodyKeys: string[];
  /** Paths (`order.platformConfig`) of the body's free-form JSON fields: the schema marks them with x-json-limits. */
  freeJson: string[];
  /** Query parameters in the date-time format. */
  dateQuery: string[];
}

interface Fixtures {
  key: string;
  ids: Record<string, string>;
}

/** The SSE stream answers 200 and stays open by design: driven over a real socket ('the event stream…'), not by inject. */
const NOT_FUZZED = new Set(['GET /api/v1/events/stream']);
const STREAM = { method: 'GET', path: '/api/v1/events/stream', query: ['since'], bodyKeys: [], freeJson: [], dateQuery: ['since'] };

/** How a registered route is swept; every route the app registers must have one (`sweepOf`). */
type Sweep = 'document' | 'json' | 'page' | 'stream' | 'back-office';

function sweepOf(route: RegisteredRoute, documented: Set<string>): Sweep | undefined {
  const name = `${route.method} ${route.path}`;
  if (NOT_FUZZED.has(name)) return 'stream';
  if (documented.has(name)) return 'document';
  if (route.path.startsWith('/dashboard/api/')) return 'back-office';
  // Left out of the documents: the JSON routes (the card fields' token, the checkout's pay…) get the same fuzzing as
  // the documented ones; the rest are pages, assets, probes and the documents themselves.
  if (route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT' || route.method === 'DELETE') return 'json';
  if (route.method === 'GET' || route.method === 'OPTIONS') return 'page';
  return undefined;
}

const RUNS = Number(process.env.HOSTILE_RUNS ?? 150);

async function documentedPaths(t: TestApp): Promise<Record<string, Record<string, any>>> {
  const res = await t.api(undefined, 'GET', '/api/v1/openapi.json');
  assert.equal(res.status, 200);
  // The admin API has its own document.
  const admin = await t.admin('GET', '/admin/v1/openapi.json');
  assert.equal(admin.status, 200);
  return { ...res.body.paths, ...admin.body.paths };
}

async function operations(t: TestApp): Promise<Operation[]> {
  const paths = await documentedPaths(t);
  const documented = new Set(Object.entries(paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)));
  const ops: Operation[] = [];
  // The JSON routes the documents leave out, with the fields their schema declares.
  for (const route of t.routes) {
    if (sweepOf(route, documented) !== 'json') continue;
    ops.push({ method: route.method, path: route.path, query: route.queryKeys, bodyKeys: route.bodyKeys, freeJson: [], dateQuery: [] });
  }
  for (const [path, methods] of Object.entries<Record<string, any>>(paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      if (NOT_FUZZED.has(`${method.toUpperCase()} ${path}`)) continue;
      const schema = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
        bodyKeys: Object.keys(schema?.properties ?? {}),
        freeJson: schema ? freeJsonPaths(schema) : [],
        dateQuery: (op.parameters ?? []).filter((p: any) => p.in === 'query' && p.schema?.format === 'date-time').map((p: any) => p.name),
      });
    }
  }
  return ops;
}

function freeJsonPaths(schema: any, prefix = ''): string[] {
  if (schema?.['x-json-limits']) return [prefix];
  const out: string[] = [];
  for (const branch of schema?.anyOf ?? []) out.push(...freeJsonPaths(branch, prefix));
  for (const [key, child] of Object.entries<any>(schema?.properties ?? {})) out.push(...freeJsonPaths(child, prefix ? `${prefix}.${key}` : key));
  return [...new Set(out)];
}

/** `body` with `value` set at `path` (`order.platformConfig`), the objects on the way copied. */
function withValueAt(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  if (rest.length === 0) return { ...body, [head]: value };
  return { ...body, [head]: withValueAt((body[head] as Record<string, unknown> | undefined) ?? {}, rest.join('.'), value) };
}

async function fixtures(t: TestApp): Promise<Fixtures> {
  const m = await createMerchant(t, 'Hostile');
  const store = await createStore(t, m.id, { code: 'H-1' });
  const spare = await createKey(t, m.id, { mode: 'test' });
  const customer = await createCustomer(t, m.testKey);
  const saved = await saveCard(t, m.testKey, customer);
  const captured = await paidPayment(t, m.testKey);
  const manual = await paidPayment(t, m.testKey, { captureMode: 'MANUAL' });
  const pending = await createSession(t, m.testKey);
  const endpoint = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: 'https://shop.example/hooks', events: ['*'] });
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  const events = await t.api(m.testKey, 'GET', '/api/v1/events?limit=1');
  const link = await t.api(m.testKey, 'POST', `/api/v1/customers/${customer}/card-links`, {});
  assert.equal(link.status, 201, JSON.stringify(link.body));
  const wallet = await t.api(m.testKey, 'POST', `/api/v1/customers/${customer}/sessions`, { returnUrl: 'https://shop.example/w' });
  const transactions = await t.api(m.testKey, 'GET', `/api/v1/balance-transactions?sourceId=${captured}&limit=1`);
  const bankAccount = await t.api(m.testKey, 'POST', '/api/v1/bank-accounts', { iban: 'DE89370400440532013000', holderName: 'Hostile GmbH', currency: 'EUR' });
  assert.equal(bankAccount.status, 201, JSON.stringify(bankAccount.body));
  assert.equal((await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'test', currency: 'EUR', amount: 5000, reason: 'funds' })).status, 201);
  const payout = await t.api(m.testKey, 'POST', '/api/v1/payouts', { currency: 'EUR', amount: 1000 });
  assert.equal(payout.status, 201, JSON.stringify(payout.body));
  const testClock = await t.api(m.testKey, 'POST', '/api/v1/test-helpers/test-clocks', { frozenTime: '2030-01-01T00:00:00.000Z' });
  assert.equal(testClock.status, 201, JSON.stringify(testClock.body));
  const subscription = await t.api(m.testKey, 'POST', '/api/v1/subscriptions', { customerId: customer, amount: 1000, currency: 'EUR', interval: 'month' });
  assert.equal(subscription.status, 201, JSON.stringify(subscription.body));
  const invoice = await t.api(m.testKey, 'POST', '/api/v1/billing/invoices', { customerId: customer, currency: 'XPF', lines: [{ description: 'L', quantity: 1, unitPrice: 1000 }] });
  assert.equal(invoice.status, 201, JSON.stringify(invoice.body));
  assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { legalName: 'Hostile SARL', address: { line1: '1 rue', postalCode: '98713', city: 'Papeete', country: 'PF' }, registrationNumber: 'T1' })).status, 200);
  const issued = await t.api(m.testKey, 'POST', '/api/v1/billing/invoices', { customerId: customer, currency: 'XPF', lines: [{ description: 'L', quantity: 1, unitPrice: 1000 }] });
  assert.equal((await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${issued.body.id}/finalize`)).status, 200);
  const creditNote = await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${issued.body.id}/credit-notes`, { amount: 10, reason: 'other' });
  assert.equal(creditNote.status, 201, JSON.stringify(creditNote.body));
  const disputed = await paidPayment(t, m.testKey);
  const dispute = await t.api(m.testKey, 'POST', `/api/v1/test-helpers/payments/${disputed}/dispute`, { amount: 100 });
  assert.equal(dispute.status, 201, JSON.stringify(dispute.body));
  // A platform too: a seller onboarded through the hosted form, and an onboarding session still open.
  assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { platform: true })).status, 200);
  const seller = await onboardSeller(t, m.testKey, { legalName: 'Hostile Seller SARL' });
  const onboarding = await createOnboardingSession(t, m.testKey);
  // Agencies: the merchant is an agency with an invitation out, and the client of another agency's mandate.
  assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { agency: true })).status, 200);
  const agencyInvitation = await t.api(m.testKey, 'POST', '/api/v1/agency/invitations', { email: 'client@shop.example', scopes: ['payments.read'] });
  assert.equal(agencyInvitation.status, 201, JSON.stringify(agencyInvitation.body));
  const otherAgency = await makeAgency(t, 'Hostile agency');
  const toMerchant = await t.api(otherAgency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'hostile@shop.example', scopes: ['payments.read'] });
  const invitationToken = String(toMerchant.body.url).split('/').at(-1)!;
  const mandate = await t.api(m.testKey, 'POST', `/api/v1/agency-invitations/${invitationToken}/accept`);
  assert.equal(mandate.status, 201, JSON.stringify(mandate.body));
  return {
    key: m.testKey,
    ids: {
      merchant: m.id,
      contract: m.defaultContractId,
      store: store.id,
      spareKey: spare.id,
      customer,
      paymentMethod: saved.result.paymentMethodId,
      captured,
      manual,
      session: pending.sessionId,
      walletSession: wallet.body.sessionId,
      endpoint: endpoint.body.id,
      event: events.body.data[0].id,
      cardLink: link.body.id ?? link.body.linkId,
      transaction: transactions.body.data[0].id,
      bankAccount: bankAccount.body.id,
      payout: payout.body.id,
      testClock: testClock.body.id,
      dispute: dispute.body.id,
      disputed,
      subscription: subscription.body.id,
      invoice: invoice.body.id,
      creditNote: creditNote.body.id,
      onboardingSession: onboarding.id,
      onboardingToken: onboarding.token,
      onboardingCase: seller.caseId,
      seller: seller.merchantId,
      agencyInvitation: agencyInvitation.body.id,
      invitationToken,
      mandate: mandate.body.id,
    },
  };
}

/** A real id for the {id} of a path, so that hostile bodies reach the handlers and not only the 404. */
function realId(path: string, method: string, ids: Record<string, string>): string {
  const table: Array<[RegExp, string]> = [
    [/^\/api\/v1\/platform\/onboarding-sessions\//, 'onboardingSession'],
    [/^\/(api\/v1\/platform|admin\/v1)\/onboarding-cases\//, 'onboardingCase'],
    [/^\/api\/v1\/platform\/merchants\//, 'seller'],
    [/^\/onboarding\//, 'onboardingToken'],
    [/^\/admin\/v1\/merchants\//, 'merchant'],
    [/^\/admin\/v1\/contracts\//, 'contract'],
    [/^\/admin\/v1\/stores\//, 'store'],
    [/^\/admin\/v1\/keys\//, 'spareKey'],
    [/^\/api\/v1\/sdk\/sessions\//, 'walletSession'],
    [/^\/api\/v1\/customers\//, 'customer'],
    [/^\/api\/v1\/payments\/sessions\//, 'session'],
    [/\/(capture|cancel)$/, 'manual'],
    [/^\/api\/v1\/payments\//, 'captured'],
    [/^\/api\/v1\/webhook-endpoints\//, 'endpoint'],
    [/^\/api\/v1\/events\//, 'event'],
    [/payment-methods\//, 'paymentMethod'],
    [/^\/api\/v1\/card-links\//, 'cardLink'],
    [/^\/api\/v1\/balance-transactions\//, 'transaction'],
    [/^\/api\/v1\/bank-accounts\//, 'bankAccount'],
    [/^\/api\/v1\/payouts\//, 'payout'],
    [/^\/admin\/v1\/payouts\//, 'payout'],
    [/^\/api\/v1\/test-helpers\/test-clocks\//, 'testClock'],
    [/^\/api\/v1\/test-helpers\/payments\//, 'disputed'],
    [/^\/admin\/v1\/payments\//, 'disputed'],
    [/^\/(api|admin)\/v1\/disputes\//, 'dispute'],
    [/^\/api\/v1\/subscriptions\//, 'subscription'],
    [/^\/api\/v1\/billing\/invoices\//, 'invoice'],
    [/^\/api\/v1\/billing\/credit-notes\//, 'creditNote'],
    [/^\/api\/v1\/agency\/invitations\//, 'agencyInvitation'],
    [/^\/api\/v1\/agency-invitations\//, 'invitationToken'],
    [/^\/agency-invitations\//, 'invitationToken'],
    [/^\/api\/v1\/agency-mandates\//, 'mandate'],
    [/^\/checkout\//, 'session'],
    [/^\/wallet\//, 'walletSession'],
    [/^\/acquirer\/v1\/3ds\//, 'session'],
  ];
  for (const [pattern, name] of table) if (pattern.test(path)) return ids[name]!;
  throw new Error(`no fixture id for ${method} ${path}`);
}

// ---- generators ----

const INJECTIONS = [
  "' OR '1'='1", "'; DROP TABLE payments; --", '" OR 1=1 --', "1; DELETE FROM customers", "') OR ('a'='a",
  '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '${7*7}', '{{7*7}}', '#{7*7}', '%s%s%s%n',
  '../../../../etc/passwd', '..%2f..%2f..%2fetc%2fpasswd', 'file:///etc/passwd', 'javascript:alert(1)',
  'data:text/html,<b>x</b>', 'http://169.254.169.254/latest/meta-data/', 'http://127.0.0.1:22/', 'gopher://x',
  '__proto__', 'constructor', 'prototype', '$where', '{"$gt":""}', 'NaN', 'Infinity', '-0', '1e309', '0x1F',
  '\u0000', 'a\u0000b', '\uD800', '\uDFFF\uD800', '\uFEFF', '\u202Eevil', '\u200B', 'Ω≈ç√∫', '𝕏😀👨‍👩‍👧', 'ﷺ',
  '\r\nX-Injected: 1', '\t\v\f\b', 'null', 'true', '[]', '{}', ' ', '', 'sk_test_' + 'A'.repeat(32), 'pay_' + 'A'.repeat(22),
];
const CONTROL = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).concat(['\u007f', '\u0085', '\u2028', '\u2029']);

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...CONTROL), minLength: 1, maxLength: 10 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 256, max: 200_000 }).map((n) => 'x'.repeat(n)) },
);

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, 1, -0, 0.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), Number.MAX_VALUE, Number.MIN_VALUE, 1e21),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

function nested(depth: number, leaf: unknown, asArray: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  // fast-check prints counterexamples recursively: give it a short description instead of the whole depth.
  Object.defineProperty(value, fc.toStringMethod, { value: () => `nested(${depth}, ${asArray ? 'array' : 'object'})`, enumerable: false });
  return value;
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'toString', 'a'), hostileString) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 100, max: 2_000 }), fc.boolean()).map(([d, a]) => nested(d, 'x', a)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => Array.from({ length: n }, (_, i) => i)) },
);

/** A body shaped like the route's schema (a subset of its fields, maybe an unknown one) with hostile values. */
function hostileBody(op: Operation): fc.Arbitrary<unknown> {
  const keys = op.bodyKeys.length ? op.bodyKeys : ['anything'];
  const shaped = fc.dictionary(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: hostileString }), hostileValue, {
    maxKeys: Math.min(keys.length + 1, 6),
  });
  const valid = VALID_BODIES[`${op.method} ${op.path}`];
  const arbitraries: fc.Arbitrary<unknown>[] = [shaped, hostileValue];
  if (valid) {
    // One field of a valid body replaced (or, inside order, one nested field): reaches the business rules.
    arbitraries.push(
      fc.tuple(fc.constantFrom(...Object.keys(valid)), hostileValue).map(([k, v]) => ({ ...valid, [k]: v })),
      fc.tuple(fc.constantFrom('amount', 'currency', 'reference', 'items', 'taxDetail', 'buyer', 'delivery', 'discount'), hostileValue)
        .map(([k, v]) => ({ ...valid, order: { ...(valid.order as object), [k]: v } })),
    );
  }
  return fc.oneof(...arbitraries);
}

const SESSION = {
  order: { reference: 'ORD-H', amount: 1000, currency: 'EUR' },
  redirectUrl: 'https://shop.example/r',
  notificationUrl: 'https://shop.example/n',
  email: 'h@example.com',
  privateData: { a: 1 },
};
const VALID_BODIES: Record<string, Record<string, unknown>> = {
  'POST /api/v1/payments/sessions': SESSION,
  'POST /api/v1/payments/links': SESSION,
  'POST /api/v1/payments': { paymentMethodId: 'PM', order: SESSION.order, notificationUrl: SESSION.notificationUrl },
  'POST /api/v1/customers': { email: 'a@example.com', name: 'A', metadata: { k: 'v' } },
  'PATCH /api/v1/customers/{id}': { name: 'B', metadata: { k: 'v' } },
  'POST /api/v1/payments/{id}/capture': { amount: 100 },
  'POST /api/v1/payments/{id}/refund': { amountCents: 100, reason: 'r' },
  'POST /api/v1/webhook-endpoints': { url: 'https://shop.example/x', events: ['payment.*'], description: 'd' },
  'PATCH /api/v1/webhook-endpoints/{id}': { url: 'https://shop.example/x', events: ['*'], enabled: true },
  'POST /api/v1/customers/{id}/sessions': { returnUrl: 'https://shop.example/w', locale: 'fr' },
  'POST /api/v1/customers/{id}/card-links': { expiresIn: 3600, returnUrl: 'https://shop.example/w' },
  'POST /admin/v1/merchants/{id}/contracts': { statementLabel: 'X', commissionRate: 100, fixedFee: 1 },
  'POST /admin/v1/merchants/{id}/stores': { code: 'S', name: 'S', kind: 'online' },
  'POST /admin/v1/merchants/{id}/keys': { mode: 'test' },
  'POST /api/v1/subscriptions': { customerId: 'CUS', amount: 1000, currency: 'EUR', interval: 'month', privateData: { a: 1 } },
  'PATCH /api/v1/subscriptions/{id}': { amount: 1000, privateData: { a: 1 } },
  'POST /api/v1/billing/invoices': { customerId: 'CUS', currency: 'XPF', lines: [{ description: 'L', quantity: 1, unitPrice: 1 }] },
  'PATCH /api/v1/billing/invoices/{id}': { memo: 'm', lines: [{ description: 'L', quantity: 2, unitPrice: 1 }] },
  'POST /api/v1/billing/invoices/{id}/payments': { amount: 1, method: 'cash' },
  'POST /api/v1/billing/invoices/{id}/credit-notes': { amount: 1, reason: 'other' },
  'POST /api/v1/subscriptions/{id}/cancel': { atPeriodEnd: true },
  'POST /api/v1/disputes/{id}/evidence': { uncategorizedText: 'x', submit: false },
  'POST /api/v1/test-helpers/payments/{id}/dispute': { amount: 1, reason: 'fraudulent' },
  'POST /api/v1/bank-accounts': { iban: 'DE89370400440532013000', holderName: 'H', currency: 'EUR' },
  'POST /api/v1/platform/onboarding-sessions': { email: 'h@example.com', returnUrl: 'https://shop.example/r', businessName: 'H' },
  'POST /admin/v1/onboarding-cases/{id}/decision': { enrollmentStatus: 'REFUSED', reasons: ['r'] },
  'POST /api/v1/payouts': { currency: 'EUR', amount: 1, description: 'd' },
  'PATCH /api/v1/payout-schedule': { interval: 'weekly', delayDays: 2 },
  'POST /api/v1/test-helpers/test-clocks': { frozenTime: '2030-01-01T00:00:00.000Z', name: 'n' },
  'POST /acquirer/v1/tokens': { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: 'SES' },
};

// ---- the invariant ----

interface Outcome {
  status: number;
  body: any;
  headers?: Record<string, unknown>;
}

class Checker {
  tables: string[] = [];
  requests = 0;
  failures = 0;
  constructor(private readonly t: TestApp) {}

  async init() {
    this.tables = await tableNames(this.t.db);
  }

  /**
   * Runs one request and checks the invariants; `idempotencyRow` when it carried a well-formed Idempotency-Key,
   * `html` for a page (its refusals are HTML).
   */
  async check(what: string, run: () => Promise<Outcome>, allowed: { idempotencyRow?: boolean; html?: boolean } = {}) {
    const before = await rowCounts(this.t.db, this.tables);
    const res = await run();
    this.requests++;
    const context = `${what} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
    assert.ok(res.status < 500, `server error: ${context}`);
    // A page refuses the payer in HTML, as a page; everything else in the error shape.
    const html = String(res.headers?.['content-type'] ?? '').startsWith('text/html');
    if (res.status >= 400 && html && allowed.html) {
      this.failures++;
      assert.deepEqual(await rowCounts(this.t.db, this.tables), before, `a failed request wrote rows: ${context}`);
    } else if (res.status >= 400) {
      this.failures++;
      assert.equal(typeof res.body, 'object', `error body is not JSON: ${context}`);
      assert.equal(typeof res.body?.code, 'string', `error without code: ${context}`);
      assert.equal(typeof res.body?.message, 'string', `error without message: ${context}`);
      assert.ok(!/\n\s+at /.test(res.body.message), `stack trace in error: ${context}`);
      const afterCounts = await rowCounts(this.t.db, this.tables);
      if (allowed.idempotencyRow) {
        // A failed answer is recorded against its Idempotency-Key by design (replayed to a retry); nothing else.
        delete afterCounts.idempotency_keys;
        delete before.idempotency_keys;
      }
      assert.deepEqual(afterCounts, before, `a failed request wrote rows: ${context}`);
    }
  }
}

/** Percent-encoding that also carries what a hostile client sends: a lone surrogate becomes invalid UTF-8 bytes. */
function pct(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...s].map((c) => { try { return encodeURIComponent(c); } catch { return '%ED%A0%80'; } }).join('');
  }
}

function describeValue(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = fc.stringify(v);
  }
  return s.length > 200 ? `${s.slice(0, 200)}…(${s.length})` : s;
}

function authFor(path: string, key: string): string | undefined {
  if (path.startsWith('/admin/')) return ADMIN_TOKEN;
  if (path.startsWith('/api/v1/sdk/') || !path.startsWith('/api/v1/')) return undefined;
  return key;
}

eachDatabase('hostile input', (dialect) => {
  // /metrics is registered on the app's port only behind a token (src/http/metrics.ts): given one, it is swept too.
  const { t } = withApp(dialect, { env: { MOTU_METRICS_TOKEN: 'hostile-metrics-token-0123456789' } });
  let fx: Fixtures;
  let ops: Operation[];
  let checker: Checker;

  before(async () => {
    fx = await fixtures(t);
    VALID_BODIES['POST /api/v1/payments']!.paymentMethodId = fx.ids.paymentMethod;
    VALID_BODIES['POST /acquirer/v1/tokens']!.session = fx.ids.session;
    ops = await operations(t);
    checker = new Checker(t);
    await checker.init();
  });

  const call = (op: Operation, opts: { id?: string; query?: string; body?: unknown; raw?: string; headers?: Record<string, string> }) => {
    const path = op.path.includes('{') ? op.path.replace(/\{\w+\}/g, pct(opts.id ?? realId(op.path, op.method, fx.ids))) : op.path;
    const url = opts.query ? `${path}?${opts.query}` : path;
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const payload = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    return t.api(authFor(op.path, fx.key), op.method, url, payload, headers);
  };

  /** The app on a real loopback port (the stream and oversize headers need one); started once. */
  let port: number | undefined;
  const listening = async () => {
    if (port === undefined) {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as AddressInfo).port;
    }
    return port;
  };

  test('every registered route is swept: documented, JSON, page, stream or back-office', async () => {
    const paths = await documentedPaths(t);
    const documented = new Set(Object.entries(paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)));
    const registered = new Set(t.routes.map((r) => `${r.method} ${r.path}`));
    for (const name of documented) assert.ok(registered.has(name), `the documents list ${name}, which the app does not register`);
    const driven = new Set(ops.map((op) => `${op.method} ${op.path}`));
    const counts: Record<string, number> = {};
    for (const route of t.routes) {
      const name = `${route.method} ${route.path}`;
      const sweep = sweepOf(route, documented);
      assert.ok(sweep, `no sweep drives ${name}`);
      counts[sweep] = (counts[sweep] ?? 0) + 1;
      if (sweep === 'document' || sweep === 'json') assert.ok(driven.has(name), `${name} is not among the fuzzed operations`);
    }
    for (const known of ['POST /acquirer/v1/tokens', 'POST /checkout/{sessionId}/pay', 'POST /api/v1/billing/invoices/{id}/credit-notes', 'PATCH /api/v1/subscriptions/{id}']) {
      assert.ok(driven.has(known), `${known} is not fuzzed`);
    }
    assert.ok(registered.has('GET /metrics'), '/metrics (MOTU_METRICS_TOKEN given) is swept as a page');
    const customers = ops.find((op) => op.method === 'GET' && op.path === '/api/v1/customers');
    assert.ok(customers?.query.includes('q'), 'the customers search (q) is fuzzed from the document');
    assert.ok((counts.page ?? 0) >= 20 && counts.stream === 1 && (counts['back-office'] ?? 0) >= 20, JSON.stringify(counts));
    console.log(`hostile input [${dialect}]: ${t.routes.length} registered routes swept: ${JSON.stringify(counts)}`);
  });

  test('pages, assets and probes (the routes outside the documents): hostile ids, wildcards and query strings', async () => {
    const documented = new Set(ops.map((op) => `${op.method} ${op.path}`));
    const pages = t.routes.filter((r) => sweepOf(r, documented) === 'page');
    const fill = (path: string, value: string) => path.replace(/\{\w+\}/g, pct(value)).replace('*', pct(value));
    const once = async (route: RegisteredRoute, value: string, query: string) => {
      const url = `${fill(route.path, value)}${query ? `?${query}` : ''}`;
      await checker.check(`${route.method} ${url.slice(0, 200)}`, () => t.api(undefined, route.method, url), { html: true });
    };
    for (const route of pages) {
      for (const value of ['../../../../etc/passwd', '%00', 'x'.repeat(300), "' OR '1'='1", '<script>alert(1)</script>']) {
        if (route.path.includes('{') || route.path.includes('*')) await once(route, value, '');
      }
      await once(route, 'x', `sessionId=${pct("' OR 1=1 --")}&since=${pct('\u0000')}&token=${pct('\uD800')}`);
    }
    // The query parameters a page's schema declares, and the usual ones.
    const keysOf = (route: RegisteredRoute) => [...new Set([...route.queryKeys, 'sessionId', 'token', 'lang', 'since', 'x'])];
    const arb = fc.constantFrom(...pages).chain((route) => fc.tuple(fc.constant(route), hostileString, fc.array(fc.tuple(fc.constantFrom(...keysOf(route)), hostileString), { maxLength: 3 })));
    await fc.assert(
      fc.asyncProperty(arb, async ([route, value, pairs]) => once(route, value, pairs.map(([k, v]) => `${k}=${pct(v)}`).join('&'))),
      { numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
    );
  });

  test('the event stream over a real socket: hostile since, query strings and keys; a stream opened is only events', async () => {
    const base = `http://127.0.0.1:${await listening()}/api/v1/events/stream`;
    const attempt = async (query: string, headers: Record<string, string>) => {
      await checker.check(`GET /api/v1/events/stream?${query.slice(0, 200)} ${describeValue(headers).slice(0, 100)}`, async () => {
        const res = await readStream(query ? `${base}?${query}` : base, headers, 150);
        if (res.status === 200) {
          assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
          // Only SSE lines: comments, or an event's id, type and JSON body.
          for (const line of res.text.split('\n').filter(Boolean)) assert.match(line, /^(: |id: [a-z]+_[A-Za-z0-9]+$|event: [a-z_.]+$|data: \{)/, line);
        }
        return { status: res.status, body: res.body };
      });
    };
    const auth = { authorization: `Bearer ${fx.key}` };
    await attempt('', auth);
    await attempt('since=2000-01-01T00:00:00.000Z', auth);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom('since', 'limit', 'type', 'x'), hostileString), { maxLength: 3 }), async (pairs) =>
        attempt(pairs.map(([k, v]) => `${k}=${pct(v)}`).join('&'), auth)),
      { numRuns: Math.ceil(RUNS / 3), endOnFailure: true, includeErrorInReport: true },
    );
    await fc.assert(
      fc.asyncProperty(hostileString, async (raw) => {
        const value = [...raw].map((c) => (c.charCodeAt(0) > 255 || c.charCodeAt(0) < 32 || c === '\u007f' ? '?' : c)).join('').slice(0, 4000);
        await attempt('', { authorization: `Bearer ${value}` });
      }),
      { numRuns: Math.ceil(RUNS / 5), endOnFailure: true, includeErrorInReport: true },
    );
  });

  test('the OpenAPI document lists the routes this test drives', () => {
    assert.ok(ops.length >= 40, `only ${ops.length} operations`);
    for (const op of ops) if (op.path.includes('{')) assert.ok(realId(op.path, op.method, fx.ids));
  });

  test('hostile JSON bodies on every route with a body', async () => {
    const withBody = ops.filter((op) => op.method === 'POST' || op.method === 'PATCH');
    const arb = fc.constantFrom(...withBody).chain((op) => fc.tuple(fc.constant(op), hostileBody(op)));
    await fc.assert(
      fc.asyncProperty(arb, async ([op, body]) => {
        await checker.check(`${op.method} ${op.path} ${describeValue(body)}`, () => call(op, { body }));
      }),
      { numRuns: RUNS * 2, endOnFailure: true, includeErrorInReport: true },
    );
  });

  test('hostile ids and query strings on every route', async () => {
    const arb = fc.tuple(
      fc.constantFrom(...ops),
      fc.option(hostileString, { nil: undefined }),
      fc.array(fc.tuple(fc.string({ maxLength: 12 }), hostileString), { maxLength: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ([op, id, pairs]) => {
        const names = op.query.length ? op.query : ['x'];
        const query = pairs.map(([k, v], i) => `${pct(names[i % names.length] ?? k)}=${pct(v)}`).join('&');
        const body = op.method === 'POST' || op.method === 'PATCH' ? {} : undefined;
        await checker.check(`${op.method} ${op.path} id=${describeValue(id)} ?${query.slice(0, 200)}`, () =>
          call(op, { id: op.path.includes('{') ? id : undefined, query, body }),
        );
      }),
      { numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
    );
  });

  test('raw bodies: malformed, huge, deeply nested, wrong content type, control characters', async () => {
    const raws: Array<[string, Record<string, string>?]> = [
      ['{'], ['{"a":'], ['[1,2'], ['nul'], ['"\u0000"'], ['{"order": {"amount": 1e309}}'], ['{"amount": 123456789012345678901234567890}'],
      ['{"amountCents": -0}'], ['{"__proto__": {"polluted": true}}'], ['{"constructor": {"prototype": {"x": 1}}}'],
      ['{"a":1,"a":2}'], ['\uFEFF{}'], ['{"email": "\uD800"}'], ['['.repeat(100_000) + ']'.repeat(100_000)],
      ['{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000)], [`{"privateData": ${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`],
      [`{"metadata": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`], [JSON.stringify({ name: 'x'.repeat(2_000_000) })],
      [`[${'1,'.repeat(300_000)}1]`], ['{}', { 'content-type': 'text/plain' }], ['<xml/>', { 'content-type': 'application/xml' }],
      ['a=1', { 'content-type': 'application/x-www-form-urlencoded' }], ['{}', { 'content-type': 'application/json; charset=utf-7' }],
      ['{}', { 'content-type': 'application/json', 'content-length': '999' }], ['\x00\x01\x02\xff', { 'content-type': 'application/octet-stream' }],
    ];
    for (const op of ops.filter((o) => o.method === 'POST' || o.method === 'PATCH')) {
      for (const [raw, headers] of raws) {
        await checker.check(`${op.method} ${op.path} raw ${describeValue(raw)}`, () => call(op, { raw, headers }));
      }
    }
  });

  test('deeply nested and huge values inside otherwise valid bodies', async () => {
    for (const [route, valid] of Object.entries(VALID_BODIES)) {
      const [method, path] = route.split(' ') as [string, string];
      const op = ops.find((o) => o.method === method && o.path === path);
      assert.ok(op, route);
      for (const key of Object.keys(valid)) {
        for (const value of [nested(3_000, 1, false), nested(3_000, 1, true), 'é'.repeat(300_000), Array.from({ length: 50_000 }, () => ({}))]) {
          await checker.check(`${route} ${key}=${describeValue(value)}`, () => call(op, { body: { ...valid, [key]: value } }));
        }
      }
    }
  });

  test('free-form JSON fields (x-json-limits in the document) refuse more than 16 levels or 100 keys, naming the field', async () => {
    const withFree = ops.filter((op) => op.freeJson.length > 0);
    const paths = withFree.flatMap((op) => op.freeJson.map((p) => `${op.method} ${op.path} ${p}`));
    for (const expected of ['POST /api/v1/payments/sessions privateData', 'POST /api/v1/payments/sessions order.platformConfig',
      'POST /api/v1/payments/links privateData', 'POST /api/v1/payments privateData', 'POST /api/v1/customers metadata', 'PATCH /api/v1/customers/{id} metadata']) {
      assert.ok(paths.includes(expected), `${expected} not found among ${paths.join(', ')}`);
    }
    const wide = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));
    for (const op of withFree) {
      const valid = VALID_BODIES[`${op.method} ${op.path}`];
      assert.ok(valid, `no valid body for ${op.method} ${op.path}`);
      for (const field of op.freeJson) {
        for (const value of [{ a: nested(16, 1, false) }, { a: nested(16, 1, true) }, { a: wide }]) {
          const body = withValueAt(valid, field, value);
          let answer: Outcome | undefined;
          await checker.check(`${op.method} ${op.path} ${field}=${describeValue(value)}`, async () => (answer = await call(op, { body })));
          assert.equal(answer!.status, 400, `${op.method} ${op.path} ${field}: ${JSON.stringify(answer!.body)}`);
          assert.equal(answer!.body.details.field, field);
        }
      }
    }
  });

  test('a raw body nesting deeper than 32 levels is 400 VALIDATION_ERROR on every route with a body', async () => {
    for (const op of ops.filter((o) => o.method === 'POST' || o.method === 'PATCH')) {
      for (const raw of ['['.repeat(33) + ']'.repeat(33), `{"x":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`, '['.repeat(5_000) + ']'.repeat(5_000)]) {
        let answer: Outcome | undefined;
        await checker.check(`${op.method} ${op.path} raw ${describeValue(raw)}`, async () =>
          (answer = await call(op, { raw, headers: { 'idempotency-key': `deep-${raw.length}` } })));
        assert.equal(answer!.status, 400, `${op.method} ${op.path}: ${JSON.stringify(answer!.body)}`);
        assert.equal(answer!.body.code, 'VALIDATION_ERROR');
      }
    }
  });

  test('a leap second, or a date a Date cannot hold, in every date-time query parameter is 400 naming it', async () => {
    const withDates = [...ops, STREAM].filter((op) => op.dateQuery.length > 0);
    assert.ok(withDates.length >= 3, withDates.map((o) => o.path).join(', '));
    for (const op of withDates) {
      for (const name of op.dateQuery) {
        for (const value of ['2016-12-31T23:59:60Z', '2016-12-31T23:59:60.999-10:00', '2021-02-29T12:00:00Z', '2021-04-31T00:00:00Z']) {
          let answer: Outcome | undefined;
          await checker.check(`${op.method} ${op.path} ${name}=${value}`, async () => (answer = await call(op, { query: `${name}=${pct(value)}` })));
          assert.equal(answer!.status, 400, `${op.path} ${name}=${value}: ${JSON.stringify(answer!.body)}`);
          assert.equal(answer!.body.details.field, name);
        }
      }
    }
  });

  test('a path that does not decode (bad percent-encoding) answers the error shape on every route', async () => {
    for (const op of [...ops, STREAM]) {
      const bad = op.path.includes('{') ? op.path.replace(/\{\w+\}/g, '%FF') : `${op.path}/%E0%A4%A`;
      const body = op.method === 'POST' || op.method === 'PATCH' ? '{}' : undefined;
      let answer: Outcome | undefined;
      await checker.check(`${op.method} ${bad}`, async () =>
        (answer = await t.api(authFor(op.path, fx.key), op.method, bad, body, body ? { 'content-type': 'application/json' } : {})));
      assert.equal(answer!.status, 400, `${op.method} ${bad}: ${JSON.stringify(answer!.body)}`);
      assert.equal(answer!.body.details?.field, 'url', JSON.stringify(answer!.body));
    }
  });

  test('hostile headers: Authorization, Idempotency-Key, Content-Type', async () => {
    const post = ops.find((o) => o.method === 'POST' && o.path === '/api/v1/customers')!;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('authorization', 'idempotency-key', 'content-type', 'accept', 'x-forwarded-for'), hostileString, async (name, raw) => {
        // Header values travel as latin-1 bytes without CR/LF; map the rest into that range as a client would.
        const value = [...raw].map((c) => (c.charCodeAt(0) > 255 || c === '\r' || c === '\n' ? '?' : c)).join('').slice(0, 60_000);
        const headers: Record<string, string> = { [name]: value };
        if (name === 'authorization') {
          await checker.check(`authorization ${describeValue(value)}`, () =>
            t.api(undefined, 'POST', post.path, JSON.stringify({ email: 'z@example.com' }), { 'content-type': 'application/json', ...headers }),
          );
          return;
        }
        const wellFormedKey = name === 'idempotency-key' && /^[\x21-\x7e]{1,255}$/.test(value);
        await checker.check(`${name} ${describeValue(value)}`, () => call(post, { raw: JSON.stringify({ email: 'not an email' }), headers }), {
          idempotencyRow: wellFormedKey,
        });
      }),
      { numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
    );
  });

  test('webhook targets on private or disguised loopback addresses, on every route that takes one', async () => {
    const live = (await createKey(t, fx.ids.merchant!, { mode: 'live' })).secretKey;
    // An endpoint of its own to PATCH (the fuzzing above may have deleted the fixture's).
    const endpoint = await t.api(fx.key, 'POST', '/api/v1/webhook-endpoints', { url: 'https://shop.example/targets', events: ['*'] });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    // Never a target, whatever the mode; several written so that only URL parsing reveals the address.
    const privateTargets = [
      'https://10.0.0.1/x', 'https://167772161/x', 'https://0x0a.0.0.1/x', 'https://012.0.0.1/x', 'https://172.31.255.255/x',
      'https://192.168.0.1/x', 'https://169.254.169.254/latest/meta-data/', 'https://100.64.0.1/x', 'https://0.0.0.0/x',
      'https://0/x', 'https://[::]/x', 'https://[fd12:3456::1]/x', 'https://[fe80::1]/x', 'https://[::ffff:169.254.169.254]/x',
      'https://[::ffff:a00:1]/x', 'https://[64:ff9b::a00:1]/x', 'https://[::10.0.0.1]/x', 'https://224.0.0.1/x', 'https://255.255.255.255/x',
      'https://shop.example@10.0.0.1/x',
    ];
    // This machine: refused with a live key.
    const loopbackTargets = [
      'https://127.0.0.1/x', 'https://2130706433/x', 'https://0x7f000001/x', 'https://0177.0.0.1/x', 'https://127.1/x',
      'https://[::1]/x', 'https://[::ffff:127.0.0.1]/x', 'https://[0:0:0:0:0:ffff:7f00:1]/x', 'https://localhost/x',
      'https://LOCALHOST./x', 'https://api.localhost/x', 'http://127.0.0.1:3000/x',
    ];
    const routes: Array<[string, string, (url: string) => unknown, string, boolean]> = [
      ['POST', '/api/v1/payments/sessions', (url) => ({ ...SESSION, notificationUrl: url }), 'notificationUrl', true],
      ['POST', '/api/v1/payments/links', (url) => ({ ...SESSION, notificationUrl: url }), 'notificationUrl', true],
      ['POST', '/api/v1/payments', (url) => ({ ...VALID_BODIES['POST /api/v1/payments'], notificationUrl: url }), 'notificationUrl', false],
      ['POST', '/api/v1/webhook-endpoints', (url) => ({ url, events: ['*'] }), 'url', true],
      ['PATCH', `/api/v1/webhook-endpoints/${endpoint.body.id}`, (url) => ({ url }), 'url', false], // a test endpoint
      ['POST', '/api/v1/agency/webhooks', (url) => ({ url }), 'url', true],
    ];
    for (const [method, path, body, field, liveToo] of routes) {
      const cases: Array<[string, string]> = privateTargets.map((u) => [fx.key, u]);
      // A live merchant-initiated payment stops earlier without an acquirer (503), and the endpoint is a test one.
      if (liveToo) cases.push(...[...privateTargets, ...loopbackTargets].map((u): [string, string] => [live, u]));
      for (const [key, url] of cases) {
        await checker.check(`${method} ${path} ${field}=${url}`, async () => {
          const res = await t.api(key, method, path, body(url));
          assert.equal(res.status, 400, `${method} ${path} ${url} (${key === live ? 'live' : 'test'}) → ${res.status} ${JSON.stringify(res.body)}`);
          assert.equal(res.body.code, 'VALIDATION_ERROR');
          assert.equal(res.body.details.field, field);
          return res;
        });
      }
    }
  });

  test('oversize headers over a real socket get the error shape', async () => {
    const port = await listening();
    const send = (headers: Record<string, string>, method = 'GET', body?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, method, path: '/api/v1/customers', headers }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end(body);
      });
    for (const headers of [
      { authorization: `Bearer ${fx.key}`, 'x-big': 'a'.repeat(20_000) },
      { authorization: `Bearer ${'b'.repeat(70_000)}` },
      Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`x-h${i}`, 'v'.repeat(10)])),
    ]) {
      const before = await rowCounts(t.db, checker.tables);
      const res = await send(headers);
      checker.requests++;
      assert.ok(res.status >= 400 && res.status < 500, `status ${res.status} for ${describeValue(Object.keys(headers))} ${res.body.slice(0, 200)}`);
      const body = JSON.parse(res.body);
      assert.equal(typeof body.code, 'string', res.body);
      assert.equal(typeof body.message, 'string', res.body);
      assert.deepEqual(await rowCounts(t.db, checker.tables), before);
    }
    // Within the size limit but over what the route accepts.
    const before = await rowCounts(t.db, checker.tables);
    const res = await send({ authorization: `Bearer ${fx.key}`, 'idempotency-key': 'k'.repeat(10_000), 'content-type': 'application/json' }, 'POST', '{"email":"k@example.com"}');
    assert.equal(res.status, 400, res.body);
    assert.equal(JSON.parse(res.body).code, 'VALIDATION_ERROR');
    assert.deepEqual(await rowCounts(t.db, checker.tables), before);
  });

  test('the fixtures still answer (the app survived)', async () => {
    const res = await t.api(fx.key, 'GET', `/api/v1/payments/${fx.ids.captured}`);
    assert.equal(res.status, 200);
    assert.ok(checker.requests > RUNS * 3, `${checker.requests} requests`);
    console.log(`hostile input [${dialect}]: ${checker.requests} requests, ${checker.failures} refused, 0 server errors`);
  });
});
