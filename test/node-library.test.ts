// @motu/node, the typed server library (packages/node), used as a merchant's code uses it: the COMPILED package
// (packages/node/dist, built by the first hook) against a real Motu listening on 127.0.0.1, on every database. Every
// resource is called in a real flow (sessions paid the way the checkout pays, capture, refunds, customers and their
// saved cards, events, webhook endpoints and the signing secret, money, disputes, subscriptions, invoices); errors
// arrive typed; a POST whose answer was lost is retried with the same Idempotency-Key and runs once; webhooks that
// Motu's delivery worker really sent are verified across a secret rotation, and a tampered body, an old timestamp and
// a V1-only request are refused. The generated types are current, cover every event type Motu emits and every
// operation of the document, and a TypeScript file relying on the narrowing of MotuEvent compiles (and a wrong one
// does not); a plain .mjs file uses the package too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { before, it } from 'node:test';
import { EVENT_TYPES as EMITTED } from '../src/events/payloads.js';
import { signatureHeaders } from '../src/events/signer.js';
import { CARDS } from './support/cards.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paySession, tokenize } from './support/payments.js';
import { makeAgency, makePlatform, onboardSeller } from './support/platforms.js';

// Types from the package's sources (so `npm run typecheck` needs no build); the code under test is the compiled dist.
type Lib = typeof import('../packages/node/src/index.js');

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PKG = path.join(ROOT, 'packages/node');
const DIST = path.join(PKG, 'dist/index.js');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

let lib: Lib;

before(async () => {
  await run(process.execPath, [TSC, '-p', path.join(PKG, 'tsconfig.json')], { cwd: ROOT });
  lib = (await import(pathToFileURL(DIST).href)) as Lib;
});

it('the generated types are current with openapi/motu.json and src/events/payloads.ts', async () => {
  const { stdout } = await run(process.execPath, [path.join(PKG, 'scripts/generate.mjs'), '--check'], { cwd: ROOT });
  assert.match(stdout, /is current/);
});

it("MotuEvent's types are exactly the event types Motu emits (and the OpenAPI document's webhooks, once it has them)", () => {
  assert.deepEqual([...lib.EVENT_TYPES].sort(), [...EMITTED].sort());
  const doc = JSON.parse(readFileSync(path.join(ROOT, 'openapi/motu.json'), 'utf8')) as { webhooks?: Record<string, unknown> };
  const documented = Object.keys(doc.webhooks ?? {});
  if (documented.length > 0) assert.deepEqual(documented.sort(), [...lib.EVENT_TYPES].sort());
  for (const type of EMITTED) assert.equal(lib.isMotuEventType(type), true, type);
  assert.equal(lib.isMotuEventType('payment.teleported'), false);
});

