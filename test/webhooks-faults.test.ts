// Faulty receivers and the delivery worker's bounds: a receiver that hangs ends out of service on the schedule;
// a slow endpoint does not delay a healthy one; SIGTERM lets the sends in flight finish and records them.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, it } from 'node:test';
import { startWorkers, type Workers } from '../src/start/workers.js';
import { eachDatabase, startApp, type TestApp } from './support/harness.js';
import { createMerchant, type MerchantFixture } from './support/factories.js';
import { startReceiver, type Receiver } from './support/receiver.js';

const silent = { info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

eachDatabase('webhooks: faulty receivers', (dialect) => {
  let t: TestApp;
  let workers: Workers;
  let rx: Receiver;
  let silentServer: net.Server;
  const sockets = new Set<net.Socket>();

  before(async () => {
    t = await startApp(dialect, { env: { MOTU_WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1', MOTU_WEBHOOK_TIMEOUT_MS: '300' } });
    workers = startWorkers(t.config, t.db, t.clock, silent);
    rx = await startReceiver();
    // Accepts the connection and never reads nor answers.
    silentServer = net.createServer((s) => {
      sockets.add(s);
      s.pause();
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => silentServer.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    await workers.stop();
    await rx.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => silentServer.close(r));
    await t.close();
  });

  async function endpoint(m: MerchantFixture, url: string) {
    const res = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url, events: ['*'] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { id: string };
  }
  async function customer(m: MerchantFixture, name: string) {
    const res = await t.api(m.testKey, 'POST', '/api/v1/customers', { name });
    assert.equal(res.status, 201);
  }
  async function waitDisabled(m: MerchantFixture, id: string, ms: number) {
    const until = Date.now() + ms;
    for (;;) {
      const ep = await t.api(m.testKey, 'GET', `/api/v1/webhook-endpoints/${id}`);
      if (ep.body.enabled === false) return ep.body;
      if (Date.now() > until) return ep.body;
      await sleep(50);
    }
  }

  for (const kind of ['answers nothing after reading the request', 'accepts the connection and never reads']) {
    it(`a receiver that ${kind} fails each attempt at the timeout and ends out of service after the fifth retry`, { timeout: 60_000 }, async () => {
      const m = await createMerchant(t);
      const hangs = kind.startsWith('answers');
      if (hangs) rx.on('/hang', () => ({ status: 200, hang: true }));
      const url = hangs ? rx.url('/hang') : `http://127.0.0.1:${(silentServer.address() as net.AddressInfo).port}/silent`;
      const ep = await endpoint(m, url);
      const started = Date.now();
      for (let i = 0; i < 3; i++) await customer(m, `hang${i}`);
      // 6 attempts × (300 ms timeout + 1 s) ≈ 8 s; generous bound for a loaded machine.
      const read = await waitDisabled(m, ep.id, 40_000);
      assert.equal(read.enabled, false, `still enabled after ${Date.now() - started} ms: ${JSON.stringify(read)}`);
      assert.equal(read.disabledReason, 'failing');
      const events = await t.api(m.testKey, 'GET', '/api/v1/events?limit=10');
      const abandoned = [];
      for (const e of events.body.data) {
        const d = (await t.api(m.testKey, 'GET', `/api/v1/events/${e.id}/deliveries`)).body.data[0];
        if (d.status === 'abandoned') abandoned.push(d);
      }
      assert.ok(abandoned.length >= 1);
      const d = abandoned[0];
      assert.equal(d.attempts.length, 6);
      for (const a of d.attempts) {
        assert.equal(a.succeeded, false);
        assert.match(a.error, /timed out after 300 ms/);
        assert.ok(a.latencyMs >= 290 && a.latencyMs < 5_000, `latency ${a.latencyMs}`);
      }
    });
  }
});
