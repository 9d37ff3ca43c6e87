// Secrets never in logs or columns: after a full run — merchant, keys, a bank account, sessions, card payments through the real token
// endpoint, refunds, a saved card, webhook deliveries to a loopback receiver, a signing-secret rotation, and requests
// that fail with card data in them — no card number, secret key or webhook secret appears in clear in the logs
// (pino at trace level, captured) or in any column of any table. Webhook secrets are sealed at rest (AES-256-GCM).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { parseConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/http/logger.js';
import { sha256Hex } from '../src/shared/hash.js';
import { SECRETS_KEY_FILE, SecretBox, secretBoxFor } from '../src/shared/secret-box.js';
import { systemClock } from '../src/shared/clock.js';
import { startWorkers, type Workers } from '../src/start/workers.js';
import { ADMIN_TOKEN, eachDatabase, freshDatabase, type TestApp, type TestDatabase } from './support/harness.js';
import { CARDS } from './support/cards.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { everyStoredValue } from './support/tables.js';

const PANS = ['4242424242424242', '5555555555554444', '4970100000000006', '4000000000000002', '4000000000000341', '5131000000000001'];
const SECRET_PATTERNS = [/sk_(test|live)_[0-9A-Za-z]{32}/, /whsec_[0-9A-Za-z]{32}/];

/** A PAN as digits, and grouped by 4 with spaces or dashes, as a person or a form might write it. */
function panForms(pan: string): string[] {
  const groups = pan.match(/.{1,4}/g)!;
  return [pan, groups.join(' '), groups.join('-')];
}

interface Run {
  t: TestApp;
  logs: string[];
  issued: string[];
  /** Bearer capabilities that live in URLs (session ids, invoice page tokens, …): stored, but never logged. */
  capabilities: string[];
  receiver: Receiver;
  workers: Workers;
  database: TestDatabase;
  config: Config;
}

async function start(dialect: 'sqlite' | 'postgres'): Promise<Run> {
  const database = await freshDatabase(dialect);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir,
    DATABASE_URL: database.databaseUrl,
    MOTU_ADMIN_TOKEN: ADMIN_TOKEN,
    MOTU_PUBLIC_URL: 'http://localhost:3000',
    MOTU_RATE_LIMIT_MAX: '100000',
    MOTU_TOKENS_PER_MINUTE: '100000',
    MOTU_WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
    LOG_LEVEL: 'trace',
  });
  const logger = createLogger('trace', sink);
  const app = await buildApp(config, { db: database.db, adminTokenHash: sha256Hex(ADMIN_TOKEN), clock: systemClock, logger });
  await app.ready();
  const workers = startWorkers(config, database.db, systemClock, logger, { delivery: { pollMs: 50 } });
  const call = async (auth: string | undefined, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    let parsed: unknown = res.body;
    try {
      parsed = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      /* keep the text */
    }
    return { status: res.statusCode, body: parsed as any, headers: res.headers as Record<string, unknown> };
  };
  const t: TestApp = {
    app, routes: [], config, db: database.db, clock: systemClock, dialect, databaseUrl: database.databaseUrl, dataDir: database.dataDir,
    admin: (method, url, body) => call(ADMIN_TOKEN, method, url, body),
    api: call,
    close: async () => {},
  };
  return { t, logs, issued: [], capabilities: [], receiver: await startReceiver(), workers, database, config };
}

