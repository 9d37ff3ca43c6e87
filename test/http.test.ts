// Transport behaviour on every route: the one error shape {code, message, details?}, internal failures, rate limits,
// the OpenAPI document, /docs, health, readiness and metrics.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { createLogger } from '../src/http/logger.js';
import { sha256Hex } from '../src/shared/hash.js';
import { ADMIN_TOKEN, eachDatabase, freshDatabase, } from './support/harness.js';
import { withApp, withMerchantApp } from './support/merchant-app.js';
import { createMerchant } from './support/factories.js';

function isErrorShape(body: any): void {
  assert.equal(typeof body, 'object');
  assert.equal(typeof body.code, 'string');
  assert.equal(typeof body.message, 'string');
  for (const key of Object.keys(body)) assert.ok(['code', 'message', 'details', 'fields'].includes(key), `unexpected key ${key}`);
  assert.doesNotMatch(JSON.stringify(body), /\bat .+\.(ts|js):\d+/, 'no stack trace');
}

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

eachDatabase('HTTP conventions', (dialect) => {
  const { t, m } = withMerchantApp(dialect, { env: { MOTU_METRICS_TOKEN: METRICS_TOKEN } });

  it('answers unknown routes with 404 and the error shape', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/nothing-here'],
      ['POST', '/api/v1/customers/cus_x/explode'],
      ['GET', '/no/such/page'],
      ['DELETE', '/api/v1/customers'],
    ] as const) {
      const res = await t.api(m.testKey, method, url);
      assert.equal(res.status, 404, `${method} ${url}`);
      isErrorShape(res.body);
      assert.equal(res.body.code, 'ROUTE_NOT_FOUND');
    }
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR naming the body', async () => {
    for (const payload of ['{"email": ', '{email: "x"}', 'null', '[1,2']) {
      const res = await t.api(m.testKey, 'POST', '/api/v1/customers', payload, { 'content-type': 'application/json' });
      assert.equal(res.status, 400, payload);
      isErrorShape(res.body);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.equal(typeof res.body.details.field, 'string');
      assert.ok(Array.isArray(res.body.fields) && res.body.fields.length > 0);
    }
    const empty = await t.api(m.testKey, 'POST', '/api/v1/customers', '', { 'content-type': 'application/json' });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.details.field, 'body');
  });

  it('answers a body that is not JSON with 400 VALIDATION_ERROR naming content-type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await t.api(m.testKey, 'POST', '/api/v1/customers', 'email=a@b.pf', { 'content-type': type });
      assert.equal(res.status, 400, type);
      isErrorShape(res.body);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.equal(res.body.details.field, 'content-type');
      assert.deepEqual(res.body.fields.map((f: { field: string }) => f.field), ['content-type']);
    }
  });

  it('answers an oversize body with 400 VALIDATION_ERROR and stores nothing', async () => {
    const big = JSON.stringify({ externalId: 'big-1', name: 'x', metadata: { blob: 'a'.repeat(t.config.bodyLimitBytes) } });
    const res = await t.api(m.testKey, 'POST', '/api/v1/customers', big, { 'content-type': 'application/json' });
    assert.equal(res.status, 400);
    isErrorShape(res.body);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.equal(res.body.details.field, 'body');
    const list = await t.api(m.testKey, 'GET', '/api/v1/customers?externalId=big-1');
    assert.deepEqual(list.body.data, []);
  });

  it('serves an OpenAPI 3.1 document listing the routes, and a reference page at /docs', async () => {
    const res = await t.api(undefined, 'GET', '/api/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    const paths = Object.keys(res.body.paths);
    for (const p of ['/api/v1/customers', '/api/v1/customers/{id}']) {
      assert.ok(paths.includes(p), `${p} in ${paths.join(', ')}`);
    }
    assert.ok(res.body.paths['/api/v1/customers'].post.requestBody, 'request bodies come from the route schemas');
    assert.ok(!paths.includes('/metrics') && !paths.includes('/healthz'));
    assert.ok(!paths.some((p) => p.startsWith('/admin/')), 'the admin API has its own document');
    const admin = await t.admin('GET', '/admin/v1/openapi.json');
    assert.ok(admin.body.paths['/admin/v1/keys/{id}']);
    assert.deepEqual(admin.body.security, [{ adminToken: [] }], 'admin routes take the admin token');
    assert.ok(res.body.components.securitySchemes.secretKey);

    let docs = await t.api(undefined, 'GET', '/docs');
    if (docs.status >= 300 && docs.status < 400) docs = await t.api(undefined, 'GET', String(docs.headers.location));
    assert.equal(docs.status, 200);
    assert.match(String(docs.headers['content-type']), /text\/html/);
    assert.match(String(docs.body), /<html/i);
  });

  it('serves /healthz, /readyz and Prometheus /metrics (to the scraper holding MOTU_METRICS_TOKEN)', async () => {
    const health = await t.api(undefined, 'GET', '/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');
    const ready = await t.api(undefined, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.database, dialect);
    await t.api(m.testKey, 'GET', '/api/v1/customers');
    const metrics = await t.api(METRICS_TOKEN, 'GET', '/metrics');
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.headers['content-type']), /^text\/plain/);
    assert.match(metrics.body, /^# HELP motu_http_requests_total /m);
    assert.match(metrics.body, /^motu_http_requests_total\{method="GET",route="\/api\/v1\/customers",status="200"\} \d+$/m);
    assert.match(metrics.body, /^motu_http_request_duration_seconds_bucket\{/m);
    assert.match(metrics.body, /^process_cpu_seconds_total /m);
  });
});

