// Faulty receivers and the delivery worker's bounds: a receiver that hangs ends out of service on the schedule;
// a slow endpoint does not delay a healthy one; SIGTERM lets the sends in flight finish and records them.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import net from 'node:net';
import { after, before, it } from 'node:test';
import { recordEvent } from '../src/events/outbox.js';
import { payloads } from '../src/events/payloads.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createMerchant, customerData, type MerchantFixture } from './support/factories.js';
import { eventually } from './support/wait.js';

eachDatabase('webhooks: faulty receivers', (dialect) => {
  const { t, rx } = withApp(dialect, { workers: true, receiver: true, env: { MOTU_WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1', MOTU_WEBHOOK_TIMEOUT_MS: '300' } });
  let silentServer: net.Server;
  const sockets = new Set<net.Socket>();

  before(async () => {
    // Accepts the connection and never reads nor answers.
    silentServer = net.createServer((s) => {
      sockets.add(s);
      s.pause();
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => silentServer.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silentServer.close(r));
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
    let ep: any;
    const check = async () => {
      ep = (await t.api(m.testKey, 'GET', `/api/v1/webhook-endpoints/${id}`)).body;
      return ep.enabled === false;
    };
    await eventually(() => `the endpoint out of service, last read ${JSON.stringify(ep)}`, check, ms, 50);
    return ep;
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

eachDatabase('webhooks: per-endpoint bound', (dialect) => {
  // Small bounds so the slow endpoint's backlog is many times what it may have in flight.
  const { t, rx } = withApp(dialect, {
    workers: { delivery: { concurrency: 32, perTarget: 4 } },
    receiver: true,
    env: { MOTU_WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1', MOTU_WEBHOOK_TIMEOUT_MS: '5000' },
  });

  it('a slow endpoint with a backlog does not delay a healthy endpoint’s deliveries', { timeout: 60_000 }, async () => {
    const slow = await createMerchant(t, 'Slow');
    const healthy = await createMerchant(t, 'Healthy');
    rx.on('/slow', () => ({ status: 200, delayMs: 1_500 }));
    for (const [m, path] of [[slow, '/slow'], [healthy, '/healthy']] as const) {
      const res = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url(path), events: ['*'] });
      assert.equal(res.status, 201);
    }
    // Commit-to-receipt of one healthy event, from the API call's answer to the receiver reading it.
    const healthyLatency = async (name: string) => {
      const res = await t.api(healthy.testKey, 'POST', '/api/v1/customers', { name });
      assert.equal(res.status, 201);
      const at = Date.now();
      await rx.waitFor(() => rx.for('/healthy').some((r) => r.body.data.name === name), 10_000, name);
      return rx.for('/healthy').find((r) => r.body.data.name === name)!.at - at;
    };
    const alone: number[] = [];
    for (let i = 0; i < 5; i++) alone.push(await healthyLatency(`alone${i}`));
    // 60 events for the slow endpoint (1.5 s each, 4 at a time: 22 s of backlog), then healthy events meanwhile.
    await t.db.transaction(async (trx) => {
      for (let i = 0; i < 60; i++) {
        await recordEvent(trx, { merchantId: slow.id, mode: 'test', ...payloads.customerCreated(customerData(`cus_slow${i}`, `slow${i}`)) });
      }
    });
    await rx.waitFor(() => rx.for('/slow').length >= 4, 10_000, 'the slow endpoint busy');
    const beside: number[] = [];
    for (let i = 0; i < 10; i++) beside.push(await healthyLatency(`beside${i}`));
    const maxAlone = Math.max(...alone);
    const maxBeside = Math.max(...beside);
    // The slow endpoint had no more than its bound (4) in flight: before its first answers (1.5 s) it got only 4.
    if (Date.now() - rx.for('/slow')[0]!.at < 1_400) assert.equal(rx.for('/slow').length, 4);
    // Generous: a delayed healthy delivery would wait for the slow answers (1.5 s).
    assert.ok(maxBeside < 750, `healthy latency beside the slow backlog ${JSON.stringify(beside)} ms, alone ${JSON.stringify(alone)} ms`);
    console.log(`per-endpoint bound [${dialect}]: healthy commit-to-receipt max ${maxAlone} ms alone, ${maxBeside} ms beside a slow backlog`);
  });
});

eachDatabase('webhooks: signing secrets cached by the worker', (dialect) => {
  const { t, rx } = withApp(dialect, { workers: true, receiver: true });

  it('an event committed right after a rotation returns is signed with the new secret, never the cached old one', async () => {
    const m = await createMerchant(t, 'Rotating');
    const ep = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/rotating'), events: ['*'] });
    assert.equal(ep.status, 201);
    const hmac = (secret: string, ts: string, raw: Buffer) => createHmac('sha256', secret).update(`${ts}.`).update(raw).digest('hex');
    let secret = m.testWebhookSecret;
    for (let round = 0; round < 3; round++) {
      // Delivered with the current secret: the worker now holds it.
      assert.equal((await t.api(m.testKey, 'POST', '/api/v1/customers', { name: `before${round}` })).status, 201);
      await rx.waitFor(() => rx.for('/rotating').some((r) => r.body.data.name === `before${round}`), 10_000);
      const rotated = await t.api(m.testKey, 'POST', '/api/v1/webhooks/signing-secret/rotate');
      assert.equal(rotated.status, 200);
      const previous = secret;
      secret = rotated.body.webhookSecret;
      assert.equal((await t.api(m.testKey, 'POST', '/api/v1/customers', { name: `after${round}` })).status, 201);
      await rx.waitFor(() => rx.for('/rotating').some((r) => r.body.data.name === `after${round}`), 10_000);
      const r = rx.for('/rotating').find((x) => x.body.data.name === `after${round}`)!;
      const ts = String(r.headers['x-service-timestamp']);
      assert.equal(r.headers['x-service-signature-v2'], hmac(secret, ts, r.raw), `round ${round}: signed with the new secret`);
      assert.equal(r.headers['x-service-signature-v2-previous'], hmac(previous, ts, r.raw));
    }
  });
});
