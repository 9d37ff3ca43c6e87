// `motu listen`: the stream route and the forwarding client, over real HTTP.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { verifyWebhook } from '../src/events/verify.js';
import { listen } from '../src/start/listen.js';
import { eachDatabase, startApp, type TestApp } from './support/harness.js';
import { createMerchant } from './support/factories.js';
import { startReceiver, type Receiver } from './support/receiver.js';

eachDatabase('motu listen', (dialect) => {
  let t: TestApp;
  let rx: Receiver;
  let apiUrl: string;
  before(async () => {
    t = await startApp(dialect);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    rx = await startReceiver();
  });
  after(async () => {
    await rx.close();
    await t.close();
  });

  it('forwards each new event, signed with the test secret, and prints one line per event', async () => {
    const m = await createMerchant(t);
    const other = await createMerchant(t, 'Someone else');
    const lines: string[] = [];
    const abort = new AbortController();
    const running = listen({ apiUrl, secretKey: m.testKey, forwardTo: rx.url('/local'), print: (l) => lines.push(l), signal: abort.signal });
    while (!lines.some((l) => l.startsWith('Ready'))) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 300));
    const c = await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Listen' });
    await t.api(other.testKey, 'POST', '/api/v1/customers', { name: 'Not mine' });
    await t.api(m.liveKey, 'POST', '/api/v1/customers', { name: 'Live' });
    await t.api(m.testKey, 'PATCH', `/api/v1/customers/${c.body.id}`, { name: 'Listen 2' });
    await rx.waitFor(() => rx.for('/local').length >= 2, 5000);
    await new Promise((r) => setTimeout(r, 500));
    abort.abort();
    await running;
    const got = rx.for('/local');
    assert.deepEqual(got.map((r) => r.body.type), ['customer.created', 'customer.updated']);
    for (const r of got) {
      const v = verifyWebhook(r.raw, r.headers, m.testWebhookSecret);
      assert.equal(v.ok, true);
    }
    const eventLines = lines.filter((l) => l.includes('whe_'));
    assert.equal(eventLines.length, 2);
    assert.match(eventLines[0]!, /customer\.created\s+whe_\w+\s+→ 200/);
  });

  it('refuses a live key', async () => {
    const m = await createMerchant(t);
    await assert.rejects(listen({ apiUrl, secretKey: m.liveKey, forwardTo: rx.url('/x'), print: () => {} }), /test secret key/);
  });
});
