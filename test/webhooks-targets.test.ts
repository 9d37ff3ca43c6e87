// Where webhooks may go: one address guard for endpoints and notificationUrl, in both modes. A target refused at
// connection time is a failed attempt that follows the retry schedule (never a delivery stuck in `sending`), and
// the deliveries API shows no answer from it since it is never reached.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordEvent } from '../src/events/outbox.js';
import { payloads } from '../src/events/payloads.js';
import { eachDatabase, type TestApp } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import type { MerchantFixture } from './support/factories.js';
import { eventually, sleep } from './support/wait.js';


function sessionBody(notificationUrl: string) {
  return {
    order: { reference: 'ORD-ADDR', amount: 1000, currency: 'XPF' },
    redirectUrl: 'https://shop.example/return',
    notificationUrl,
  };
}

eachDatabase('webhook targets: address rules', (dialect) => {
  const { t, m, rx } = withMerchantApp(dialect, { receiver: true });
  const { t: strict, m: sm } = withMerchantApp(dialect, { env: { MOTU_ALLOW_LOOPBACK_URLS: 'false' } });

  const port = () => new URL(rx.url()).port;
  // What WHATWG URL parsing makes of them: 127.0.0.1, 127.0.0.1, [::ffff:7f00:1].
  const loopbackForms = () => [`https://127.0.0.1:${port()}/x`, `https://2130706433:${port()}/x`, `https://[::ffff:127.0.0.1]:${port()}/x`];
  const privateForms = [
    'https://10.1.2.3/x', 'https://192.168.1.10/x', 'https://172.16.0.1/x', 'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/x', 'https://0.0.0.0/x', 'https://[fd00::1]/x', 'https://[fe80::1]/x', 'https://[::ffff:10.0.0.1]/x',
    'https://167772161/x', // 10.0.0.1 in decimal
  ];

  function assertRefused(res: { status: number; body: any }, field: string, what: string) {
    assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'VALIDATION_ERROR', what);
    assert.equal(res.body.details.field, field, what);
  }

  it('a live session or payment link refuses a notificationUrl on a loopback or private address', async () => {
    for (const url of [...loopbackForms(), ...privateForms]) {
      assertRefused(await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', sessionBody(url)), 'notificationUrl', `live session ${url}`);
      assertRefused(await t.api(m.liveKey, 'POST', '/api/v1/payments/links', sessionBody(url)), 'notificationUrl', `live link ${url}`);
    }
    const ok = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', sessionBody('https://93.184.215.14/hook'));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  it('test mode refuses private addresses always, and loopback when MOTU_ALLOW_LOOPBACK_URLS is false', async () => {
    for (const url of privateForms) {
      assertRefused(await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', sessionBody(url)), 'notificationUrl', `test session ${url}`);
      assertRefused(await t.api(m.testKey, 'POST', '/api/v1/payments/links', sessionBody(url)), 'notificationUrl', `test link ${url}`);
      assertRefused(await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url, events: ['*'] }), 'url', `test endpoint ${url}`);
    }
    for (const url of [...loopbackForms(), 'https://localhost/x', `http://127.0.0.1:${port()}/x`]) {
      assertRefused(await strict.api(sm.testKey, 'POST', '/api/v1/payments/sessions', sessionBody(url)), 'notificationUrl', `strict session ${url}`);
      assertRefused(await strict.api(sm.testKey, 'POST', '/api/v1/webhook-endpoints', { url, events: ['*'] }), 'url', `strict endpoint ${url}`);
    }
    // Loopback stays open to local development in test mode while allowed.
    const local = await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', sessionBody(rx.url('/ok')));
    assert.equal(local.status, 201, JSON.stringify(local.body));
  });

  /** A payment event whose delivery goes only to `url` (an address stored before the rules, or one DNS now points inside). */
  async function eventTo(app: TestApp, merchant: MerchantFixture, mode: 'test' | 'live', url: string): Promise<string> {
    const key = mode === 'live' ? merchant.liveKey : merchant.testKey;
    const s = await app.api(key, 'POST', '/api/v1/payments/sessions', sessionBody('https://93.184.215.14/hook'));
    assert.equal(s.status, 201, JSON.stringify(s.body));
    const recorded = await app.db.transaction((trx) =>
      recordEvent(trx, {
        merchantId: merchant.id, mode, paymentId: s.body.paymentId, notificationUrl: url,
        ...payloads.paymentExpired({ paymentId: s.body.paymentId } as never),
      }),
    );
    return recorded.id;
  }

  async function settledDelivery(app: TestApp, key: string, eventId: string, ms = 20_000) {
    let d: any;
    const check = async () => {
      d = (await app.api(key, 'GET', `/api/v1/events/${eventId}/deliveries`)).body.data[0];
      return d.status === 'abandoned' || d.status === 'succeeded';
    };
    await eventually(() => `the delivery abandoned or succeeded, last read ${JSON.stringify(d)}`, check, ms, 50);
    return d;
  }

  describe('the worker with loopback forbidden', () => {
    // Live mode always; test mode here because the operator turned loopback off after the URL was accepted.
    const { t: app, m: merchant } = withMerchantApp(dialect, { workers: true, env: { MOTU_WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0', MOTU_ALLOW_LOOPBACK_URLS: 'false' } });

    for (const mode of ['live', 'test'] as const) {
      it(`a ${mode} delivery to a refused address fails each attempt and is abandoned after the schedule, never reaching it`, { timeout: 60_000 }, async () => {
        // 0.0.0.0 (which reaches this machine on Linux) is never allowed.
        const key = mode === 'live' ? merchant.liveKey : merchant.testKey;
        const urls = [...loopbackForms(), `http://localhost:${port()}/x`, `http://0.0.0.0:${port()}/x`];
        const events = [];
        for (const url of urls) events.push(await eventTo(app, merchant, mode, url));
        for (const [i, id] of events.entries()) {
          const d = await settledDelivery(app, key, id);
          assert.equal(d.status, 'abandoned', `${urls[i]}: ${JSON.stringify(d)}`);
          assert.equal(d.attemptCount, 6, `${urls[i]}: one first send and five retries, no more`);
          assert.equal(d.attempts.length, 6);
          for (const a of d.attempts) {
            assert.equal(a.succeeded, false);
            assert.equal(a.statusCode, null);
            assert.equal(a.response, null, 'no answer excerpt from a target never reached');
            assert.match(a.error, /^refused: /);
          }
        }
        // Still 6 after a while: the count does not climb past the schedule.
        await sleep(300);
        const again = await settledDelivery(app, key, events[0]!);
        assert.equal(again.attemptCount, 6);
        assert.equal(rx.for('/x').length, 0, 'nothing reached the receiver');
      });
    }
  });

  describe('the worker with loopback allowed', () => {
    const { t: app, m: merchant } = withMerchantApp(dialect, { workers: true, env: { MOTU_WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0' } });

    it('a test delivery to loopback is sent while MOTU_ALLOW_LOOPBACK_URLS is on', { timeout: 30_000 }, async () => {
      const id = await eventTo(app, merchant, 'test', rx.url('/allowed'));
      const d = await settledDelivery(app, merchant.testKey, id);
      assert.equal(d.status, 'succeeded', JSON.stringify(d));
      assert.equal(rx.for('/allowed').length, 1);
    });
  });
});
