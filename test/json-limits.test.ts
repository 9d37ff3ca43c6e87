// Free-form JSON (privateData, order.platformConfig, customer metadata) is bounded at validation: at most 16 levels
// deep, 100 keys per object, 16 KB as JSON (docs/payments.md, "Free-form JSON"). A raw body nested deeper than any
// route accepts is refused before parsing, on every route. What is stored can always be served.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { ADMIN_TOKEN, eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paySession } from './support/payments.js';
import { rowCounts, tableNames } from './support/tables.js';
import { saveCard } from './support/wallet.js';
import { createCustomer } from './support/factories.js';

/** A value nesting `depth` containers (objects and arrays alternating), the value itself the first. */
function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = depth; i >= 1; i--) value = i % 2 ? { k: value } : [value];
  return value;
}

const ORDER = { reference: 'ORD-J', amount: 1000, currency: 'EUR' };
const SESSION = { order: ORDER, redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/n' };

eachDatabase('free-form JSON limits', (dialect) => {
  let customerId: string;
  let paymentMethodId: string;
  let tables: string[];
  const { t, m } = withMerchantApp(dialect);
  before(async () => {
    customerId = await createCustomer(t, m.testKey);
    paymentMethodId = (await saveCard(t, m.testKey, customerId)).result.paymentMethodId;
    tables = await tableNames(t.db);
  });

  /** Every free-form field of every route, with a body holding `value` in it. */
  const cases = (value: unknown): Array<[string, string, string, unknown]> => [
    ['POST', '/api/v1/payments/sessions', 'privateData', { ...SESSION, privateData: value }],
    ['POST', '/api/v1/payments/sessions', 'order.platformConfig', { ...SESSION, order: { ...ORDER, platformConfig: value } }],
    ['POST', '/api/v1/payments/links', 'privateData', { ...SESSION, privateData: value }],
    ['POST', '/api/v1/payments/links', 'order.platformConfig', { ...SESSION, order: { ...ORDER, platformConfig: value } }],
    ['POST', '/api/v1/payments', 'privateData', { paymentMethodId, order: ORDER, notificationUrl: SESSION.notificationUrl, privateData: value }],
    ['POST', '/api/v1/payments', 'order.platformConfig', { paymentMethodId, order: { ...ORDER, platformConfig: value }, notificationUrl: SESSION.notificationUrl }],
    ['POST', '/api/v1/customers', 'metadata', { email: 'j@example.com', metadata: value }],
    ['PATCH', `/api/v1/customers/${customerId}`, 'metadata', { metadata: value }],
  ];

  test('a free-form field nested deeper than 16 levels, or with an object of more than 100 keys, is 400 naming it; nothing is written', async () => {
    const wide = { inner: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) };
    const large = { text: 'x'.repeat(17_000) };
    for (const [value, words] of [[{ a: nested(16) }, /16 levels/], [wide, /100 keys/], [large, /16384 bytes/]] as const) {
      for (const [method, url, field, body] of cases(value)) {
        const before = await rowCounts(t.db, tables);
        const res = await t.api(m.testKey, method, url, body);
        assert.equal(res.status, 400, `${method} ${url} ${field}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'VALIDATION_ERROR');
        assert.equal(res.body.details.field, field, JSON.stringify(res.body));
        assert.match(res.body.fields.find((f: any) => f.field === field).message, words);
        assert.deepEqual(await rowCounts(t.db, tables), before, `${method} ${url} wrote rows`);
      }
    }
  });

  test('a body nesting 5,000 arrays (10 KB) is a 400, never a 500, on every route, with or without Idempotency-Key', async () => {
    const openapi = await t.api(undefined, 'GET', '/api/v1/openapi.json');
    const adminDoc = await t.api(ADMIN_TOKEN, 'GET', '/admin/v1/openapi.json');
    const deepArrays = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const inField = `{"privateData":{"a":${deepArrays}},"order":${JSON.stringify(ORDER)}}`;
    let routes = 0;
    for (const [path, methods] of Object.entries<Record<string, unknown>>({ ...openapi.body.paths, ...adminDoc.body.paths })) {
      for (const method of Object.keys(methods)) {
        if (method !== 'post' && method !== 'patch') continue;
        routes++;
        const url = path.replace('{id}', customerId);
        const auth = path.startsWith('/admin/') ? ADMIN_TOKEN : m.testKey;
        for (const raw of [deepArrays, inField]) {
          const before = await rowCounts(t.db, tables);
          const res = await t.api(auth, method.toUpperCase(), url, raw, { 'content-type': 'application/json', 'idempotency-key': `deep-${routes}-${raw.length}` });
          assert.equal(res.status, 400, `${method} ${path}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.code, 'VALIDATION_ERROR');
          assert.equal(res.body.details.field, raw === inField ? 'privateData' : 'body');
          assert.deepEqual(await rowCounts(t.db, tables), before);
        }
      }
    }
    assert.ok(routes >= 15, `${routes} routes`);
    // The hosted page's and the card fields' JSON routes, and a route that does not exist.
    for (const url of ['/acquirer/v1/tokens', '/api/v1/sdk/sessions/ses_x/pay', '/api/v1/no-such-route']) {
      const res = await t.api(m.testKey, 'POST', url, deepArrays, { 'content-type': 'application/json' });
      assert.ok(res.status >= 400 && res.status < 500, `${url}: ${res.status}`);
      assert.equal(typeof res.body.code, 'string');
      assert.equal(typeof res.body.message, 'string');
    }
  });

  test('the deepest value allowed is stored and served: the payment, the payments list, the events list, the customer', async () => {
    const deepest = { a: nested(15) };
    const session = await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', { ...SESSION, email: 'deep@example.com', privateData: deepest, order: { ...ORDER, platformConfig: deepest } });
    assert.equal(session.status, 201, JSON.stringify(session.body));
    await paySession(t, session.body.sessionId);
    const charged = await t.api(m.testKey, 'POST', '/api/v1/payments', { paymentMethodId, order: ORDER, notificationUrl: SESSION.notificationUrl, privateData: deepest });
    assert.equal(charged.status, 201, JSON.stringify(charged.body));
    const customer = await t.api(m.testKey, 'PATCH', `/api/v1/customers/${customerId}`, { metadata: deepest });
    assert.equal(customer.status, 200, JSON.stringify(customer.body));

    const one = await t.api(m.testKey, 'GET', `/api/v1/payments/${session.body.paymentId}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.privateData.a, deepest.a);
    assert.deepEqual(one.body.order.platformConfig, deepest);
    const list = await t.api(m.testKey, 'GET', '/api/v1/payments?limit=100');
    assert.equal(list.status, 200, JSON.stringify(list.body).slice(0, 300));
    assert.deepEqual(list.body.data.find((p: any) => p.id === charged.body.id).privateData, deepest);
    const events = await t.api(m.testKey, 'GET', '/api/v1/events?limit=100');
    assert.equal(events.status, 200, JSON.stringify(events.body).slice(0, 300));
    assert.ok(events.body.data.some((e: any) => e.data?.paymentId === charged.body.id && JSON.stringify(e.data.privateData) === JSON.stringify(deepest)));
    const got = await t.api(m.testKey, 'GET', `/api/v1/customers/${customerId}`);
    assert.deepEqual(got.body.metadata, deepest);
  });
});
