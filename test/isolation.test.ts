// Isolation matrix (issue 6, reliability 5): no key reads or changes another merchant's objects, the other mode's
// objects, or — for a key attached to a store — the payments of another store (docs/reliability.md, "Isolation").
// Every /api/v1 route that names an object by id is driven by every foreign key; lists must not show the objects.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase, startApp, type TestApp } from './support/harness.js';
import { createKey, createMerchant, createStore } from './support/factories.js';
import { createSession, paidPayment } from './support/payments.js';
import { createCustomer, saveCard } from './support/wallet.js';
import { rowCounts, tableNames } from './support/tables.js';

interface Victim {
  key: string;
  storeKey: string;
  ids: Record<string, string>;
}

/** Every /api/v1 route with an {id}, the victim object it is aimed at, and a body that would succeed for the owner. */
const BY_ID: Record<string, { target: string; body?: unknown; storeScoped?: boolean }> = {
  'GET /api/v1/customers/{id}': { target: 'customer' },
  'PATCH /api/v1/customers/{id}': { target: 'customer', body: { name: 'Taken over' } },
  'GET /api/v1/payments/sessions/{id}': { target: 'session', storeScoped: true },
  'GET /api/v1/payments/{id}': { target: 'captured', storeScoped: true },
  'POST /api/v1/payments/{id}/capture': { target: 'manual', body: {}, storeScoped: true },
  'POST /api/v1/payments/{id}/cancel': { target: 'manual', body: {}, storeScoped: true },
  'POST /api/v1/payments/{id}/refund': { target: 'captured', body: { amountCents: 100 }, storeScoped: true },
  'GET /api/v1/payments/{id}/refunds': { target: 'captured', storeScoped: true },
  'GET /api/v1/webhook-endpoints/{id}': { target: 'endpoint' },
  'PATCH /api/v1/webhook-endpoints/{id}': { target: 'endpoint', body: { url: 'https://evil.example/x' } },
  'DELETE /api/v1/webhook-endpoints/{id}': { target: 'endpoint' },
  'GET /api/v1/events/{id}': { target: 'event', storeScoped: true },
  'GET /api/v1/events/{id}/deliveries': { target: 'event', storeScoped: true },
  'POST /api/v1/events/{id}/resend': { target: 'event', body: {}, storeScoped: true },
  'GET /api/v1/customers/{id}/payment-methods': { target: 'customer' },
  'GET /api/v1/payment-methods/{id}': { target: 'paymentMethod' },
  'DELETE /api/v1/payment-methods/{id}': { target: 'paymentMethod' },
  'POST /api/v1/test-helpers/payment-methods/{id}/invalidate': { target: 'paymentMethod', body: { reason: 'disabled' } },
  'POST /api/v1/customers/{id}/sessions': { target: 'customer', body: { returnUrl: 'https://evil.example/w' } },
  'POST /api/v1/customers/{id}/card-links': { target: 'customer', body: {} },
  'GET /api/v1/card-links/{id}': { target: 'cardLink' },
  'POST /api/v1/card-links/{id}/cancel': { target: 'cardLink', body: {} },
};
/** Routes with {id} that a secret key does not drive: the SDK routes are authenticated by the session id itself. */
const NOT_KEYED = new Set(['GET /api/v1/sdk/sessions/{id}', 'POST /api/v1/sdk/sessions/{id}/submit']);

/** Creation routes that take another object's id in the body: a foreign id must be refused, nothing charged. */
function crossReferences(ids: Record<string, string>): Array<[string, string, unknown]> {
  const session = { order: { reference: 'X', amount: 500, currency: 'EUR' }, redirectUrl: 'https://evil.example/r', notificationUrl: 'https://evil.example/n' };
  return [
    ['POST', '/api/v1/payments', { paymentMethodId: ids.paymentMethod, order: session.order, notificationUrl: session.notificationUrl }],
    ['POST', '/api/v1/payments/sessions', { ...session, customerId: ids.customer }],
    ['POST', '/api/v1/payments/sessions', { ...session, storeId: ids.store2 }],
    ['POST', '/api/v1/payments/links', { ...session, customerId: ids.customer }],
    ['POST', '/api/v1/payments/sessions', { ...session, merchantConfigId: ids.contract }],
  ];
}

async function victim(t: TestApp): Promise<Victim> {
  const m = await createMerchant(t, 'Victim');
  const s1 = await createStore(t, m.id, { code: 'V-1' });
  const s2 = await createStore(t, m.id, { code: 'V-2' });
  const storeKey = await createKey(t, m.id, { mode: 'test', storeId: s1.id });
  const customer = await createCustomer(t, m.testKey);
  const saved = await saveCard(t, m.testKey, customer);
  const captured = await paidPayment(t, m.testKey, { storeId: s2.id });
  const manual = await paidPayment(t, m.testKey, { storeId: s2.id, captureMode: 'MANUAL' });
  const pending = await createSession(t, m.testKey, { storeId: s2.id });
  const endpoint = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: 'https://shop.example/hooks', events: ['*'] });
  assert.equal(endpoint.status, 201);
  const link = await t.api(m.testKey, 'POST', `/api/v1/customers/${customer}/card-links`, {});
  assert.equal(link.status, 201, JSON.stringify(link.body));
  const events = await t.api(m.testKey, 'GET', `/api/v1/events?paymentId=${captured}&limit=1`);
  assert.equal(events.status, 200);
  return {
    key: m.testKey,
    storeKey: storeKey.secretKey,
    ids: {
      merchant: m.id, contract: m.defaultContractId, store1: s1.id, store2: s2.id, customer,
      paymentMethod: saved.result.paymentMethodId, captured, manual, session: pending.sessionId,
      endpoint: endpoint.body.id, cardLink: link.body.id, event: events.body.data[0].id,
    },
  };
}

