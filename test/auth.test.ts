// Merchant authentication (Bearer key; its prefix picks test or live): the permission and mode-separation matrix.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createKey, createMerchant, type MerchantFixture } from './support/factories.js';
import { cutListener, fromAnotherProcess, listenerBackendPid, listening, settled } from './support/reference.js';
import { eventually, sleep } from './support/wait.js';

eachDatabase('merchant authentication', (dialect) => {
  let other: MerchantFixture;
  let keys: Record<string, string>;
  // PostgreSQL: the reference listener checks its connection every 500 ms (5 s by default), for the heartbeat test.
  const { t, m } = withMerchantApp(dialect, { listenerHeartbeatMs: 500, merchantName: 'Matrix' });
  before(async () => {
    other = await createMerchant(t, 'Stranger');
    keys = {
      testWrite: m.testKey,
      liveWrite: m.liveKey,
      testRead: (await createKey(t, m.id, { mode: 'test', permission: 'read' })).secretKey,
      liveRead: (await createKey(t, m.id, { mode: 'live', permission: 'read' })).secretKey,
      otherTest: other.testKey,
      otherLive: other.liveKey,
    };
  });

  it('answers 401 without a key, with a malformed or unknown key, and with a non-Bearer scheme', async () => {
    const cases: [string, Record<string, string>][] = [
      ['no header', {}],
      ['malformed key', { authorization: 'Bearer sk_test_short' }],
      ['unknown key', { authorization: `Bearer sk_test_${'A'.repeat(32)}` }],
      ['basic scheme with a password', { authorization: `Basic ${Buffer.from(`${m.testKey}:secret`).toString('base64')}` }],
      ['basic scheme with an unknown key', { authorization: `Basic ${Buffer.from(`sk_test_${'A'.repeat(32)}:`).toString('base64')}` }],
      ['basic scheme without a user', { authorization: `Basic ${Buffer.from(':').toString('base64')}` }],
      ['digest scheme', { authorization: `Digest ${m.testKey}` }],
      ['publishable-looking key', { authorization: `Bearer pk_test_${'A'.repeat(32)}` }],
    ];
    for (const [name, headers] of cases) {
      const res = await t.api(undefined, 'GET', '/api/v1/customers', undefined, headers);
      assert.equal(res.status, 401, name);
      assert.equal(res.body.code, 'UNAUTHORIZED', name);
      assert.equal(typeof res.body.message, 'string');
    }
  });

  it('accepts the key as an HTTP Basic user with an empty password (curl -u sk_test_…:), with the key\'s own mode and role', async () => {
    const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` });
    const made = await t.api(undefined, 'POST', '/api/v1/customers', { externalId: 'basic-1' }, basic(keys.testWrite));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const read = await t.api(undefined, 'GET', `/api/v1/customers/${made.body.id}`, undefined, basic(keys.testRead));
    assert.equal(read.status, 200);
    const refused = await t.api(undefined, 'POST', '/api/v1/customers', { externalId: 'basic-2' }, basic(keys.testRead));
    assert.equal(refused.status, 403);
    assert.equal((await t.api(undefined, 'GET', `/api/v1/customers/${made.body.id}`, undefined, basic(keys.liveWrite))).status, 404);
  });

  it('lets read keys GET and refuses every other method with 403 PERMISSION_DENIED', async () => {
    const c = await t.api(keys.testWrite, 'POST', '/api/v1/customers', { externalId: 'perm-1' });
    assert.equal(c.status, 201);
    assert.equal((await t.api(keys.testRead, 'GET', `/api/v1/customers/${c.body.id}`)).status, 200);
    assert.equal((await t.api(keys.testRead, 'GET', '/api/v1/customers')).status, 200);
    for (const [method, url, body] of [
      ['POST', '/api/v1/customers', { name: 'x' }],
      ['PATCH', `/api/v1/customers/${c.body.id}`, { name: 'x' }],
      ['POST', '/api/v1/payments/sessions', {}],
    ] as const) {
      for (const key of [keys.testRead, keys.liveRead]) {
        const res = await t.api(key, method, url, body);
        assert.equal(res.status, 403, `${method} ${url}`);
        assert.equal(res.body.code, 'PERMISSION_DENIED');
      }
    }
    const unchanged = await t.api(keys.testWrite, 'GET', `/api/v1/customers/${c.body.id}`);
    assert.equal(unchanged.body.name, null);
  });

  it('refuses the signing secret to read keys (403 PERMISSION_DENIED), and no GET route answers them a secret', async () => {
    for (const key of [keys.testRead, keys.liveRead]) {
      const res = await t.api(key, 'GET', '/api/v1/webhooks/signing-secret');
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.code, 'PERMISSION_DENIED');
      assert.ok(!JSON.stringify(res.body).includes('whsec_'));
    }
    assert.equal((await t.api(keys.testWrite, 'GET', '/api/v1/webhooks/signing-secret')).body.webhookSecret, m.testWebhookSecret);
    // Every other GET route of the API, as the read key sees it: no secret anywhere.
    const doc = (await t.api(undefined, 'GET', '/api/v1/openapi.json')).body;
    let walked = 0;
    for (const [path, methods] of Object.entries<Record<string, unknown>>(doc.paths)) {
      if (!path.startsWith('/api/v1/') || !('get' in methods) || path === '/api/v1/events/stream') continue;
      const res = await t.api(keys.testRead, 'GET', path.replace('{id}', 'x_0000000000000000000000'));
      walked++;
      const text = JSON.stringify(res.body);
      assert.ok(!/whsec_|sk_(test|live)_/.test(text), `GET ${path} answers a secret to a read key`);
    }
    assert.ok(walked > 10);
  });

  it('separates test and live, and merchants, completely: an object is 404 to every other key', async () => {
    const testObj = await t.api(keys.testWrite, 'POST', '/api/v1/customers', { externalId: 'mode-t', email: 'mode@example.pf' });
    const liveObj = await t.api(keys.liveWrite, 'POST', '/api/v1/customers', { externalId: 'mode-l' });
    assert.equal(testObj.status, 201);
    assert.equal(liveObj.status, 201);
    const sees: Record<string, string[]> = {
      [testObj.body.id]: ['testWrite', 'testRead'],
      [liveObj.body.id]: ['liveWrite', 'liveRead'],
    };
    for (const [id, allowed] of Object.entries(sees)) {
      for (const [name, key] of Object.entries(keys)) {
        const res = await t.api(key, 'GET', `/api/v1/customers/${id}`);
        const expected = allowed.includes(name) ? 200 : 404;
        assert.equal(res.status, expected, `${name} reading ${id}`);
        if (expected === 404) assert.equal(res.body.code, 'NOT_FOUND');
      }
    }
    // Writes across the boundary are 404 too, and change nothing.
    for (const key of [keys.liveWrite, keys.otherTest, keys.otherLive]) {
      const res = await t.api(key, 'PATCH', `/api/v1/customers/${testObj.body.id}`, { name: 'hijack' });
      assert.equal(res.status, 404);
    }
    assert.equal((await t.api(keys.testWrite, 'GET', `/api/v1/customers/${testObj.body.id}`)).body.name, null);
    // Lists and filters only ever show the key's own mode and merchant.
    for (const [name, key] of Object.entries(keys)) {
      const list = await t.api(key, 'GET', '/api/v1/customers?limit=100');
      assert.equal(list.status, 200);
      const ids = list.body.data.map((x: { id: string }) => x.id);
      assert.equal(ids.includes(testObj.body.id), sees[testObj.body.id]!.includes(name), name);
      assert.equal(ids.includes(liveObj.body.id), sees[liveObj.body.id]!.includes(name), name);
    }
    const byEmail = await t.api(keys.liveWrite, 'GET', '/api/v1/customers?email=mode@example.pf');
    assert.deepEqual(byEmail.body.data, []);
  });

  it('refuses a revoked key immediately (401) while the merchant’s other keys keep working', async () => {
    const k = await createKey(t, m.id, { mode: 'test' });
    assert.equal((await t.api(k.secretKey, 'GET', '/api/v1/customers')).status, 200);
    assert.equal((await t.admin('DELETE', `/admin/v1/keys/${k.id}`)).status, 200);
    const res = await t.api(k.secretKey, 'POST', '/api/v1/customers', { name: 'after revoke' });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'UNAUTHORIZED');
    assert.equal((await t.api(keys.testWrite, 'GET', '/api/v1/customers')).status, 200);
  });

  if (dialect === 'sqlite') {
    // Keys are cached in the process on SQLite (src/http/auth.ts): a revocation by another process (`motu keys revoke`)
    // counts for every request that begins a millisecond or more after its commit (PRAGMA data_version, read at most
    // once per millisecond outside a transaction).
    it('refuses a key revoked by another process (another connection to the database file) a millisecond after that commit', async () => {
      const k = await createKey(t, m.id, { mode: 'test' });
      assert.equal((await t.api(k.secretKey, 'GET', '/api/v1/customers')).status, 200);
      const { default: SQLite } = await import('better-sqlite3');
      const { join } = await import('node:path');
      const other = new SQLite(join(t.dataDir, 'motu.sqlite'));
      try {
        other.prepare('update api_keys set revoked_at = ? where id = ?').run(new Date().toISOString(), k.id);
      } finally {
        other.close();
      }
      await sleep(2);
      const res = await t.api(k.secretKey, 'GET', '/api/v1/customers');
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'UNAUTHORIZED');
    });
  }

  if (dialect === 'postgres') {
    // Keys are cached in the process on PostgreSQL too, emptied when another process's change is heard (NOTIFY
    // motu_reference, src/db/database.ts): a few milliseconds after its commit.
    const revokedElsewhere = async (keyId: string) =>
      fromAnotherProcess(t, ['update api_keys set revoked_at = $1 where id = $2', [new Date().toISOString(), keyId]]);
    const refused = async (secretKey: string) => (await t.api(secretKey, 'GET', '/api/v1/customers')).status === 401;

    it('refuses a key revoked by another process once that commit is heard', async () => {
      await listening(t);
      const k = await createKey(t, m.id, { mode: 'test' });
      assert.equal((await t.api(k.secretKey, 'GET', '/api/v1/customers')).status, 200);
      await revokedElsewhere(k.id);
      await eventually('the revocation is seen', () => refused(k.secretKey));
      assert.equal((await t.api(keys.testWrite, 'GET', '/api/v1/customers')).status, 200);
    });

    it('still refuses keys revoked by another process after its listening connection was cut, and once it is back', async () => {
      await listening(t);
      const k = await createKey(t, m.id, { mode: 'test' });
      assert.equal((await t.api(k.secretKey, 'GET', '/api/v1/customers')).status, 200);
      await cutListener(t);
      await revokedElsewhere(k.id);
      await eventually('the revocation is seen without a listener', () => refused(k.secretKey));
      await listening(t); // reconnected
      const k2 = await createKey(t, m.id, { mode: 'test' });
      assert.equal((await t.api(k2.secretKey, 'GET', '/api/v1/customers')).status, 200);
      await revokedElsewhere(k2.id);
      await eventually('the revocation is seen by the new listener', () => refused(k2.secretKey));
    });

    it('stops trusting its cache once the listening connection hangs without a word (heartbeat), and listens again', async (c) => {
      await listening(t);
      const k = await createKey(t, m.id, { mode: 'test' });
      // The notification of the key's own creation must have arrived, or, arriving after the freeze, it would empty
      // the cache by itself.
      await settled(t);
      assert.equal((await t.api(k.secretKey, 'GET', '/api/v1/customers')).status, 200);
      // The listener's server process is stopped, not ended: its connection stays open, the TCP peer still answers, and
      // nothing reaches the listener, notifications included: a network partition or a hung proxy, as the app sees it.
      const pid = await listenerBackendPid(t);
      if (pid === undefined) return c.skip('PostgreSQL does not run on this machine: its processes cannot be stopped');
      try {
        process.kill(pid, 'SIGSTOP');
      } catch {
        return c.skip('PostgreSQL server processes cannot be signalled by this user');
      }
      const frozenAt = Date.now();
      try {
        await revokedElsewhere(k.id);
        // The notification is held with the stopped process: the key is still taken from the cache, for now. (Only
        // checked well within the first heartbeat, which cannot have given up yet.)
        const stale = await t.api(k.secretKey, 'GET', '/api/v1/customers');
        if (Date.now() - frozenAt < 400) assert.equal(stale.status, 200, 'the frozen listener held the notification');
        // The heartbeat's query gets no answer: by the next one the listener is dropped and nothing is cached.
        await eventually('the revocation is seen once the heartbeat gave up', () => refused(k.secretKey), 5000);
        assert.ok(Date.now() - frozenAt >= 400, 'not before a heartbeat interval');
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await listening(t); // a new listener, on a new connection
      assert.notEqual(await listenerBackendPid(t), pid);
      const k2 = await createKey(t, m.id, { mode: 'test' });
      assert.equal((await t.api(k2.secretKey, 'GET', '/api/v1/customers')).status, 200);
      await revokedElsewhere(k2.id);
      await eventually('the revocation is seen by the new listener', () => refused(k2.secretKey));
    });
  }
});