async function fullFlow(run: Run): Promise<void> {
  const { t, issued, receiver } = run;
  const ok = (res: { status: number; body: unknown }, status: number) => assert.equal(res.status, status, JSON.stringify(res.body));
  const merchant = await t.admin('POST', '/admin/v1/merchants', { name: 'Secret Shop' });
  ok(merchant, 201);
  const m = merchant.body;
  issued.push(m.testSecretKey, m.liveSecretKey, m.testWebhookSecret, m.liveWebhookSecret, ADMIN_TOKEN);
  const extra = await t.admin('POST', `/admin/v1/merchants/${m.id}/keys`, { mode: 'test' });
  ok(extra, 201);
  issued.push(extra.body.secretKey);
  const key = m.testKey ?? m.testSecretKey;
  const endpoint = await t.api(key, 'POST', '/api/v1/webhook-endpoints', { url: receiver.url('/endpoint'), events: ['*'] });
  ok(endpoint, 201);
  // A rotation, replayed through an Idempotency-Key: the new secret must not be stored in clear as the replayable answer.
  const rotated = await t.api(key, 'POST', '/api/v1/webhooks/signing-secret/rotate', undefined, { 'idempotency-key': 'rotate-1' });
  ok(rotated, 200);
  issued.push(rotated.body.webhookSecret);
  const replay = await t.api(key, 'POST', '/api/v1/webhooks/signing-secret/rotate', undefined, { 'idempotency-key': 'rotate-1' });
  assert.equal(replay.body.webhookSecret, rotated.body.webhookSecret);
  const read = await t.api(key, 'GET', '/api/v1/webhooks/signing-secret');
  assert.equal(read.body.webhookSecret, rotated.body.webhookSecret);
  const customer = await t.api(key, 'POST', '/api/v1/customers', { email: 'card@example.com' });
  ok(customer, 201);
  // A bank account, and a mistyped IBAN: neither appears anywhere, in any form (the refusal does not repeat it).
  const iban = 'FR76 3000 6000 0100 0000 0000 152';
  const bad = 'FR76 3000 6000 0100 0000 0000 153';
  issued.push(iban, iban.replace(/ /g, ''), bad, bad.replace(/ /g, ''));
  ok(await t.api(key, 'POST', '/api/v1/bank-accounts', { iban, holderName: 'Secret Shop SARL', currency: 'EUR' }), 201);
  const refused = await t.api(key, 'POST', '/api/v1/bank-accounts', { iban: bad, holderName: 'Secret Shop SARL', currency: 'EUR' });
  ok(refused, 400);
  assert.ok(!JSON.stringify(refused.body).includes('0000152') && !JSON.stringify(refused.body).includes('0000153'));

  const token = async (number: string, session: string) => {
    const res = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number, expMonth: 12, expYear: 2040, cvc: '123', session });
    ok(res, 201);
    return res.body.token as string;
  };
  const payments: string[] = [];
  for (const [i, pan] of PANS.entries()) {
    const session = await t.api(key, 'POST', '/api/v1/payments/sessions', {
      order: { reference: `S-${i}`, amount: 2_000 + i, currency: i % 2 ? 'XPF' : 'EUR' },
      captureMode: i === 1 ? 'MANUAL' : 'AUTO',
      email: 'buyer@example.com',
      customerId: customer.body.id,
      allowCustomerToSavePaymentMethod: true,
      redirectUrl: 'https://shop.example/return',
      notificationUrl: receiver.url('/notify'),
      privateData: { note: 'no card here' },
    }, { 'idempotency-key': `session-${i}` });
    ok(session, 201);
    const paid = await t.api(undefined, 'POST', `/checkout/${session.body.sessionId}/pay`, { token: await token(pan, session.body.sessionId), saveCard: true });
    assert.ok(paid.status < 500, JSON.stringify(paid.body));
    payments.push(session.body.paymentId);
  }
  ok(await t.api(key, 'POST', `/api/v1/payments/${payments[1]}/capture`, { amount: 1_000 }), 200);
  ok(await t.api(key, 'POST', `/api/v1/payments/${payments[0]}/refund`, { amountCents: 500, reason: 'partial' }, { 'idempotency-key': 'refund-1' }), 201);
  ok(await t.api(key, 'POST', `/api/v1/payments/${payments[0]}/refund`, {}), 201);
  // A card saved through a wallet session (zero-amount verification).
  const wallet = await t.api(key, 'POST', `/api/v1/customers/${customer.body.id}/sessions`, { returnUrl: 'https://shop.example/w' });
  ok(wallet, 201);
  ok(await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${wallet.body.sessionId}/submit`, { token: await token(PANS[1]!, wallet.body.sessionId) }), 200);

  // Failures that carry card data: a Luhn-invalid number, a number in the wrong field, a bad expiry.
  const open = await t.api(key, 'POST', `/api/v1/customers/${customer.body.id}/sessions`, { returnUrl: 'https://shop.example/w' });
  ok(open, 201);
  for (const body of [
    { mode: 'test', number: '4242424242424241', expMonth: 12, expYear: 2040, cvc: '123' },
    { mode: 'test', number: PANS[0], expMonth: 13, expYear: 2040, cvc: '123' },
    { mode: 'test', number: PANS[0], expMonth: 12, expYear: 2040, cvc: PANS[0] },
    { mode: 'test', number: PANS[0], expMonth: 12, expYear: 2040, cvc: '123', extra: PANS[2] },
    { mode: 'nope', number: PANS[2], expMonth: 12, expYear: 2040, cvc: '123' },
  ]) {
    const res = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { ...body, session: open.body.sessionId });
    assert.ok(res.status >= 400 && res.status < 500, JSON.stringify(res.body));
    for (const pan of PANS) assert.ok(!JSON.stringify(res.body).includes(pan), `error answer echoes a card number: ${JSON.stringify(res.body)}`);
  }
  // The back-office: a user set up through its link, two-factor turned on, a key made from the back-office. The
  // password, the link's signature, the session cookie, the TOTP secret and the recovery codes appear nowhere.
  const password = 'a long back-office password 42';
  const user = await t.admin('POST', `/admin/v1/merchants/${m.id}/users`, { email: 'owner@secret.example', role: 'owner' });
  ok(user, 201);
  const setupToken = String(user.body.setupUrl).split('/').at(-1)!;
  issued.push(password, setupToken.split('.')[1]!);
  ok(await t.api(undefined, 'GET', `/dashboard/api/setup/${setupToken}`), 200);
  const setUp = await t.api(undefined, 'POST', '/dashboard/api/setup', { token: setupToken, password });
  ok(setUp, 200);
  const cookie = String(setUp.headers['set-cookie']).split(';')[0]!;
  issued.push(cookie.split('=')[1]!);
  const asUser = { cookie, 'x-csrf-token': setUp.body.csrfToken };
  const totp = await t.api(undefined, 'POST', '/dashboard/api/two-factor/setup', undefined, asUser);
  ok(totp, 200);
  const { TOTP, Secret } = await import('otpauth');
  const enabled = await t.api(undefined, 'POST', '/dashboard/api/two-factor/enable', { code: new TOTP({ secret: Secret.fromBase32(totp.body.secret) }).generate() }, asUser);
  ok(enabled, 200);
  issued.push(totp.body.secret, ...enabled.body.recoveryCodes);
  ok(await t.api(undefined, 'POST', '/dashboard/api/sign-in', { email: 'owner@secret.example', password, code: enabled.body.recoveryCodes[0] }), 200);
  const boKey = await t.api(undefined, 'POST', '/dashboard/api/keys', {}, asUser);
  ok(boKey, 201);
  issued.push(boKey.body.secretKey);

  // Every public page reached by an unguessable address, opened as the customer would: the address is its key.
  await capabilityPages(run, key, customer.body.id, m.id);

  // A secret key sent where it does not belong, and a wrong key.
  await t.api(`sk_test_${'Z'.repeat(32)}`, 'GET', '/api/v1/payments');
  issued.push(`sk_test_${'Z'.repeat(32)}`);

  // Webhooks delivered to the loopback receiver, signed with the (decrypted) current secret.
  await receiver.waitFor((all) => all.filter((r) => r.path === '/notify').length >= PANS.length && all.some((r) => r.path === '/endpoint'), 20_000);
  for (const r of receiver.received) {
    const expected = createHmac('sha256', rotated.body.webhookSecret).update(r.raw).digest('hex');
    const v1 = String(r.headers['x-service-signature'] ?? '');
    assert.ok(v1.split(',').includes(expected) || v1 === expected, `delivery not signed with the current secret: ${v1}`);
  }
}

/**
 * The pages whose address is a bearer capability, each requested: a payment session's page, its 3-D Secure bank page
 * and return, its receipt; a wallet session and a card link; a hosted invoice page and its PDF. Their ids and tokens
 * go to run.capabilities.
 */
async function capabilityPages(run: Run, key: string, customerId: string, merchantId: string): Promise<void> {
  const { t, capabilities } = run;
  const ok = (res: { status: number; body: unknown }, status: number) => assert.equal(res.status, status, JSON.stringify(res.body));
  const path = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');
  const session = await t.api(key, 'POST', '/api/v1/payments/sessions', {
    order: { reference: 'CAP-1', amount: 1_500, currency: 'EUR' }, redirectUrl: 'https://shop.example/return', notificationUrl: run.receiver.url('/notify'),
    email: 'buyer@example.com',
  });
  ok(session, 201);
  const sessionId = session.body.sessionId as string;
  capabilities.push(sessionId);
  ok(await t.api(undefined, 'GET', `/checkout/${sessionId}`), 200);
  const token = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.challenge, expMonth: 12, expYear: 2040, cvc: '123', session: sessionId });
  ok(token, 201);
  const pay = await t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token: token.body.token });
  ok(pay, 200);
  const challenge = path(String(pay.body.url));
  const authorizationId = challenge.split('/').at(-1)!;
  assert.match(challenge, /^\/acquirer\/v1\/3ds\/[^/]+$/, JSON.stringify(pay.body));
  capabilities.push(authorizationId);
  ok(await t.api(undefined, 'GET', challenge), 200);
  const approved = await t.api(undefined, 'POST', challenge, { result: 'success' });
  assert.ok(approved.status < 400, JSON.stringify(approved.body));
  ok(await t.api(undefined, 'GET', `/checkout/${sessionId}/3ds-return?authorizationId=${authorizationId}`), 200);
  assert.ok((await t.api(undefined, 'GET', `/checkout/success?sessionId=${sessionId}`)).status < 400);
  assert.ok((await t.api(undefined, 'GET', `/checkout/success/receipt.pdf?sessionId=${sessionId}`)).status < 500);

  const link = await t.api(key, 'POST', `/api/v1/customers/${customerId}/card-links`, { sendEmail: false });
  ok(link, 201);
  capabilities.push(path(String(link.body.url)).split('/').at(-1)!);
  ok(await t.api(undefined, 'GET', path(String(link.body.url))), 200);

  const identity = { legalName: 'Secret Shop SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' }, registrationNumber: 'TAHITI A12345', taxId: '123456' };
  ok(await t.admin('PATCH', `/admin/v1/merchants/${merchantId}`, identity), 200);
  const invoice = await t.api(key, 'POST', '/api/v1/billing/invoices', { customerId, currency: 'XPF', lines: [{ description: 'Loyer', quantity: 1, unitPrice: 85_000 }] });
  ok(invoice, 201);
  ok(await t.api(key, 'POST', `/api/v1/billing/invoices/${invoice.body.id}/finalize`, {}), 200);
  const sent = await t.api(key, 'POST', `/api/v1/billing/invoices/${invoice.body.id}/send`, {});
  ok(sent, 200);
  const page = path(String(sent.body.url));
  capabilities.push(page.split('/').at(-1)!);
  ok(await t.api(undefined, 'GET', page), 200);
  ok(await t.api(undefined, 'GET', `${page}/pdf?lang=en`), 200);
  assert.equal((await t.api(undefined, 'GET', `${page}x/pdf`)).status, 404, 'a mistyped token is logged redacted too');
}

eachDatabase('secrets at rest and in logs', (dialect) => {
  let run: Run;

  before(async () => {
    run = await start(dialect);
    try {
      await fullFlow(run);
    } finally {
      await run.workers.stop(); // a failed step must not leave the worker polling
    }
  });
  after(async () => {
    await run?.receiver.close();
    await run?.t.app.close();
    await run?.database.drop();
  });

  test('no card number, secret key or webhook secret in the logs', () => {
    const text = run.logs.join('');
    assert.ok(run.logs.length > 20, `only ${run.logs.length} log lines: is the logger wired?`);
    for (const pan of PANS) for (const form of panForms(pan)) assert.ok(!text.includes(form), `card number ${form} in the logs`);
    for (const secret of run.issued) assert.ok(!text.includes(secret), `secret ${secret.slice(0, 10)}… in the logs`);
    for (const pattern of SECRET_PATTERNS) assert.ok(!pattern.test(text), `${pattern} in the logs: ${text.match(pattern)?.[0]}`);
  });

  test('no bearer capability in the logs: session ids, 3-D Secure pages, card links, set-up links, invoice page tokens', () => {
    const text = run.logs.join('');
    assert.ok(run.capabilities.length >= 4, `${run.capabilities.length} capabilities`);
    for (const capability of run.capabilities) assert.ok(!text.includes(capability), `${capability.slice(0, 12)}… in the logs`);
    const urls = run.logs.map((line) => JSON.parse(line) as { url?: string }).filter((l) => l.url).map((l) => l.url!);
    for (const prefix of ['/invoices/', '/acquirer/v1/3ds/', '/wallet/', '/checkout/']) {
      assert.ok(urls.some((u) => u.startsWith(prefix)), `a request to ${prefix}… was logged`);
    }
    assert.ok(urls.includes('/invoices/[redacted]') && urls.includes('/invoices/[redacted]/pdf?lang=en'), 'the page is still told, the token not');
  });

  test('no card number, secret key or webhook secret in any column of any table', async () => {
    const values = await everyStoredValue(run.t.db);
    assert.ok(values.length > 200, `${values.length} stored values`);
    for (const { table, column, value } of values) {
      for (const pan of PANS) for (const form of panForms(pan)) assert.ok(!value.includes(form), `card number in ${table}.${column}`);
      for (const secret of run.issued) assert.ok(!value.includes(secret), `secret ${secret.slice(0, 10)}… in ${table}.${column}`);
      for (const pattern of SECRET_PATTERNS) assert.ok(!pattern.test(value), `${pattern} in ${table}.${column}`);
    }
    const sealed = await run.t.db.kysely.selectFrom('webhook_secrets').selectAll().execute();
    assert.ok(sealed.length >= 2);
    for (const row of sealed) {
      assert.ok(SecretBox.isSealed(row.secret), 'webhook secret not sealed');
      if (row.previous_secret) assert.ok(SecretBox.isSealed(row.previous_secret), 'previous webhook secret not sealed');
    }
  });

  test('without MOTU_SECRETS_KEY the key is generated once, kept in the data folder with mode 0600', () => {
    const file = path.join(run.database.dataDir, SECRETS_KEY_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(secretBoxFor(run.config), secretBoxFor({ ...run.config }));
  });

  test('secrets written in clear before encryption are sealed at start-up and still sign', async () => {
    const row = await run.t.db.kysely.selectFrom('webhook_secrets').selectAll().where('mode', '=', 'live').executeTakeFirstOrThrow();
    const clear = `whsec_${'L'.repeat(32)}`;
    await run.t.db.kysely.updateTable('webhook_secrets').set({ secret: clear }).where('merchant_id', '=', row.merchant_id).where('mode', '=', 'live').execute();
    const app = await buildApp(run.config, { db: run.t.db, adminTokenHash: sha256Hex(ADMIN_TOKEN), clock: systemClock });
    await app.close();
    const after = await run.t.db.kysely.selectFrom('webhook_secrets').select('secret').where('merchant_id', '=', row.merchant_id).where('mode', '=', 'live').executeTakeFirstOrThrow();
    assert.ok(SecretBox.isSealed(after.secret));
    assert.equal(secretBoxFor(run.config).open(after.secret), clear);
  });
});

test('secret box: round trip, tamper detection, wrong key, MOTU_SECRETS_KEY validation', () => {
  const a = new SecretBox(Buffer.alloc(32, 1), 'env');
  const b = new SecretBox(Buffer.alloc(32, 2), 'env');
  const sealed = a.seal('whsec_x');
  assert.notEqual(a.seal('whsec_x'), sealed, 'a fresh IV each time');
  assert.equal(a.open(sealed), 'whsec_x');
  assert.throws(() => b.open(sealed), /MOTU_SECRETS_KEY/);
  const raw = Buffer.from(sealed.slice(3), 'base64');
  raw[raw.length - 1]! ^= 1;
  assert.throws(() => a.open(`v1:${raw.toString('base64')}`));
  assert.throws(() => parseConfig({ MOTU_SECRETS_KEY: 'short' }), /MOTU_SECRETS_KEY/);
  assert.throws(() => parseConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://x@127.0.0.1/db' }), /MOTU_SECRETS_KEY/);
  assert.equal(parseConfig({ MOTU_SECRETS_KEY: 'ab'.repeat(32) }).secretsKey, 'ab'.repeat(32));
  assert.ok(parseConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://x@127.0.0.1/db', MOTU_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') }));
});
