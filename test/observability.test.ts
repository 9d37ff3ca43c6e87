// What an operator watches: the queue gauges of /metrics (webhook deliveries, mails), X-Request-Id on every answer
// (the reqId of the logs and the requestId of a 500), /metrics behind a token or on a loopback port of its own and
// nowhere otherwise, failing
// test-mode deliveries logged at warn (without URL, body, signature or secret), and logs for people in development.
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { ConfigError, parseConfig } from '../src/config.js';
import { createLogger, prettyStream } from '../src/http/logger.js';
import { newId } from '../src/shared/ids.js';
import { sha256Hex } from '../src/shared/hash.js';
import { startWorkers } from '../src/start/workers.js';
import { ADMIN_TOKEN, eachDatabase, freshDatabase, startApp } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { freePort } from './support/ports.js';
import { eventually } from './support/wait.js';

const OURS = /^[A-Za-z0-9_-]{12}-[0-9a-z]+$/;
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** The value of an unlabelled gauge in Prometheus text. */
function gauge(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  assert.ok(match, `${name} in /metrics`);
  return Number(match[1]);
}

/** The operator's scraper: /metrics on the app's port with the token. */
async function scrape(t: { app: { inject: (o: object) => Promise<{ body: string }> } }): Promise<string> {
  return (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
}

/** An address of this machine other than loopback, if it has one. */
function outsideAddress(): string | undefined {
  return Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

function sink(lines: string[]): Writable {
  return new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
}

eachDatabase('observability: queue gauges and failing deliveries', (dialect) => {
  const { t, m, rx } = withMerchantApp(dialect, { receiver: true, env: { MOTU_WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0', MOTU_METRICS_TOKEN: METRICS_TOKEN } });

  it('show a pending and an abandoned delivery; each failed test-mode attempt is a warn line without URL, body, signature or secret', { timeout: 60_000 }, async () => {
    rx.on('/down', () => ({ status: 503, body: 'receiver body must not be logged' }));
    const down = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: `${rx.url('/down')}?token=merchant-own-secret`, events: ['*'] });
    assert.equal(down.status, 201, JSON.stringify(down.body));
    assert.equal((await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Teva' })).status, 201);

    const logged: Array<{ level: 'info' | 'warn' | 'error'; obj: Record<string, unknown>; msg?: string }> = [];
    const logger = {
      info: (obj: object, msg?: string) => void logged.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
      warn: (obj: object, msg?: string) => void logged.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
      error: (obj: object, msg?: string) => void logged.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
    };
    const workers = startWorkers(t.config, t.db, t.clock, logger, { jobs: [] });
    try {
      const abandoned = () => t.db.kysely.selectFrom('webhook_deliveries').select('id').where('merchant_id', '=', m.id).where('status', '=', 'abandoned').execute();
      await eventually('the delivery abandoned after its five retries', async () => (await abandoned()).length === 1, 30_000, 50);
    } finally {
      await workers.stop();
    }
    const failed = logged.filter((l) => l.msg === 'test-mode webhook attempt failed; it will be retried');
    assert.equal(failed.length, 5, JSON.stringify(logged));
    for (const [i, l] of failed.entries()) {
      assert.equal(l.level, 'warn');
      assert.equal(l.obj.mode, 'test');
      assert.equal(l.obj.attempt, i + 1);
      assert.equal(l.obj.statusCode, 503);
      assert.equal(l.obj.error, 'HTTP 503');
      assert.equal(l.obj.endpointId, down.body.id);
      assert.equal(typeof l.obj.nextAttemptAt, 'string');
    }
    assert.ok(logged.some((l) => l.level === 'warn' && l.msg === 'webhook abandoned; endpoint taken out of service' && l.obj.attempt === 6));
    const all = JSON.stringify(logged);
    for (const secret of [m.testWebhookSecret, 'merchant-own-secret', 'receiver body must not be logged', rx.url('/down'), 'Teva', 'v1=']) {
      assert.ok(!all.includes(secret), `the logs do not carry ${secret}`);
    }

    // A second endpoint, and an event no worker sends: one pending delivery.
    const later = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/later'), events: ['*'] });
    assert.equal(later.status, 201);
    assert.equal((await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Hina' })).status, 201);
    let text = await scrape(t);
    assert.equal(gauge(text, 'motu_webhook_deliveries_pending'), 1);
    assert.equal(gauge(text, 'motu_webhook_deliveries_retrying'), 0);
    assert.equal(gauge(text, 'motu_webhook_deliveries_abandoned'), 1);
    const age = gauge(text, 'motu_webhook_deliveries_oldest_pending_age_seconds');
    assert.ok(age >= 0 && age < 30, `oldest pending ${age} s`);

    // Queued a minute ago and failed once: counted as retrying, and its age read from when it was queued.
    await t.db.kysely.updateTable('webhook_deliveries')
      .set({ attempt_count: 1, created_at: new Date(Date.now() - 60_000).toISOString() })
      .where('merchant_id', '=', m.id).where('status', '=', 'pending').execute();
    text = await scrape(t);
    assert.equal(gauge(text, 'motu_webhook_deliveries_pending'), 1);
    assert.equal(gauge(text, 'motu_webhook_deliveries_retrying'), 1);
    const older = gauge(text, 'motu_webhook_deliveries_oldest_pending_age_seconds');
    assert.ok(older >= 60 && older < 90, `oldest pending ${older} s`);
  });

  it('show the mail queue: pending, retrying (tried before), failed for good, and the oldest pending one', async () => {
    const now = Date.now();
    const job = (status: 'pending' | 'sending' | 'failed' | 'sent', attempts: number, ageSeconds: number) => {
      const at = new Date(now - ageSeconds * 1000).toISOString();
      return {
        id: newId('mail'), merchant_id: m.id, mode: 'test' as const, kind: 'receipt' as const, subject_id: newId('pay'),
        recipient: 'qa@shop.example', locale: 'en', status, attempts, next_attempt_at: at,
        claim_token: status === 'sending' ? 'c' : null, lease_until: status === 'sending' ? new Date(now + 60_000).toISOString() : null,
        last_error: null, sent_at: null, created_at: at, updated_at: at,
      };
    };
    await t.db.kysely.insertInto('mail_jobs').values([
      job('pending', 0, 10), // due, never tried
      job('pending', 2, 300), // failed twice, waiting for its retry: the oldest pending
      job('sending', 1, 20), // first attempt under way
      job('sending', 3, 30), // a retry under way
      job('failed', 5, 4000), // given up
      job('sent', 1, 9000),
    ]).execute();
    const text = await scrape(t);
    assert.equal(gauge(text, 'motu_mail_jobs_pending'), 4);
    assert.equal(gauge(text, 'motu_mail_jobs_retrying'), 2);
    assert.equal(gauge(text, 'motu_mail_jobs_abandoned'), 1);
    const age = gauge(text, 'motu_mail_jobs_oldest_pending_age_seconds');
    assert.ok(age >= 300 && age < 330, `oldest pending mail ${age} s`);
  });
});

eachDatabase('observability: X-Request-Id', (dialect) => {
  const { t, m } = withMerchantApp(dialect);

  it('is on every answer: 200, 201, 404, 400 (schema, malformed path), 401', async () => {
    const answers = [
      await t.api(undefined, 'GET', '/healthz'),
      await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Moana' }),
      await t.api(undefined, 'GET', '/no/such/route'),
      await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 42 }),
      await t.api(m.testKey, 'GET', '/api/v1/payments/%FF'),
      await t.api('sk_test_wrong', 'GET', '/api/v1/customers'),
      await t.api(undefined, 'GET', '/metrics'),
    ];
    assert.deepEqual(answers.map((a) => a.status), [200, 201, 404, 400, 400, 401, 404]);
    const ids = answers.map((a) => a.headers['x-request-id']);
    for (const id of ids) assert.match(String(id), OURS);
    assert.equal(new Set(ids).size, ids.length, 'one id per request');
  });

  it("keeps the caller's id when it is a short safe token, and replaces any other", async () => {
    for (const given of ['abc-123', 'b3f1c2d4e5f60718293a4b5c6d7e8f90', 'trace:0001.a_b']) {
      const res = await t.api(undefined, 'GET', '/healthz', undefined, { 'x-request-id': given });
      assert.equal(res.headers['x-request-id'], given);
    }
    for (const given of ['a b', 'x'.repeat(65), '<script>', 'é', '"quoted"', '']) {
      const res = await t.api(undefined, 'GET', '/no/route', undefined, { 'x-request-id': given });
      assert.equal(res.status, 404);
      assert.match(String(res.headers['x-request-id']), OURS, JSON.stringify(given));
    }
  });

  it("is the log lines' reqId and a 500's details.requestId", async () => {
    const database = await freshDatabase(dialect);
    const lines: string[] = [];
    const config = parseConfig({ MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, MOTU_ADMIN_TOKEN: ADMIN_TOKEN });
    const app = await buildApp(config, { db: database.db, adminTokenHash: sha256Hex(ADMIN_TOKEN), logger: createLogger('info', sink(lines)) });
    try {
      const created = await app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { name: 'Tiare' } });
      assert.equal(created.statusCode, 201);
      const ours = String(created.headers['x-request-id']);
      assert.match(ours, OURS);
      const key = created.json().testSecretKey as string;
      await database.db.close(); // the database disappears: the next call is a 500
      const res = await app.inject({ method: 'POST', url: '/api/v1/customers', headers: { authorization: `Bearer ${key}`, 'x-request-id': 'lb-7f3a9c' }, payload: { name: 'x' } });
      assert.equal(res.statusCode, 500);
      assert.equal(res.headers['x-request-id'], 'lb-7f3a9c');
      assert.equal(res.json().details.requestId, 'lb-7f3a9c');
      const records = lines.map((l) => JSON.parse(l) as { reqId?: string; level: number; msg: string });
      assert.ok(records.some((r) => r.reqId === 'lb-7f3a9c' && r.level === 50), 'the error is logged with the request id');
      assert.ok(records.some((r) => r.reqId === 'lb-7f3a9c' && r.msg === 'request completed'));
      assert.ok(records.some((r) => r.reqId === ours && r.msg === 'request completed'));
    } finally {
      await app.close();
      await database.drop();
    }
  });
});

eachDatabase('observability: /metrics access', (dialect) => {
  it('neither MOTU_METRICS_TOKEN nor MOTU_METRICS_PORT: /metrics is nowhere, in production too (404 on the app\'s port)', async () => {
    for (const env of [{}, { NODE_ENV: 'production', MOTU_SECRETS_KEY: 'a'.repeat(64) }] as Array<Record<string, string>>) {
      const t = await startApp(dialect, { env });
      try {
        const res = await t.app.inject({ method: 'GET', url: '/metrics' });
        assert.equal(res.statusCode, 404, JSON.stringify(env));
        assert.equal(res.json().code, 'ROUTE_NOT_FOUND', 'as any unknown route');
        assert.ok(!res.body.includes('motu_http_requests_total'));
        assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      } finally {
        await t.close();
      }
    }
  });

  it('MOTU_METRICS_PORT without a token: served on 127.0.0.1 only, even with HOST=0.0.0.0; not on the app\'s port', async () => {
    const port = await freePort();
    const t = await startApp(dialect, { env: { HOST: '0.0.0.0', MOTU_METRICS_PORT: String(port) } });
    try {
      assert.equal((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404, 'not on the API port');
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /^# HELP motu_http_requests_total /m);
      const outside = outsideAddress();
      if (outside) await assert.rejects(fetch(`http://${outside}:${port}/metrics`), `nothing listens on ${outside}:${port}`);
    } finally {
      await t.close();
    }
  });

  it('MOTU_METRICS_TOKEN: 401 without the bearer token or with a wrong one, 200 with it', async () => {
    const t = await startApp(dialect, { env: { MOTU_METRICS_TOKEN: METRICS_TOKEN } });
    try {
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789abc', `Basic ${METRICS_TOKEN}`, `Bearer ${METRICS_TOKEN}x`]) {
        const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
        assert.equal(res.statusCode, 401, String(authorization));
        assert.equal(res.json().code, 'UNAUTHORIZED');
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"');
        assert.match(String(res.headers['x-request-id']), OURS);
        assert.ok(!res.body.includes(METRICS_TOKEN));
      }
      for (const authorization of [`Bearer ${METRICS_TOKEN}`, `bearer ${METRICS_TOKEN}`]) {
        const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
        assert.equal(res.statusCode, 200);
        assert.match(res.body, /^motu_webhook_deliveries_pending 0$/m);
      }
      assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'only /metrics asks for it');
    } finally {
      await t.close();
    }
  });

  it('MOTU_METRICS_PORT: /metrics only on its own port (with the token when set), from ready to close', async () => {
    const port = await freePort();
    const t = await startApp(dialect, { env: { MOTU_METRICS_PORT: String(port), MOTU_METRICS_TOKEN: METRICS_TOKEN } });
    const url = `http://127.0.0.1:${port}`;
    try {
      const onApp = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      assert.equal(onApp.statusCode, 404, 'not on the API port');
      const open = await fetch(`${url}/metrics`);
      assert.equal(open.status, 401);
      assert.match(String(open.headers.get('x-request-id')), OURS);
      const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /^text\/plain/);
      const text = await res.text();
      assert.equal(gauge(text, 'motu_mail_jobs_pending'), 0);
      assert.match(text, /^process_cpu_user_seconds_total /m);
      const other = await fetch(`${url}/healthz`);
      assert.equal(other.status, 404, 'nothing else on the metrics port');
      assert.match(String(other.headers.get('x-request-id')), OURS);
    } finally {
      await t.close();
    }
    await assert.rejects(fetch(`${url}/metrics`), 'the port is closed with the app');
  });
});

describe('observability: configuration and development logs', () => {
  const base = { MOTU_DATA_DIR: '/tmp/unused' };
  const refused = (env: Record<string, string>, variable: string) => {
    assert.throws(() => parseConfig({ ...base, ...env }), (err: unknown) => err instanceof ConfigError && err.variable === variable && err.message.includes(variable), JSON.stringify(env));
  };

  it('refuses a wrong MOTU_METRICS_PORT, MOTU_METRICS_TOKEN or LOG_FORMAT, naming it (and never echoing the token)', () => {
    refused({ MOTU_METRICS_PORT: 'nine' }, 'MOTU_METRICS_PORT');
    refused({ MOTU_METRICS_PORT: '70000' }, 'MOTU_METRICS_PORT');
    refused({ MOTU_METRICS_PORT: '0' }, 'MOTU_METRICS_PORT');
    refused({ PORT: '9100', MOTU_METRICS_PORT: '9100' }, 'MOTU_METRICS_PORT');
    refused({ MOTU_METRICS_TOKEN: 'short' }, 'MOTU_METRICS_TOKEN');
    refused({ MOTU_METRICS_TOKEN: 'has a space in it 0123456789' }, 'MOTU_METRICS_TOKEN');
    refused({ LOG_FORMAT: 'xml' }, 'LOG_FORMAT');
    try {
      parseConfig({ ...base, MOTU_METRICS_TOKEN: 'short-secret' });
    } catch (err) {
      assert.ok(!(err as Error).message.includes('short-secret'));
    }
    const both = { ...base, HOST: '0.0.0.0', MOTU_METRICS_PORT: '9464', MOTU_METRICS_TOKEN: ` ${METRICS_TOKEN} ` };
    assert.deepEqual(parseConfig(both).metrics, { on: 'port', port: 9464, host: '0.0.0.0', token: METRICS_TOKEN });
    assert.deepEqual(parseConfig({ ...both, MOTU_METRICS_TOKEN: '' }).metrics, { on: 'port', port: 9464, host: '127.0.0.1', token: undefined }, 'no token: loopback only');
    assert.deepEqual(parseConfig({ ...base, MOTU_METRICS_TOKEN: METRICS_TOKEN }).metrics, { on: 'app', token: METRICS_TOKEN });
    assert.deepEqual(parseConfig(base).metrics, { on: 'nowhere' });
  });

  it('logs for people: LOG_FORMAT=pretty, or a terminal outside production; JSON in production', () => {
    assert.equal(parseConfig(base).logFormat, 'auto');
    assert.equal(parseConfig({ ...base, NODE_ENV: 'production' }).logFormat, 'json');
    assert.equal(parseConfig({ ...base, NODE_ENV: 'production', LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
    assert.equal(parseConfig({ ...base, LOG_FORMAT: 'JSON' }).logFormat, 'json');

    const written: string[] = [];
    const logger = createLogger('info', prettyStream({ write: (text: string) => written.push(text), isTTY: false }));
    logger.info({ reqId: 'abc-1', method: 'GET', url: '/api/v1/customers', statusCode: 200, responseTime: 1.5 }, 'request completed');
    logger.warn({ deliveryId: 'whd_1', error: 'HTTP 503', headers: { authorization: 'Bearer sk_test_secret' } }, 'test-mode webhook attempt failed');
    logger.error({ err: new Error('boom') }, 'unhandled error');
    logger.debug('not at info');
    assert.equal(written.length, 3, written.join(''));
    assert.match(written[0]!, /^\d\d:\d\d:\d\d\.\d{3} INFO  \[abc-1\] request completed method=GET url=\/api\/v1\/customers statusCode=200 responseTime=1\.5\n$/);
    assert.match(written[1]!, /^\S+ WARN  test-mode webhook attempt failed deliveryId=whd_1 error="HTTP 503" headers=\{"authorization":"\[redacted\]"\}\n$/);
    assert.ok(!written.join('').includes('sk_test_secret'), 'redacted as in JSON');
    assert.match(written[2]!, /^\S+ ERROR unhandled error err="boom"\n {4}Error: boom\n {8}at /);
    assert.ok(!written.join('').includes('\x1b['), 'no colour when not a terminal');
  });

  it("a route's own log level holds for its requests: the card token endpoint logs nothing below warn", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const database = await freshDatabase('sqlite');
    const config = parseConfig({ MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, MOTU_ADMIN_TOKEN: ADMIN_TOKEN });
    const app = await buildApp(config, { db: database.db, adminTokenHash: sha256Hex(ADMIN_TOKEN), logger: createLogger('info', sink) });
    try {
      const token = await app.inject({ method: 'POST', url: '/acquirer/v1/tokens', payload: { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: 'ses_unknown' } });
      const health = await app.inject({ method: 'GET', url: '/healthz' });
      const completed = (res: { headers: Record<string, unknown> }) => lines.filter((l) => l.reqId === res.headers['x-request-id'] && l.msg === 'request completed');
      assert.equal(completed(health).length, 1, 'another route logs its line at info');
      assert.deepEqual(completed(token), [], `the token endpoint (${token.statusCode}) logs at warn and above only`);
    } finally {
      await app.close();
      await database.drop();
    }
  });
});
