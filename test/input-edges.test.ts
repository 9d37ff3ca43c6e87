// Small edges of input and storage: a leap second in a date filter, a URL that does not decode, the modes of the
// SQLite files, and session ids (bearer capabilities) in the request log.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { createLogger } from '../src/http/logger.js';
import { sha256Hex } from '../src/shared/hash.js';
import { ADMIN_TOKEN, eachDatabase, freshDatabase, type TestApp } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createMerchant } from './support/factories.js';
import { createSession } from './support/payments.js';

const LEAP = '2016-12-31T23:59:60Z';

eachDatabase('input edges', (dialect) => {
  const { t, m } = withMerchantApp(dialect);

  test('a leap second (or any time a Date cannot hold) in a date filter is 400 VALIDATION_ERROR naming the filter', async () => {
    const filters: Array<[string, string]> = [
      ['/api/v1/payments', 'createdFrom'], ['/api/v1/payments', 'createdTo'],
      ['/api/v1/events', 'createdAfter'], ['/api/v1/events', 'createdBefore'], ['/api/v1/events/stream', 'since'],
    ];
    for (const [route, name] of filters) {
      for (const value of [LEAP, '2016-12-31T23:59:60.5+10:00', '2021-02-30T00:00:00Z']) {
        const res = await t.api(m.testKey, 'GET', `${route}?${name}=${encodeURIComponent(value)}`);
        assert.equal(res.status, 400, `${route} ${name}=${value}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'VALIDATION_ERROR');
        assert.equal(res.body.details.field, name);
      }
      if (route !== '/api/v1/events/stream') {
        const ok = await t.api(m.testKey, 'GET', `${route}?${name}=${encodeURIComponent('2016-12-31T23:59:59.999Z')}`);
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
      }
    }
  });

  test('a URL that does not decode answers {code, message} (VALIDATION_ERROR naming url), on every prefix', async () => {
    for (const url of ['/api/v1/payments/%FF', '/api/v1/payments/sessions/%E0%A4%A', '/%FF', '/checkout/%C0%AF', '/admin/v1/merchants/%FF',
      '/api/v1/sdk/sessions/%FF', '/acquirer/v1/3ds/%FF', '/wallet/%FF']) {
      for (const method of ['GET', 'POST']) {
        const res = await t.api(url.startsWith('/admin') ? ADMIN_TOKEN : m.testKey, method, url, method === 'POST' ? {} : undefined);
        assert.equal(res.status, 400, `${method} ${url}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'VALIDATION_ERROR');
        assert.equal(typeof res.body.message, 'string');
        assert.equal(res.body.details.field, 'url');
        assert.equal(res.body.statusCode, undefined, "not Fastify's own body");
        assert.equal(res.body.error, undefined, "not Fastify's own body");
      }
    }
  });
});

test('the SQLite data folder is 0700 and the database, -wal and -shm files 0600, also when found looser', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'motu-modes-'));
  try {
    const fresh = path.join(root, 'fresh', 'data');
    const db = openDatabase({ dataDir: fresh });
    await migrate(db);
    const mode = (p: string) => statSync(p).mode & 0o777;
    assert.equal(mode(fresh), 0o700);
    for (const f of ['motu.sqlite', 'motu.sqlite-wal', 'motu.sqlite-shm']) assert.equal(mode(path.join(fresh, f)), 0o600, f);
    await db.close();

    // A folder and files left world-readable (an older version, a copy by hand) are tightened at the next start.
    chmodSync(fresh, 0o755);
    for (const f of ['motu.sqlite', 'motu.sqlite-wal', 'motu.sqlite-shm']) {
      const file = path.join(fresh, f);
      try { chmodSync(file, 0o644); } catch { writeFileSync(file, ''); chmodSync(file, 0o644); }
    }
    const again = openDatabase({ dataDir: fresh });
    await again.ping();
    assert.equal(mode(fresh), 0o700);
    for (const f of ['motu.sqlite', 'motu.sqlite-wal', 'motu.sqlite-shm']) assert.equal(mode(path.join(fresh, f)), 0o600, f);
    await again.close();

    // The secrets key's folder, when the key file makes it first.
    const keyDir = path.join(root, 'keyfirst');
    const config = parseConfig({ MOTU_DATA_DIR: keyDir, MOTU_ADMIN_TOKEN: ADMIN_TOKEN, MOTU_PUBLIC_URL: 'http://localhost:3000' });
    const keyDb = openDatabase({ dataDir: path.join(root, 'other') });
    await migrate(keyDb);
    const app = await buildApp(config, { db: keyDb, adminTokenHash: sha256Hex(ADMIN_TOKEN) });
    await app.ready();
    assert.equal(mode(keyDir), 0o700);
    assert.equal(mode(path.join(keyDir, 'secrets.key')), 0o600);
    await app.close();
    await keyDb.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

eachDatabase('request log', (dialect) => {
  test('session ids (bearer capabilities) never appear in the info request log, in paths or query strings', async () => {
    const database = await freshDatabase(dialect);
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(chunk.toString('utf8')); done(); } });
    const config = parseConfig({
      MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, MOTU_ADMIN_TOKEN: ADMIN_TOKEN,
      MOTU_PUBLIC_URL: 'http://localhost:3000', MOTU_RATE_LIMIT_MAX: '100000', MOTU_TOKENS_PER_MINUTE: '100000',
    });
    const app = await buildApp(config, { db: database.db, adminTokenHash: sha256Hex(ADMIN_TOKEN), logger: createLogger('info', sink) });
    await app.ready();
    const t = { app, api: async (auth: string | undefined, method: string, url: string, body?: unknown) => {
      const res = await app.inject({ method: method as 'GET', url, headers: auth ? { authorization: `Bearer ${auth}` } : {}, ...(body === undefined ? {} : { payload: body as object }) });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined, headers: res.headers };
    }, admin: (method: string, url: string, body?: unknown) => t.api(ADMIN_TOKEN, method, url, body) };
    try {
      const m = await createMerchant(t as unknown as TestApp);
      const session = await createSession(t as unknown as TestApp, m.testKey);
      const wallet = await t.api(m.testKey, 'POST', `/api/v1/customers/${(await t.api(m.testKey, 'POST', '/api/v1/customers', { email: 'log@example.com' })).body.id}/sessions`, { returnUrl: 'https://shop.example/w' });
      assert.equal(wallet.status, 201);
      const ids = [session.sessionId, wallet.body.sessionId];
      for (const url of [`/checkout/${session.sessionId}`, `/api/v1/sdk/sessions/${session.sessionId}`, `/api/v1/sdk/sessions/${wallet.body.sessionId}`,
        `/wallet/${wallet.body.sessionId}`, `/checkout/success?sessionId=${session.sessionId}`, `/api/v1/payments/sessions/${session.sessionId}`]) {
        await app.inject({ method: 'GET', url, headers: url.startsWith('/api/v1/payments') ? { authorization: `Bearer ${m.testKey}` } : {} });
      }
      const log = lines.join('');
      const requestLines = lines.filter((l) => l.includes('request completed'));
      assert.ok(requestLines.length >= 6, `${requestLines.length} request lines`);
      assert.ok(requestLines.some((l) => l.includes('/checkout/ses_[redacted]')), requestLines.join(''));
      assert.ok(requestLines.some((l) => l.includes('sessionId=ses_[redacted]')), requestLines.join(''));
      for (const id of ids) assert.ok(!log.includes(id), `${id} in the log`);
    } finally {
      await app.close();
      await database.drop();
    }
  });
});