eachDatabase('rate limiting', (dialect) => {
  const { t } = withApp(dialect, { env: { MOTU_RATE_LIMIT_MAX: '3', MOTU_RATE_LIMIT_WINDOW_MS: '60000' } });

  it('answers 429 RATE_LIMITED with Retry-After past the limit, per key', async () => {
    const m = await createMerchant(t);
    for (let i = 0; i < 3; i++) assert.equal((await t.api(m.testKey, 'GET', '/api/v1/customers')).status, 200);
    const limited = await t.api(m.testKey, 'GET', '/api/v1/customers');
    assert.equal(limited.status, 429);
    isErrorShape(limited.body);
    assert.equal(limited.body.code, 'RATE_LIMITED');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60, `Retry-After ${limited.headers['retry-after']}`);
    // Writes are limited too, and nothing is written.
    const write = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'limited' });
    assert.equal(write.status, 429);
    // Another key of the same merchant has its own budget.
    assert.equal((await t.api(m.liveKey, 'GET', '/api/v1/customers')).status, 200);
    const list = await t.api(m.liveKey, 'GET', '/api/v1/customers?externalId=limited');
    assert.equal(list.status, 200);
  });

  it('one key has one budget however "Bearer" is written', async () => {
    const m = await createMerchant(t);
    const spellings = [`Bearer ${m.testKey}`, `bearer  ${m.testKey}`, `BEARER ${m.testKey}  `, `bEaReR\t${m.testKey}`, `Bearer   ${m.testKey}`];
    const statuses = [];
    for (const authorization of spellings) {
      const res = await t.api(undefined, 'GET', '/api/v1/customers', undefined, { authorization });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
  });

  it('requests that fail authentication are limited per client address', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      // Each a different unknown key, or none at all: neither gets a fresh budget.
      const headers: Record<string, string> = i % 2 ? {} : { authorization: `Bearer sk_test_${String(i).repeat(32)}` };
      const res = await t.api(undefined, 'GET', '/api/v1/customers', undefined, headers);
      statuses.push(res.status);
      if (res.status === 429) assert.equal(res.body.code, 'RATE_LIMITED');
      else assert.equal(res.body.code, 'UNAUTHORIZED');
    }
    assert.deepEqual(statuses, [401, 401, 401, 429, 429, 429]);
    // A real key still has its own budget.
    const m = await createMerchant(t);
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/customers')).status, 200);
  });
});

eachDatabase('internal failures', (dialect) => {
  it('answers 500 INTERNAL_ERROR with the request id, no stack, logs it, and /readyz turns 503 when the database is gone', async () => {
    const database = await freshDatabase(dialect);
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const config = parseConfig({ MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, MOTU_ADMIN_TOKEN: ADMIN_TOKEN });
    const app = await buildApp(config, { db: database.db, adminTokenHash: sha256Hex(ADMIN_TOKEN), logger: createLogger('info', sink) });
    try {
      const created = await app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { name: 'Doomed' } });
      assert.equal(created.statusCode, 201);
      const key = created.json().testSecretKey as string;

      await database.db.close(); // the database disappears under the running app

      const res = await app.inject({ method: 'POST', url: '/api/v1/customers', headers: { authorization: `Bearer ${key}` }, payload: { name: 'x' } });
      assert.equal(res.statusCode, 500);
      const body = res.json();
      isErrorShape(body);
      assert.equal(body.code, 'INTERNAL_ERROR');
      assert.equal(typeof body.details.requestId, 'string');
      assert.doesNotMatch(res.body, /stack|Error:|destroyed|pool/i);

      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.level === 50 && l.reqId === body.details.requestId);
      assert.ok(logged, 'the failure is logged with its request id');
      // At info, one line per request, once answered, with the request id (not Fastify's two lines).
      const completed = lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === body.details.requestId && l.level === 30);
      assert.equal(completed.length, 1, JSON.stringify(completed));
      assert.equal(completed[0].msg, 'request completed');
      assert.equal(completed[0].statusCode, 500);
      assert.equal(completed[0].route, '/api/v1/customers');
      assert.equal(typeof completed[0].responseTime, 'number');
      assert.ok(logged.err?.stack, 'the log, not the body, carries the stack');
      // No secret in any log line: neither the merchant key nor the admin token.
      const all = lines.join('\n');
      assert.ok(!all.includes(key), 'secret key not logged');
      assert.ok(!all.includes(ADMIN_TOKEN), 'admin token not logged');
      assert.ok(!all.includes(created.json().testWebhookSecret), 'webhook secret not logged');

      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      isErrorShape(ready.json());
      assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    } finally {
      await app.close();
      await database.drop();
    }
  });
});