/** What the victim's objects look like to their owner: compared before and after the attacks. */
async function snapshot(t: TestApp, v: Victim) {
  const get = async (url: string) => {
    const res = await t.api(v.key, 'GET', url);
    assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const payment = async (id: string) => {
    const p = await get(`/api/v1/payments/${id}`);
    return { status: p.status, refunds: p.refunds?.length, captured: p.capturedAmount ?? p.amountCaptured };
  };
  return {
    captured: await payment(v.ids.captured!),
    manual: await payment(v.ids.manual!),
    customer: await get(`/api/v1/customers/${v.ids.customer}`),
    paymentMethod: (await get(`/api/v1/payment-methods/${v.ids.paymentMethod}`)).status,
    endpoint: await get(`/api/v1/webhook-endpoints/${v.ids.endpoint}`),
    cardLink: (await get(`/api/v1/card-links/${v.ids.cardLink}`)).status,
  };
}

eachDatabase('isolation matrix', (dialect) => {
  let t: TestApp;
  let v: Victim;
  let attackers: Array<{ name: string; key: string }>;
  let tables: string[];
  let checked = 0;

  before(async () => {
    t = await startApp(dialect);
    v = await victim(t);
    const other = await createMerchant(t, 'Intruder');
    await createStore(t, other.id, { code: 'V-2' }); // same store code as the victim's: codes are per merchant
    const otherStoreKey = await createKey(t, other.id, { mode: 'test' });
    const victimLiveRead = await createKey(t, v.ids.merchant!, { mode: 'live', permission: 'read' });
    const victimMerchant = await t.api(undefined, 'GET', '/healthz');
    assert.equal(victimMerchant.status, 200);
    attackers = [
      { name: 'another merchant (test key)', key: other.testKey },
      { name: 'another merchant (live key)', key: other.liveKey },
      { name: 'another merchant (second test key)', key: otherStoreKey.secretKey },
      { name: 'same merchant, live mode', key: (await t.admin('GET', `/admin/v1/merchants/${v.ids.merchant}`)).body.liveSecretKey ?? '' },
      { name: 'same merchant, live mode (read key)', key: victimLiveRead.secretKey },
    ].filter((a) => a.key);
    const live = await createKey(t, v.ids.merchant!, { mode: 'live' });
    attackers.push({ name: 'same merchant, live mode (write key)', key: live.secretKey });
    tables = await tableNames(t.db);
  });
  after(async () => {
    await t?.close();
  });

  test('the matrix covers every /api/v1 route that takes an id', async () => {
    const doc = (await t.api(undefined, 'GET', '/api/v1/openapi.json')).body;
    for (const [path, methods] of Object.entries<Record<string, unknown>>(doc.paths)) {
      if (!path.startsWith('/api/v1/') || !path.includes('{id}')) continue;
      for (const method of Object.keys(methods)) {
        const route = `${method.toUpperCase()} ${path}`;
        assert.ok(BY_ID[route] || NOT_KEYED.has(route), `isolation matrix misses ${route}`);
      }
    }
  });

  test('foreign keys (other merchant, other mode) get 404 on every route by id, and change nothing', async () => {
    const before = await snapshot(t, v);
    const counts = await rowCounts(t.db, tables);
    for (const attacker of attackers) {
      for (const [route, spec] of Object.entries(BY_ID)) {
        const [method, path] = route.split(' ') as [string, string];
        const res = await t.api(attacker.key, method, path.replace('{id}', v.ids[spec.target]!), spec.body);
        // Indistinguishable from an id that exists nowhere: same status and code (404, or 403 for a read-only key,
        // or 503 ACQUIRER_NOT_CONFIGURED for a live key on an acquirer operation), never a success.
        const unknownId = `${v.ids[spec.target]!.split('_')[0]}_${'0'.repeat(22)}`;
        const control = await t.api(attacker.key, method, path.replace('{id}', unknownId), spec.body);
        checked++;
        assert.ok(res.status >= 400, `${attacker.name}: ${route} → ${res.status} ${JSON.stringify(res.body)}`);
        assert.deepEqual([res.status, res.body.code], [control.status, control.body.code], `${attacker.name}: ${route} → ${JSON.stringify(res.body)}`);
        if (!attacker.name.includes('read key') && !attacker.name.includes('live')) assert.equal(res.status, 404, `${attacker.name}: ${route}`);
      }
      for (const [method, path, body] of crossReferences(v.ids)) {
        // Stores and contracts are the merchant's, shared by both modes (the operator sets them): foreign only to others.
        const sharedAcrossModes = JSON.stringify(body).includes(v.ids.store2!) || JSON.stringify(body).includes(v.ids.contract!);
        if (sharedAcrossModes && attacker.name.startsWith('same merchant')) continue;
        const res = await t.api(attacker.key, method, path, body);
        checked++;
        assert.ok(res.status >= 400 && (res.status < 500 || res.body.code === 'ACQUIRER_NOT_CONFIGURED'), `${attacker.name}: ${method} ${path} ${JSON.stringify(body)} → ${res.status}`);
      }
    }
    assert.deepEqual(await snapshot(t, v), before);
    const after = await rowCounts(t.db, tables);
    delete after.idempotency_keys;
    delete counts.idempotency_keys;
    assert.deepEqual(after, counts, 'a foreign key wrote rows');
  });

  test('foreign keys see none of the objects in lists', async () => {
    for (const attacker of attackers) {
      const shared = attacker.name.startsWith('same merchant') ? [v.ids.merchant, v.ids.store1, v.ids.store2, v.ids.contract] : [];
      const all = new Set(Object.values(v.ids).filter((id) => !shared.includes(id)));
      for (const url of [
        '/api/v1/customers?limit=100', '/api/v1/payments?limit=100', `/api/v1/payments?storeId=${v.ids.store2}`, '/api/v1/payments?storeId=V-2',
        `/api/v1/payments?customerId=${v.ids.customer}`, '/api/v1/webhook-endpoints', '/api/v1/events?limit=100',
        `/api/v1/events?paymentId=${v.ids.captured}`, `/api/v1/customers?email=${encodeURIComponent('x')}`,
      ]) {
        const res = await t.api(attacker.key, 'GET', url);
        checked++;
        assert.ok(res.status === 200 || res.status === 404 || res.status === 400, `${url} → ${res.status}`);
        const text = JSON.stringify(res.body);
        for (const id of all) assert.ok(!text.includes(id), `${attacker.name}: ${url} shows ${id}`);
      }
      const secret = await t.api(attacker.key, 'GET', '/api/v1/webhooks/signing-secret');
      const mine = await t.api(v.key, 'GET', '/api/v1/webhooks/signing-secret');
      checked++;
      assert.notEqual(secret.body.webhookSecret, mine.body.webhookSecret, `${attacker.name} reads the victim's signing secret`);
    }
  });

  test("a store-bound key does not read or change another store's payments, refunds or events", async () => {
    const before = await snapshot(t, v);
    for (const [route, spec] of Object.entries(BY_ID)) {
      if (!spec.storeScoped) continue;
      const [method, path] = route.split(' ') as [string, string];
      const res = await t.api(v.storeKey, method, path.replace('{id}', v.ids[spec.target]!), spec.body);
      checked++;
      assert.equal(res.status, 404, `store key: ${route} → ${res.status} ${JSON.stringify(res.body)}`);
    }
    for (const url of ['/api/v1/payments?limit=100', `/api/v1/payments?storeId=${v.ids.store2}`, '/api/v1/events?limit=100', `/api/v1/events?paymentId=${v.ids.captured}`]) {
      const res = await t.api(v.storeKey, 'GET', url);
      checked++;
      const text = JSON.stringify(res.body);
      for (const id of [v.ids.captured!, v.ids.manual!, v.ids.event!]) assert.ok(!text.includes(id), `store key: ${url} shows ${id}`);
    }
    assert.deepEqual(await snapshot(t, v), before);
  });

  test("a store-bound key works on its own store's payments and on the merchant's shared objects", async () => {
    const own = await paidPayment(t, v.storeKey, { captureMode: 'MANUAL' });
    for (const url of [`/api/v1/payments/${own}`, `/api/v1/payments/${own}/refunds`, `/api/v1/customers/${v.ids.customer}`, `/api/v1/webhook-endpoints/${v.ids.endpoint}`]) {
      const res = await t.api(v.storeKey, 'GET', url);
      checked++;
      assert.equal(res.status, 200, `${url} → ${res.status} ${JSON.stringify(res.body)}`);
    }
    const list = await t.api(v.storeKey, 'GET', '/api/v1/payments?limit=100');
    assert.deepEqual(list.body.data.map((p: { id: string }) => p.id), [own]);
    const captured = await t.api(v.storeKey, 'POST', `/api/v1/payments/${own}/capture`, {});
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    const refunded = await t.api(v.storeKey, 'POST', `/api/v1/payments/${own}/refund`, { amountCents: 100 });
    assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
    const events = await t.api(v.storeKey, 'GET', `/api/v1/events?paymentId=${own}`);
    assert.ok(events.body.data.length >= 2, JSON.stringify(events.body));
    const event = await t.api(v.storeKey, 'GET', `/api/v1/events/${events.body.data[0].id}`);
    assert.equal(event.status, 200);
    checked += 5;
    console.log(`isolation [${dialect}]: ${checked} checks`);
  });
});