it("every merchant operation of openapi/motu.json has a method in the compiled package", () => {
  const doc = JSON.parse(readFileSync(path.join(ROOT, 'openapi/motu.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  const wanted: string[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    // The admin API is the operator's; /api/v1/sdk/ is the browser component's (a session id, no secret key).
    if (!p.startsWith('/api/v1/') || p.startsWith('/api/v1/sdk/')) continue;
    for (const method of Object.keys(item)) if (['get', 'post', 'patch', 'put', 'delete'].includes(method)) wanted.push(`${method} ${p}`);
  }
  const code = readdirSync(path.join(PKG, 'dist'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js')).map((f) => readFileSync(path.join(PKG, 'dist', f), 'utf8')).join('\n');
  const covered = new Set([...code.matchAll(/(?:request|raw|paged)\('(get|post|patch|put|delete)', '([^']+)'/g)].map((m) => `${m[1]} ${m[2]}`));
  assert.ok(wanted.length > 70, `${wanted.length} operations`);
  assert.deepEqual(wanted.filter((op) => !covered.has(op)), []);
});

it('a TypeScript file relying on the narrowing of MotuEvent compiles against the declarations; a wrong one does not', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'motu-node-types-'));
  try {
    const dist = JSON.stringify(DIST);
    const good = `import { verifyWebhook, MotuError, MotuValidationError, Motu, type MotuEvent, type MotuEventType } from ${dist};
import type { EventType } from ${JSON.stringify(path.join(ROOT, 'src/events/payloads.js'))};

export function amountOf(event: MotuEvent): number {
  switch (event.type) {
    case 'payment.captured': return event.data.grossAmount + event.data.settlement.netAmount;
    case 'payment.refunded': return event.data.refundOriginalAmount;
    case 'payout.failed': return event.data.failureReason.length;
    case 'dispute.updated': return event.data.previousStatus.length;
    case 'subscription.past_due': return event.data.amountDue;
    case 'invoice.paid': return event.data.amountRemaining;
    default: return 0;
  }
}
export function reason(event: MotuEvent): 'deleted' | 'disabled' | 'unknown_at_acquirer' | null {
  return event.type === 'payment_method.removed' ? event.data.reason : null;
}
// @ts-expect-error customer.created carries no settlement
export const wrong = (e: MotuEvent) => e.type === 'customer.created' && e.data.settlement.netAmount;
// Every type Motu emits is a MotuEvent type, and nothing else is.
const covers: Record<EventType, MotuEventType> = {} as Record<MotuEventType, MotuEventType>;
const only: Record<MotuEventType, EventType> = {} as Record<EventType, EventType>;
export async function call(motu: Motu, raw: Buffer, headers: Record<string, string>) {
  const session = await motu.paymentSessions.create({ order: { reference: 'A', amount: 100, currency: 'EUR' }, redirectUrl: 'https://s.example/r', notificationUrl: 'https://s.example/h' });
  const id: string = session.sessionId;
  const page = await motu.customers.list({ limit: 10 });
  const more: boolean = page.hasMore;
  for await (const c of motu.customers.list()) { const created: string = c.createdAt; void created; }
  // @ts-expect-error limit is a number
  await motu.customers.list({ limit: 'ten' });
  try { verifyWebhook(raw, headers, ['whsec_a', 'whsec_b'], { tolerance: 60, allowV1: false }); } catch (e) {
    if (e instanceof MotuValidationError) { const f: string = e.fields[0]!.field; void f; }
    if (e instanceof MotuError) { const s: number = e.status; const r: string | null = e.requestId; void s; void r; }
  }
  return [id, more, covers, only];
}
`;
    writeFileSync(path.join(dir, 'good.ts'), good);
    writeFileSync(path.join(dir, 'bad.ts'), `import type { MotuEvent } from ${dist};
export const n = (e: MotuEvent): number => (e.type === 'payment.failed' ? e.data.grossAmount : 0);
`);
    const args = (file: string) => [TSC, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
      '--skipLibCheck', '--typeRoots', path.join(ROOT, 'node_modules/@types'), '--types', 'node', path.join(dir, file)];
    await run(process.execPath, args('good.ts'), { cwd: dir }).catch((err: { stdout?: string }) => assert.fail(`good.ts does not compile:\n${err.stdout}`));
    const bad = await run(process.execPath, args('bad.ts'), { cwd: dir }).then(() => null, (err: { stdout: string }) => err.stdout);
    assert.ok(bad, 'bad.ts compiled');
    assert.match(bad, /Property 'grossAmount' does not exist/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('retries what is safe: a 503 then an answer, with the same Idempotency-Key; a hang ends in MotuTimeoutError', async () => {
  const seen: Array<{ method: string; key: string | undefined }> = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method!, key: req.headers['idempotency-key'] as string | undefined });
    if (req.url === '/api/v1/balance') return; // never answers
    if (seen.length === 1) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0', 'x-request-id': 'r-1' }).end('{"code":"SERVICE_UNAVAILABLE","message":"busy"}');
      return;
    }
    res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"cus_1"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const motu = new lib.Motu('sk_test_fake', { baseUrl, timeoutMs: 300, maxRetries: 1 });
    const created = await motu.customers.create({ name: 'Hina' });
    assert.equal(created.id, 'cus_1');
    assert.equal(seen.length, 2);
    assert.ok(seen[0]!.key && seen[0]!.key === seen[1]!.key, 'the retry carries the first attempt key');
    const hung = await motu.balance.retrieve().catch((e: unknown) => e);
    assert.ok(hung instanceof lib.MotuTimeoutError);
    assert.equal(hung.code, 'TIMEOUT');
    assert.equal(seen.filter((s) => s.method === 'GET').length, 2, 'a GET that timed out is sent again once');
    const unreachable = await new lib.Motu('sk_test_fake', { baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }).balance.retrieve().catch((e: unknown) => e);
    assert.ok(unreachable instanceof lib.MotuConnectionError);
    assert.equal(unreachable.code, 'CONNECTION_ERROR');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

eachDatabase('@motu/node against a running Motu', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, workers: true, receiver: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  let motu: InstanceType<Lib['Motu']>;
  const order = (amount = 2_500) => ({ reference: `CMD-${Math.random().toString(36).slice(2, 8)}`, amount, currency: 'EUR' as const });
  const urls = { redirectUrl: 'https://shop.example/return', notificationUrl: 'https://shop.example/hook' };
  const fail = <T>(p: PromiseLike<T>) => p.then(() => assert.fail('expected a MotuError'), (e: unknown) => {
    assert.ok(e instanceof lib.MotuError, String(e));
    return e;
  });

  before(() => {
    motu = new lib.Motu(m.testKey, { baseUrl: suite.baseUrl });
  });

  /** A card saved on the customer through a wallet session made by the library, as the component saves one. */
  async function saveCard(customerId: string, card: string = CARDS.visa): Promise<string> {
    const session = await motu.walletSessions.create(customerId, { returnUrl: 'https://shop.example/wallet' });
    assert.match(session.sessionId, /^ses_/);
    const token = await tokenize(t, session.sessionId, card);
    const res = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${session.sessionId}/submit`, { token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.paymentMethodId as string;
  }

  it('payments: a session paid by card, captured, refunded in part then in full; a link; a payment on a saved card; a cancel', async () => {
    const session = await motu.paymentSessions.create({ order: order(10_000), captureMode: 'MANUAL', email: 'buyer@example.com', ...urls });
    assert.match(session.checkoutUrl, /^http/);
    assert.equal((await motu.paymentSessions.retrieve(session.sessionId)).paymentId, session.paymentId);
    await paySession(t, session.sessionId);
    assert.equal((await motu.payments.retrieve(session.paymentId)).status, 'transit');
    const captured = await motu.payments.capture(session.paymentId, { amount: 8_000 });
    assert.equal(captured.id, session.paymentId);
    assert.equal((await motu.payments.retrieve(session.paymentId)).status, 'captured');
    const part = await motu.refunds.create(session.paymentId, { amount: 3_000, reason: 'requested_by_customer' });
    assert.equal(part.amount, 3_000);
    await motu.refunds.create(session.paymentId);
    const refunds = await motu.refunds.list(session.paymentId);
    assert.deepEqual(refunds.data.map((r) => r.amount).sort((a, b) => a - b), [3_000, 5_000]);
    const tooMuch = await fail(motu.refunds.create(session.paymentId, { amount: 1 }));
    assert.ok(tooMuch instanceof lib.MotuBusinessRuleError);
    assert.equal(tooMuch.status, 422);

    const link = await motu.paymentLinks.create({ order: order() });
    assert.match(JSON.stringify(link), /http/);

    const customer = await motu.customers.create({ email: 'hina@example.com', name: 'Hina' });
    const pm = await saveCard(customer.id);
    const mit = await motu.payments.create({ paymentMethodId: pm, order: order(1_200), notificationUrl: urls.notificationUrl });
    assert.equal((await motu.payments.retrieve(mit.id)).amount, 1_200);

    const manual = await motu.paymentSessions.create({ order: order(), captureMode: 'MANUAL', email: 'b@example.com', ...urls });
    await paySession(t, manual.sessionId);
    await motu.payments.cancel(manual.paymentId);
    assert.equal((await motu.payments.retrieve(manual.paymentId)).status, 'cancelled');

    const page = await motu.payments.list({ limit: 2 });
    assert.equal(page.data.length, 2);
    assert.equal(page.hasMore, true);
    const all = await motu.payments.list({ limit: 1 }).toArray();
    assert.ok(all.length >= 3, 'for await follows the pages');
    assert.equal(new Set(all.map((p) => p.id)).size, all.length);
  });

  it('customers and their wallet: create, read, change, list by email; cards saved, listed, read, invalidated, deleted; card links', async () => {
    const c = await motu.customers.create({ email: 'teva@example.com', name: 'Teva', metadata: { crm: '42' } });
    assert.equal((await motu.customers.retrieve(c.id)).name, 'Teva');
    const changed = await motu.customers.update(c.id, { name: 'Teva T.', phone: null });
    assert.deepEqual(changed.updatedFields, ['name']);
    assert.deepEqual((await motu.customers.list({ email: 'teva@example.com' })).data.map((x) => x.id), [c.id]);

    const first = await saveCard(c.id);
    const second = await saveCard(c.id, CARDS.mastercard);
    const cards = await motu.paymentMethods.list(c.id);
    assert.deepEqual(new Set(cards.data.map((p) => p.id)), new Set([first, second]));
    assert.equal((await motu.paymentMethods.retrieve(first)).id, first);
    await motu.testHelpers.invalidatePaymentMethod(first, { reason: 'disabled' });
    await motu.paymentMethods.delete(second);
    const gone = await fail(motu.paymentMethods.retrieve('pm_doesnotexist1'));
    assert.equal(gone.code, 'NOT_FOUND');

    const cardLink = await motu.cardLinks.create(c.id, { returnUrl: 'https://shop.example/cards' });
    assert.equal((await motu.cardLinks.retrieve(cardLink.id)).id, cardLink.id);
    await motu.cardLinks.cancel(cardLink.id);
    assert.notEqual((await motu.cardLinks.retrieve(cardLink.id)).status, (cardLink as { status?: string }).status);
  });

  it('errors are typed: 404 NOT_FOUND, 400 VALIDATION_ERROR with every field, 401 with the request id', async () => {
    const missing = await fail(motu.customers.retrieve('cus_doesnotexist1'));
    assert.ok(missing instanceof lib.MotuNotFoundError);
    assert.deepEqual([missing.status, missing.code], [404, 'NOT_FOUND']);
    assert.ok(missing.requestId);

    const invalid = await fail(motu.paymentSessions.create({ order: { reference: 'X', amount: -5, currency: 'EUR' }, redirectUrl: 'not a url', notificationUrl: 'https://s.example/h', surprise: 1 } as never));
    assert.ok(invalid instanceof lib.MotuValidationError);
    assert.equal(invalid.code, 'VALIDATION_ERROR');
    assert.ok(invalid.fields.length >= 2, JSON.stringify(invalid.fields));
    assert.ok(invalid.fields.some((f) => f.field === 'surprise'), JSON.stringify(invalid.fields));
    assert.equal(typeof invalid.details.field, 'string');

    const stranger = new lib.Motu('sk_test_notakeyofanyone0000', { baseUrl: suite.baseUrl });
    const denied = await fail(stranger.balance.retrieve());
    assert.ok(denied instanceof lib.MotuAuthenticationError);
    assert.equal(denied.status, 401);
    assert.match(denied.requestId ?? '', /\S/);
    assert.throws(() => new lib.Motu('pk_nope', { baseUrl: suite.baseUrl }), TypeError);
  });

  it('a POST whose answer is lost is sent again with the same Idempotency-Key and runs once; a key reused for another body is a conflict', async () => {
    let dropped = 0;
    const keys: string[] = [];
    const lossy: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'POST') keys.push(String((init.headers as Record<string, string>)['idempotency-key']));
      if (init?.method === 'POST' && dropped === 0) {
        dropped++;
        await res.arrayBuffer();
        throw new TypeError('fetch failed'); // the session was created; its answer never reached us
      }
      return res;
    };
    const flaky = new lib.Motu(m.testKey, { baseUrl: suite.baseUrl, fetch: lossy });
    const reference = `IDEM-${Math.random().toString(36).slice(2, 8)}`;
    const session = await flaky.paymentSessions.create({ order: { reference, amount: 1_000, currency: 'EUR' }, ...urls });
    assert.equal(keys.length, 2);
    assert.equal(keys[0], keys[1]);
    const sessions = await motu.payments.list({ reference, limit: 10 });
    assert.deepEqual(sessions.data.map((p) => p.id), [session.paymentId], 'one payment, not two');

    const again = await motu.customers.create({ name: 'Once' }, { idempotencyKey: `key-${reference}` });
    assert.equal((await motu.customers.create({ name: 'Once' }, { idempotencyKey: `key-${reference}` })).id, again.id);
    const reused = await fail(motu.customers.create({ name: 'Twice' }, { idempotencyKey: `key-${reference}` }));
    assert.ok(reused instanceof lib.MotuConflictError);
    assert.equal(reused.code, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('webhooks: endpoints managed, deliveries verified with Motu’s real signatures across a rotation; tampered, old and V1-only requests refused', async () => {
    const endpoint = await motu.webhookEndpoints.create({ url: suite.rx.url('/motu'), events: ['customer.*'], description: 'crm' });
    assert.equal((await motu.webhookEndpoints.retrieve(endpoint.id)).url, suite.rx.url('/motu'));
    assert.deepEqual((await motu.webhookEndpoints.update(endpoint.id, { description: 'CRM sync' })).description, 'CRM sync');
    assert.ok((await motu.webhookEndpoints.list()).data.some((e) => e.id === endpoint.id));

    const { webhookSecret: oldSecret } = await motu.webhookSigningSecret.retrieve();
    assert.equal(oldSecret, m.testWebhookSecret);
    const before = await motu.customers.create({ name: 'Before rotation' });
    await suite.rx.waitFor((all) => all.some((r) => r.path === '/motu' && r.body.data.id === before.id));
    const rotated = await motu.webhookSigningSecret.rotate();
    assert.notEqual(rotated.webhookSecret, oldSecret);
    const afterRotation = await motu.customers.create({ name: 'After rotation' });
    await suite.rx.waitFor((all) => all.some((r) => r.path === '/motu' && r.body.data.id === afterRotation.id));
    const sent = (id: string) => suite.rx.for('/motu').find((r) => r.body.data.id === id)!;

    const early = lib.verifyWebhook(sent(before.id).raw, sent(before.id).headers, oldSecret);
    assert.equal(early.type, 'customer.created');
    const late = sent(afterRotation.id);
    // During a rotation either secret works, alone or listed (the old one through X-Service-Signature-V2-Previous).
    for (const secrets of [[rotated.webhookSecret, oldSecret], [rotated.webhookSecret], [oldSecret]]) {
      const event = lib.verifyWebhook(late.raw, late.headers, secrets);
      assert.equal(event.type, 'customer.created');
      if (event.type === 'customer.created') assert.equal(event.data.id, afterRotation.id);
    }
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        assert.ok(e instanceof lib.MotuWebhookError, String(e));
        return e.code;
      }
      return assert.fail('verifyWebhook accepted it');
    };
    assert.equal(refusal(() => lib.verifyWebhook(late.raw, late.headers, 'whsec_someoneelse')), 'WEBHOOK_INVALID_SIGNATURE');
    const tampered = Buffer.from(late.raw.toString('utf8').replace('After rotation', 'After rotatioN'));
    assert.equal(refusal(() => lib.verifyWebhook(tampered, late.headers, [rotated.webhookSecret, oldSecret])), 'WEBHOOK_INVALID_SIGNATURE');

    // Signed by Motu's signer an hour ago: refused by the default 5 minutes, accepted with a wider tolerance.
    const body = late.raw.toString('utf8');
    const old = signatureHeaders(body, { secret: rotated.webhookSecret }, Math.floor(Date.now() / 1000) - 3600, late.body.id);
    assert.equal(refusal(() => lib.verifyWebhook(body, old, rotated.webhookSecret)), 'WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
    assert.equal(lib.verifyWebhook(body, old, rotated.webhookSecret, { tolerance: 7200 }).id, late.body.id);
    // V1 only (no timestamp, no V2): refused unless allowV1; a V2 request stripped of its timestamp is not V1.
    const v1Only = Object.fromEntries(Object.entries(late.headers).filter(([k]) => !/signature-v2|timestamp/.test(k)));
    assert.ok(v1Only['x-service-signature']);
    assert.equal(refusal(() => lib.verifyWebhook(late.raw, v1Only, rotated.webhookSecret)), 'WEBHOOK_V1_NOT_ALLOWED');
    assert.equal(lib.verifyWebhook(late.raw, v1Only, rotated.webhookSecret, { allowV1: true }).id, late.body.id);
    const noTimestamp = Object.fromEntries(Object.entries(late.headers).filter(([k]) => !k.endsWith('timestamp')));
    assert.equal(refusal(() => lib.verifyWebhook(late.raw, noTimestamp, rotated.webhookSecret, { allowV1: true })), 'WEBHOOK_MISSING_TIMESTAMP');
    assert.equal(refusal(() => lib.verifyWebhook(late.raw, {}, rotated.webhookSecret)), 'WEBHOOK_MISSING_SIGNATURE');
    assert.equal(refusal(() => lib.verifyWebhook(late.raw, new Headers(late.headers as Record<string, string>), 'whsec_x')), 'WEBHOOK_INVALID_SIGNATURE');

    await motu.webhookEndpoints.delete(endpoint.id);
    assert.equal((await fail(motu.webhookEndpoints.retrieve(endpoint.id))).status, 404);
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { agency: true })).status, 200);
    const agency = await motu.agencyWebhooks.create({ url: 'https://agency.example/hooks' });
    assert.deepEqual(agency.events, ['agency.*']);
  });

  it('events: listed by type and page, read, their deliveries, a resend; the live stream yields typed events', async () => {
    const controller = new AbortController();
    const streamed: string[] = [];
    const streaming = (async () => {
      for await (const event of motu.events.stream({ signal: controller.signal })) {
        if (event.type === 'customer.created') streamed.push(event.data.id);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const c = await motu.customers.create({ name: 'Streamed' });
    const deadline = Date.now() + 5_000;
    while (!streamed.includes(c.id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await streaming.catch(() => {});
    assert.ok(streamed.includes(c.id), 'the stream delivered the new customer');

    const events = await motu.events.list({ type: 'customer.*', limit: 100 });
    const created = events.data.find((e) => e.type === 'customer.created' && (e.data as { id?: string }).id === c.id);
    assert.ok(created);
    const one = await motu.events.retrieve(created.id);
    assert.equal(one.id, created.id);
    const payments = await motu.events.list({ type: 'payment.*', limit: 1 });
    assert.equal(payments.data[0]!.type.startsWith('payment.'), true);
    let paged = 0;
    for await (const e of motu.events.list({ limit: 2 })) if (e.id) paged++;
    assert.ok(paged > 2, 'for await reads past the first page');
    const deliveries = await motu.events.listDeliveries(payments.data[0]!.id);
    assert.ok(deliveries.data.length >= 1);
    const resent = await motu.events.resend(payments.data[0]!.id);
    assert.ok(resent);
  });

  it('money: balance and its transactions, bank accounts, payout schedule, payouts; disputes opened by the test helper, answered', async () => {
    const eur = async () => (await motu.balance.retrieve()).available.find((b) => b.currency === 'EUR')?.amount ?? 0;
    const before = await eur();
    assert.equal((await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'test', currency: 'EUR', amount: 50_000, reason: 'funding' })).status, 201);
    assert.equal(await eur(), before + 50_000);
    const txs = await motu.balanceTransactions.list({ limit: 5 });
    assert.ok(txs.data.length > 0);
    assert.equal((await motu.balanceTransactions.retrieve(txs.data[0]!.id)).id, txs.data[0]!.id);

    const account = await motu.bankAccounts.create({ iban: 'FR7630006000010000000000152', holderName: 'Fare Ute SARL', currency: 'EUR' });
    assert.equal((await motu.bankAccounts.retrieve(account.id)).id, account.id);
    await motu.bankAccounts.update(account.id, { default: true });
    assert.ok((await motu.bankAccounts.list()).data.some((a) => a.id === account.id));
    const spare = await motu.bankAccounts.create({ iban: 'FR7630006000010000000000249', holderName: 'Fare Ute SARL', currency: 'EUR' });
    await motu.bankAccounts.delete(spare.id);

    const schedule = await motu.payoutSchedule.retrieve();
    assert.ok(schedule);
    await motu.payoutSchedule.update({ interval: 'manual' });
    assert.equal((await motu.payoutSchedule.retrieve()).interval, 'manual');

    const payout = await motu.payouts.create({ currency: 'EUR', amount: 10_000, description: 'Weekly' });
    assert.equal((await motu.payouts.retrieve(payout.id)).amount, 10_000);
    assert.ok((await motu.payouts.list()).data.some((p) => p.id === payout.id));
    for (const tx of (await motu.payouts.listTransactions(payout.id)).data) assert.equal(tx.payoutId, payout.id);
    // The worker hands a payout to the bank within moments; cancel answers for whichever state it is in.
    const cancel = await motu.payouts.cancel(payout.id).then((p) => p.status, (e: unknown) => (e instanceof lib.MotuError ? e.code : String(e)));
    const now = (await motu.payouts.retrieve(payout.id)).status;
    assert.ok((cancel === 'cancelled' && now === 'cancelled') || (cancel === 'PAYOUT_NOT_CANCELLABLE' && now !== 'pending'), `${cancel} ${now}`);
    const broke = await fail(motu.payouts.create({ currency: 'EUR', amount: 100_000_000 }));
    assert.equal(broke.code, 'INSUFFICIENT_BALANCE');

    const session = await motu.paymentSessions.create({ order: order(4_000), email: 'buyer@example.com', ...urls });
    await paySession(t, session.sessionId);
    const opened = await motu.testHelpers.disputePayment(session.paymentId, { kind: 'chargeback' });
    const disputes = await motu.disputes.list({ paymentId: session.paymentId });
    assert.deepEqual(disputes.data.map((d) => d.id), [opened.id]);
    assert.equal((await motu.disputes.retrieve(opened.id)).paymentId, session.paymentId);
    await motu.disputes.submitEvidence(opened.id, { productDescription: 'Blue pareo', submit: false });
    await motu.disputes.accept(opened.id);
    assert.notEqual((await motu.disputes.retrieve(opened.id)).status, opened.status);
  });

  it('subscriptions, invoices and credit notes, billing settings, test clocks', async () => {
    const clock = await motu.testHelpers.testClocks.create({ frozenTime: new Date().toISOString(), name: 'library' });
    assert.equal((await motu.testHelpers.testClocks.retrieve(clock.id)).id, clock.id);
    assert.ok((await motu.testHelpers.testClocks.list()).data.some((c) => c.id === clock.id));
    await motu.testHelpers.testClocks.advance(clock.id, { frozenTime: new Date(Date.now() + 3_600_000).toISOString() });

    const customer = await motu.customers.create({ email: 'abo@example.com', name: 'Abo' });
    const pm = await saveCard(customer.id);
    const sub = await motu.subscriptions.create({ customerId: customer.id, paymentMethodId: pm, amount: 2_500, currency: 'EUR', interval: 'month' });
    assert.equal((await motu.subscriptions.retrieve(sub.id)).customerId, customer.id);
    await motu.subscriptions.update(sub.id, { description: 'Pareo club' });
    assert.ok((await motu.subscriptions.list({ customerId: customer.id })).data.some((s) => s.id === sub.id));
    assert.ok(Array.isArray((await motu.subscriptions.listDueDates(sub.id)).data));
    const notDue = await fail(motu.subscriptions.retry(sub.id));
    assert.equal(notDue.code, 'SUBSCRIPTION_NOT_PAST_DUE');
    await motu.subscriptions.cancel(sub.id);
    assert.equal((await motu.subscriptions.retrieve(sub.id)).status, 'cancelled');

    await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, {
      legalName: 'Fare Ute SARL', registrationNumber: 'TAHITI A12345', taxId: '123456',
      address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' },
    });
    assert.equal((await motu.billingSettings.retrieve()).issuable, true);
    const lines = [{ description: 'Loyer', quantity: 1, unitPrice: 85_000 }];
    const draft = await motu.invoices.create({ customerId: customer.id, currency: 'XPF', lines });
    await motu.invoices.update(draft.id, { memo: 'Merci' });
    const scrap = await motu.invoices.create({ customerId: customer.id, currency: 'XPF', lines });
    await motu.invoices.delete(scrap.id);
    assert.equal((await fail(motu.invoices.retrieve(scrap.id))).code, 'NOT_FOUND');
    const issued = await motu.invoices.finalize(draft.id);
    assert.match(String(issued.number), /^F-/);
    await motu.invoices.send(draft.id).catch((e: unknown) => assert.ok(e instanceof lib.MotuError));
    const paid = await motu.invoices.recordPayment(draft.id, { amount: 5_000, method: 'bank_transfer' });
    assert.ok(paid);
    const pdf = await motu.invoices.pdf(draft.id, { lang: 'en' });
    assert.equal(Buffer.from(pdf.subarray(0, 5)).toString('latin1'), '%PDF-');
    const note = await motu.invoices.createCreditNote(draft.id, { amount: 1_000, reason: 'order_change' });
    const notePdf = await motu.creditNotes.pdf(note.id);
    assert.equal(Buffer.from(notePdf.subarray(0, 5)).toString('latin1'), '%PDF-');
    assert.deepEqual(await motu.creditNotes.retrieve(note.id), note);
    assert.deepEqual((await motu.creditNotes.list({ invoiceId: draft.id })).data.map((n) => n.number), [note.number]);
    await motu.invoices.markUncollectible(draft.id);
    assert.equal((await motu.invoices.retrieve(draft.id)).status, 'uncollectible');
    assert.ok((await motu.invoices.list({ customerId: customer.id })).data.some((i) => i.id === draft.id));
  });

  it('platforms: onboarding sessions created, read, listed, cancelled; cases; sellers listed, read, unlinked; a key without the flag is 403', async () => {
    const p = await makePlatform(t, 'Marché Fenua');
    const platform = new lib.Motu(p.testKey, { baseUrl: suite.baseUrl }).platform;
    const s = await platform.onboardingSessions.create({ email: 'vendeur@example.pf', returnUrl: 'https://marketplace.example/onboarded' });
    assert.equal((await platform.onboardingSessions.retrieve(s.id)).status, 'open');
    assert.equal((await platform.onboardingSessions.cancel(s.id)).status, 'cancelled');
    const seller = await onboardSeller(t, p.testKey, { legalName: 'Perles de Rikitea SARL' });
    const sessions = await platform.onboardingSessions.list({ limit: 1 }).toArray();
    assert.equal(sessions.length, 2, 'for await follows the pages');
    assert.equal(sessions.find((x) => x.id === s.id)?.status, 'cancelled');
    const kase = await platform.onboardingCases.retrieve(seller.caseId);
    assert.deepEqual([kase.merchantId, kase.legalName], [seller.merchantId, 'Perles de Rikitea SARL']);
    assert.deepEqual((await platform.onboardingCases.list()).data.map((c) => c.id), [seller.caseId]);
    const sellers = await platform.merchants.list();
    assert.deepEqual(sellers.data.map((x) => [x.id, x.state]), [[seller.merchantId, 'open']]);
    assert.equal((await platform.merchants.retrieve(seller.merchantId)).caseId, seller.caseId);
    const unlinked = await platform.merchants.unlink(seller.merchantId);
    assert.ok(unlinked.unlinkedAt);
    const again = await fail(platform.merchants.unlink(seller.merchantId));
    assert.ok(again.status >= 400 && again.status < 500, String(again.status));
    const notPlatform = await fail(motu.platform.merchants.list());
    assert.ok(notPlatform instanceof lib.MotuPermissionError);
  });

  it('agencies: invitations created, read, listed, cancelled; accepted by the client; acting for it with withAccount or {account}; scopes, no mandate, revocation', async () => {
    const a = await makeAgency(t, 'Agence Moana');
    const agency = new lib.Motu(a.testKey, { baseUrl: suite.baseUrl });
    const c = await createMerchant(t, 'Boutique Tiare');
    const client = new lib.Motu(c.testKey, { baseUrl: suite.baseUrl });
    const invitation = await agency.agency.invitations.create({ email: 'client@shop.example', scopes: ['customers.read', 'customers.write'] });
    assert.equal((await agency.agency.invitations.retrieve(invitation.id)).status, 'pending');
    const spare = await agency.agency.invitations.create({ email: 'other@shop.example', scopes: ['payments.read'] });
    assert.equal((await agency.agency.invitations.cancel(spare.id)).status, 'cancelled');
    assert.deepEqual(new Set((await agency.agency.invitations.list()).data.map((i) => i.id)), new Set([invitation.id, spare.id]));

    const mandate = await client.agencyInvitations.accept(invitation.url.split('/').at(-1)!);
    assert.match(mandate.id, /^mdt_/);
    assert.deepEqual([mandate.agencyId, mandate.merchantId, mandate.status], [a.id, c.id, 'active']);
    assert.deepEqual((await client.agencyMandates.list()).data.map((x) => x.id), [mandate.id]);
    assert.deepEqual((await agency.agency.mandates.list()).data.map((x) => x.id), [mandate.id]);

    // The agency's key with Motu-Account: the client's account, and what the agency creates shows actedBy.
    const forClient = agency.withAccount(c.id);
    const customer = await forClient.customers.create({ email: 'agence@example.com', name: 'Teura' });
    assert.deepEqual(customer.actedBy, { agencyId: a.id });
    const seen = await client.customers.retrieve(customer.id);
    assert.deepEqual([seen.email, seen.actedBy], ['agence@example.com', { agencyId: a.id }]);
    assert.equal((await agency.customers.retrieve(customer.id, { account: c.id })).id, customer.id, 'the per-call option');
    const own = await fail(agency.customers.retrieve(customer.id));
    assert.ok(own instanceof lib.MotuNotFoundError, 'without the header, the agency reads its own account');
    assert.throws(() => agency.withAccount('cus_nope'), TypeError);

    const denied = await fail(forClient.payments.list());
    assert.ok(denied instanceof lib.MotuPermissionError);
    assert.deepEqual([denied.code, (denied.details as { scope?: string }).scope], ['PERMISSION_DENIED', 'payments.read']);
    assert.deepEqual((await client.agencyMandates.update(mandate.id, { scopes: ['customers.read', 'payments.read'] })).scopes.sort(), ['customers.read', 'payments.read']);
    assert.deepEqual((await forClient.payments.list()).data, []);
    const noMandate = await fail(agency.withAccount(m.id).customers.list());
    assert.ok(noMandate instanceof lib.MotuNotFoundError);

    assert.equal((await client.agencyMandates.revoke(mandate.id)).status, 'revoked');
    const revoked = await fail(forClient.customers.retrieve(customer.id));
    assert.ok(revoked instanceof lib.MotuPermissionError);
    assert.equal(revoked.code, 'MANDATE_REVOKED');
    const moved = await fail(client.agencyMandates.transfer(mandate.id, { agencyId: a.id }));
    assert.ok(moved.status >= 400 && moved.status < 500, 'a revoked mandate is not transferred');
  });

  it("the README's quick example runs as written: a pending session, the lists; once paid, its capture and refund", async () => {
    const readme = readFileSync(path.join(PKG, 'README.md'), 'utf8');
    const blocks = [...readme.slice(readme.indexOf('## Quick example')).matchAll(/```ts\n([\s\S]*?)```/g)].map((b) => b[1]!);
    const [example, afterPaid] = blocks;
    assert.ok(example && afterPaid && example.includes("from '@motu/node'"));
    const dir = mkdtempSync(path.join(tmpdir(), 'motu-node-readme-'));
    const asInstalled = (code: string) => code.replace("from '@motu/node'", `from ${JSON.stringify(pathToFileURL(DIST).href)}`);
    const runTs = async (name: string, code: string, env: Record<string, string> = {}) => {
      writeFileSync(path.join(dir, name), asInstalled(code));
      return run(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(dir, name)],
        { env: { ...process.env, MOTU_SECRET_KEY: m.testKey, MOTU_URL: suite.baseUrl, ...env } });
    };
    try {
      const before = (await t.api(m.testKey, 'GET', '/api/v1/payments?limit=100')).body.data.length as number;
      const { stdout } = await runTs('example.mts', example);
      assert.equal(stdout.split('\n')[0], 'pending');
      const made = (await t.api(m.testKey, 'GET', '/api/v1/payments?limit=100')).body.data;
      assert.equal(made.length, before + 1);
      const payment = made[0];
      assert.deepEqual([payment.status, payment.orderReference, payment.captureMode], ['pending', 'CMD-42', 'MANUAL']);
      // The customer pays; then the second block, with the client of the first.
      await paySession(t, payment.sessionId);
      const client = example.slice(0, example.indexOf('const session'));
      await runTs('after-paid.mts', `${client}const paymentId = process.env.PAYMENT_ID!;\n${afterPaid}`, { PAYMENT_ID: payment.id });
      const done = (await t.api(m.testKey, 'GET', `/api/v1/payments/${payment.id}`)).body;
      assert.deepEqual([done.capturedAmount, done.refundedAmount], [2000, 500]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('works from plain JavaScript: a .mjs file imports the compiled package and calls Motu', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'motu-node-mjs-'));
    try {
      const script = path.join(dir, 'merchant.mjs');
      writeFileSync(script, `import { Motu, MotuNotFoundError, verifyWebhook } from ${JSON.stringify(pathToFileURL(DIST).href)};
const motu = new Motu(process.env.KEY, { baseUrl: process.env.BASE });
const customer = await motu.customers.create({ name: 'From JS' });
let code = null;
try { await motu.customers.retrieve('cus_missing000000'); } catch (e) { code = e instanceof MotuNotFoundError ? e.code : 'wrong class'; }
console.log(JSON.stringify({ id: customer.id, name: (await motu.customers.retrieve(customer.id)).name, code, verify: typeof verifyWebhook }));
`);
      const { stdout } = await run(process.execPath, [script], { env: { ...process.env, KEY: m.testKey, BASE: suite.baseUrl } });
      const out = JSON.parse(stdout) as { id: string; name: string; code: string; verify: string };
      assert.match(out.id, /^cus_/);
      assert.deepEqual([out.name, out.code, out.verify], ['From JS', 'NOT_FOUND', 'function']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
