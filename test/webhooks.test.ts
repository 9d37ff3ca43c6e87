import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { it } from 'node:test';
import { recordEvent } from '../src/events/outbox.js';
import { payloads } from '../src/events/payloads.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createMerchant, customerData, type MerchantFixture } from './support/factories.js';
import { eventually, sleep } from './support/wait.js';

// An implementation independent of src/events/signer.ts: the verification of docs/webhooks.md, word for word.
function hmac(secret: string, bytes: Buffer | string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(bytes).digest('hex');
}

eachDatabase('webhooks', (dialect) => {
  const { t, rx } = withApp(dialect, { workers: true, receiver: true, env: { MOTU_WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1', MOTU_WEBHOOK_TIMEOUT_MS: '400' } });

  async function endpoint(m: MerchantFixture, path: string, events: string[] = ['*']) {
    const res = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url(path), events, description: path });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { id: string; enabled: boolean };
  }

  async function customer(m: MerchantFixture, name = 'Hina') {
    const res = await t.api(m.testKey, 'POST', '/api/v1/customers', { name });
    assert.equal(res.status, 201);
    return res.body as { id: string };
  }

  it('signs the exact bytes: V1, V2, timestamp, event id, under X-Service- and X-Mobupay-', async () => {
    const m = await createMerchant(t);
    await endpoint(m, '/sig');
    const c = await customer(m);
    await rx.waitFor(() => rx.for('/sig').length === 1);
    const [r] = rx.for('/sig');
    const h = r!.headers;
    const secret = (await t.api(m.testKey, 'GET', '/api/v1/webhooks/signing-secret')).body.webhookSecret;
    assert.equal(secret, m.testWebhookSecret);
    assert.equal(h['x-service-signature'], hmac(secret, r!.raw));
    const ts = String(h['x-service-timestamp']);
    assert.match(ts, /^\d{10}$/);
    assert.ok(Math.abs(Number(ts) - Date.now() / 1000) < 30);
    assert.equal(h['x-service-signature-v2'], hmac(secret, Buffer.concat([Buffer.from(`${ts}.`), r!.raw])));
    for (const name of ['signature', 'timestamp', 'signature-v2', 'event-id']) {
      assert.equal(h[`x-mobupay-${name}`], h[`x-service-${name}`], name);
    }
    assert.equal(h['x-service-signature-v2-previous'], undefined);
    // Compact JSON: re-serializing the parsed body gives the same bytes (integrations re-sign JSON.stringify(body)).
    assert.equal(JSON.stringify(JSON.parse(r!.raw.toString('utf8'))), r!.raw.toString('utf8'));
    assert.equal(h['content-type'], 'application/json');
    assert.equal(r!.body.type, 'customer.created');
    assert.match(r!.body.id, /^whe_[0-9A-Za-z]{22}$/);
    assert.equal(h['x-service-event-id'], r!.body.id);
    assert.equal(r!.body.data.id, c.id);
    assert.match(r!.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The live secret never signs test events.
    assert.notEqual(h['x-service-signature'], hmac(m.liveWebhookSecret, r!.raw));
  });

  it('after a rotation signs with the new secret and sends the old one’s V2 in X-Service-Signature-V2-Previous', async () => {
    const m = await createMerchant(t);
    await endpoint(m, '/rot');
    const rotated = await t.api(m.testKey, 'POST', '/api/v1/webhooks/signing-secret/rotate');
    assert.equal(rotated.status, 200);
    const fresh = rotated.body.webhookSecret as string;
    assert.match(fresh, /^whsec_[0-9A-Za-z]{32}$/);
    assert.notEqual(fresh, m.testWebhookSecret);
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/webhooks/signing-secret')).body.webhookSecret, fresh);
    await customer(m);
    await rx.waitFor(() => rx.for('/rot').length === 1);
    const r = rx.for('/rot')[0]!;
    const ts = String(r.headers['x-service-timestamp']);
    assert.equal(r.headers['x-service-signature-v2'], hmac(fresh, `${ts}.${r.raw.toString('utf8')}`));
    assert.equal(r.headers['x-service-signature-v2-previous'], hmac(m.testWebhookSecret, `${ts}.${r.raw.toString('utf8')}`));
    assert.equal(r.headers['x-mobupay-signature-v2-previous'], r.headers['x-service-signature-v2-previous']);
  });

  it('a receiver failing twice then succeeding gets the same event three times on the schedule', async () => {
    const m = await createMerchant(t);
    rx.on('/flaky', (nth) => ({ status: nth <= 2 ? 500 : 200, body: nth <= 2 ? 'boom' : 'thanks' }));
    await endpoint(m, '/flaky');
    await customer(m);
    await rx.waitFor(() => rx.for('/flaky').length === 3, 10_000);
    const got = rx.for('/flaky');
    assert.equal(new Set(got.map((r) => r.body.id)).size, 1);
    assert.equal(new Set(got.map((r) => r.headers['x-service-event-id'])).size, 1);
    for (let i = 1; i < got.length; i++) {
      const gap = got[i]!.at - got[i - 1]!.at;
      assert.ok(gap >= 950 && gap < 3000, `retry ${i} came after ${gap} ms, schedule says 1 s`);
    }
    await sleep(1500);
    assert.equal(rx.for('/flaky').length, 3, 'no delivery after the success');
    const deliveries = await t.api(m.testKey, 'GET', `/api/v1/events/${got[0]!.body.id}/deliveries`);
    assert.equal(deliveries.status, 200);
    const [d] = deliveries.body.data;
    assert.equal(d.status, 'succeeded');
    assert.deepEqual(d.attempts.map((a: any) => [a.attempt, a.statusCode, a.succeeded]), [[1, 500, false], [2, 500, false], [3, 200, true]]);
    assert.equal(d.attempts[0].response, 'boom');
    assert.equal(d.attempts[0].error, 'HTTP 500');
    assert.equal(d.attempts[2].response, 'thanks');
    assert.ok(d.attempts.every((a: any) => Number.isInteger(a.latencyMs) && a.latencyMs >= 0));
  });

  it('retries a receiver that hangs past the timeout', async () => {
    const m = await createMerchant(t);
    rx.on('/hang', (nth) => (nth === 1 ? { status: 200, hang: true } : { status: 204 }));
    await endpoint(m, '/hang');
    await customer(m);
    await rx.waitFor(() => rx.for('/hang').length === 2, 10_000);
    const [first, second] = rx.for('/hang');
    assert.equal(first!.body.id, second!.body.id);
    assert.ok(second!.at - first!.at >= 400 + 950, 'the retry waits the timeout then the schedule');
    const deliveries = await t.api(m.testKey, 'GET', `/api/v1/events/${first!.body.id}/deliveries`);
    const d = deliveries.body.data[0];
    await rx.waitFor(() => true);
    assert.match(d.attempts[0].error, /timed out after 400 ms/);
    assert.equal(d.attempts[0].succeeded, false);
  });

  it('abandons after the fifth failed retry, takes the endpoint out of service, and resumes once re-enabled', async () => {
    const m = await createMerchant(t);
    let up = false;
    rx.on('/down', () => ({ status: up ? 200 : 503 }));
    const ep = await endpoint(m, '/down');
    await customer(m, 'first');
    await rx.waitFor(() => rx.for('/down').length === 6, 15_000, 'six attempts');
    const eventId = rx.for('/down')[0]!.body.id;
    // The endpoint is out of service; the delivery is abandoned with six attempts recorded.
    let d: any;
    const abandoned = async () => {
      d = (await t.api(m.testKey, 'GET', `/api/v1/events/${eventId}/deliveries`)).body.data[0];
      return d.status === 'abandoned';
    };
    await eventually(() => `the delivery abandoned, last read ${JSON.stringify(d)}`, abandoned);
    assert.equal(d.status, 'abandoned');
    assert.equal(d.attempts.length, 6);
    const read = await t.api(m.testKey, 'GET', `/api/v1/webhook-endpoints/${ep.id}`);
    assert.equal(read.body.enabled, false);
    assert.equal(read.body.disabledReason, 'failing');
    // Nothing more reaches it while out of service, even for new events.
    up = true;
    await customer(m, 'while-down');
    await sleep(1500);
    assert.equal(rx.for('/down').length, 6);
    // Re-enabled: new events flow again.
    const enabled = await t.api(m.testKey, 'PATCH', `/api/v1/webhook-endpoints/${ep.id}`, { enabled: true });
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body.enabled, true);
    assert.equal(enabled.body.disabledReason, null);
    await customer(m, 'after');
    await rx.waitFor(() => rx.for('/down').some((r) => r.body.data.name === 'after'), 5000, 'delivery after re-enabling');
  });

  it('sends payment events to the payment’s notificationUrl too, and abandons only that event there', async () => {
    const m = await createMerchant(t);
    await endpoint(m, '/np-endpoint', ['payment.*']);
    let up = false;
    rx.on('/notify', () => ({ status: up ? 200 : 500 }));
    const data = {
      paymentId: 'pay_notify1', status: 'expired', reference: 'SPR-ABCDEFGHIJKLMNOP', order: { reference: 'o-1' },
      externalId: null, amount: 1000, currency: 'EUR' as const, store: null,
    };
    const emit = (paymentId: string) =>
      t.db.transaction((trx) =>
        recordEvent(trx, { merchantId: m.id, mode: 'test', paymentId, notificationUrl: rx.url('/notify'), ...payloads.paymentExpired({ ...data, paymentId }) }),
      );
    const first = await emit('pay_notify1');
    assert.equal(first.deliveryIds.length, 2);
    await rx.waitFor(() => rx.for('/notify').length === 6 && rx.for('/np-endpoint').length === 1, 15_000, 'six attempts');
    await sleep(200);
    const d = (await t.api(m.testKey, 'GET', `/api/v1/events/${first.id}/deliveries`)).body.data;
    assert.deepEqual(d.map((x: any) => [x.target.type, x.status]).sort(), [['endpoint', 'succeeded'], ['notification_url', 'abandoned']]);
    up = true;
    await emit('pay_notify2');
    await rx.waitFor(() => rx.for('/notify').length === 7, 5000, 'the next event to the same notificationUrl');
    const listed = await t.api(m.testKey, 'GET', '/api/v1/events?paymentId=pay_notify1');
    assert.deepEqual(listed.body.data.map((e: any) => e.id), [first.id]);
    // Customer events never go to a notificationUrl.
    const c = await t.db.transaction((trx) => recordEvent(trx, { merchantId: m.id, mode: 'test', paymentId: 'pay_notify1', notificationUrl: rx.url('/notify'), ...payloads.customerCreated(customerData('cus_x', 'x')) }));
    assert.equal(c.deliveryIds.length, 0);
  });

  it('resends an event to all its targets or to one endpoint, with the same id', async () => {
    const m = await createMerchant(t);
    const a = await endpoint(m, '/resend-a');
    await endpoint(m, '/resend-b');
    await customer(m);
    await rx.waitFor(() => rx.for('/resend-a').length === 1 && rx.for('/resend-b').length === 1);
    const id = rx.for('/resend-a')[0]!.body.id;
    const one = await t.api(m.testKey, 'POST', `/api/v1/events/${id}/resend`, { endpointId: a.id });
    assert.equal(one.status, 202);
    assert.equal(one.body.deliveries.length, 1);
    await rx.waitFor(() => rx.for('/resend-a').length === 2);
    assert.equal(rx.for('/resend-b').length, 1);
    const all = await t.api(m.testKey, 'POST', `/api/v1/events/${id}/resend`, {});
    assert.equal(all.status, 202);
    assert.equal(all.body.deliveries.length, 2);
    await rx.waitFor(() => rx.for('/resend-a').length === 3 && rx.for('/resend-b').length === 2);
    assert.ok([...rx.for('/resend-a'), ...rx.for('/resend-b')].every((r) => r.body.id === id));
    const deliveries = await t.api(m.testKey, 'GET', `/api/v1/events/${id}/deliveries`);
    assert.equal(deliveries.body.data.length, 5);
    const other = await createMerchant(t, 'Other');
    assert.equal((await t.api(other.testKey, 'POST', `/api/v1/events/${id}/resend`, {})).status, 404);
  });

  it('delivers only the types an endpoint asked for', async () => {
    const m = await createMerchant(t);
    await endpoint(m, '/f-pay', ['payment.*']);
    await endpoint(m, '/f-created', ['customer.created']);
    await endpoint(m, '/f-cust', ['customer.*']);
    await endpoint(m, '/f-all', ['*']);
    const c = await customer(m);
    const patched = await t.api(m.testKey, 'PATCH', `/api/v1/customers/${c.id}`, { name: 'Hina T.', phone: '+689 87 00 00 00' });
    assert.equal(patched.status, 200);
    await rx.waitFor(() => rx.for('/f-all').length === 2 && rx.for('/f-cust').length === 2 && rx.for('/f-created').length === 1);
    await sleep(300);
    assert.equal(rx.for('/f-pay').length, 0);
    assert.deepEqual(rx.for('/f-created').map((r) => r.body.type), ['customer.created']);
    const updated = rx.for('/f-all').find((r) => r.body.type === 'customer.updated')!;
    assert.deepEqual([...updated.body.data.updatedFields].sort(), ['name', 'phone']);
    assert.equal(updated.body.data.name, 'Hina T.');
    const bad = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/x'), events: ['payment.nope'] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details.field, 'events[0]');
  });

  it('refuses non-HTTPS URLs and, in live mode, targets on private, loopback or link-local addresses', async () => {
    const m = await createMerchant(t);
    const cases: [string, string][] = [
      [m.liveKey, 'https://127.0.0.1/hook'],
      [m.liveKey, 'https://10.1.2.3/hook'],
      [m.liveKey, 'https://192.168.1.10/hook'],
      [m.liveKey, 'https://169.254.169.254/latest/meta-data'],
      [m.liveKey, 'https://[::1]/hook'],
      [m.liveKey, 'https://localhost/hook'],
      [m.liveKey, 'http://127.0.0.1:4000/hook'],
      [m.testKey, 'http://example.com/hook'],
      [m.testKey, 'ftp://example.com/hook'],
    ];
    for (const [key, url] of cases) {
      const res = await t.api(key, 'POST', '/api/v1/webhook-endpoints', { url, events: ['*'] });
      assert.equal(res.status, 400, `${url} should be refused`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.equal(res.body.details.field, 'url');
    }
    const live = await t.api(m.liveKey, 'POST', '/api/v1/webhook-endpoints', { url: 'https://93.184.215.14/hook', events: ['*'] });
    assert.equal(live.status, 201, JSON.stringify(live.body));
    const local = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:4000/hook', events: ['*'] });
    assert.equal(local.status, 201);
  });

  it('manages endpoints: list, read, patch, delete, isolation, agency addresses', async () => {
    const m = await createMerchant(t);
    const ep = await endpoint(m, '/crud', ['payment.*']);
    const list = await t.api(m.testKey, 'GET', '/api/v1/webhook-endpoints');
    assert.deepEqual(list.body.data.map((e: any) => e.id), [ep.id]);
    assert.equal((await t.api(m.liveKey, 'GET', `/api/v1/webhook-endpoints/${ep.id}`)).status, 404);
    const patched = await t.api(m.testKey, 'PATCH', `/api/v1/webhook-endpoints/${ep.id}`, { events: ['customer.*'], description: 'crm' });
    assert.deepEqual(patched.body.events, ['customer.*']);
    assert.equal(patched.body.description, 'crm');
    const disabled = await t.api(m.testKey, 'PATCH', `/api/v1/webhook-endpoints/${ep.id}`, { enabled: false });
    assert.equal(disabled.body.enabled, false);
    await customer(m, 'not-sent');
    const del = await t.api(m.testKey, 'DELETE', `/api/v1/webhook-endpoints/${ep.id}`);
    assert.equal(del.status, 200);
    assert.equal((await t.api(m.testKey, 'GET', `/api/v1/webhook-endpoints/${ep.id}`)).status, 404);
    assert.equal(rx.for('/crud').length, 0);
    const notYet = await t.api(m.testKey, 'POST', '/api/v1/agency/webhooks', { url: rx.url('/agency') });
    assert.deepEqual([notYet.status, notYet.body.code], [403, 'PERMISSION_DENIED'], 'agency addresses are for agencies');
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { agency: true })).status, 200);
    const agency = await t.api(m.testKey, 'POST', '/api/v1/agency/webhooks', { url: rx.url('/agency') });
    assert.equal(agency.status, 201);
    assert.deepEqual(agency.body.events, ['agency.*']);
    assert.equal(agency.body.kind, 'agency');
    const wrong = await t.api(m.testKey, 'POST', '/api/v1/agency/webhooks', { url: rx.url('/agency'), events: ['payment.*'] });
    assert.equal(wrong.status, 400);
  });

  it('lists endpoints newest first in pages: limit, startingAfter, hasMore; a cursor from elsewhere is a 400', async () => {
    const m = await createMerchant(t);
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      created.push((await endpoint(m, `/page-${i}`, ['*'])).id);
      await sleep(3); // creation times a few milliseconds apart: a known order
    }
    const gone = created[2]!;
    assert.equal((await t.api(m.testKey, 'DELETE', `/api/v1/webhook-endpoints/${gone}`)).status, 200);
    const expected = created.filter((id) => id !== gone).reverse();
    const first = await t.api(m.testKey, 'GET', '/api/v1/webhook-endpoints?limit=3');
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.data.map((e: any) => e.id), expected.slice(0, 3));
    assert.equal(first.body.hasMore, true);
    const last = first.body.data[2].id;
    const second = await t.api(m.testKey, 'GET', `/api/v1/webhook-endpoints?limit=3&startingAfter=${last}`);
    assert.deepEqual(second.body.data.map((e: any) => e.id), expected.slice(3));
    assert.equal(second.body.hasMore, false);
    const all = await t.api(m.testKey, 'GET', '/api/v1/webhook-endpoints');
    assert.deepEqual(all.body.data.map((e: any) => e.id), expected);
    const other = await createMerchant(t);
    const foreign = await t.api(other.testKey, 'GET', `/api/v1/webhook-endpoints?startingAfter=${created[0]}`);
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.details.field, 'startingAfter');
    for (const query of ['limit=0', 'limit=101', 'limit=two', 'colour=red']) {
      const bad = await t.api(m.testKey, 'GET', `/api/v1/webhook-endpoints?${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.code, 'VALIDATION_ERROR');
    }
  });

  it('lists events with filters and cursor pagination, and reads one', async () => {
    const m = await createMerchant(t);
    const start = new Date(Date.now() - 1000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await customer(m, `c${i}`)).id);
    await t.api(m.testKey, 'PATCH', `/api/v1/customers/${ids[0]}`, { name: 'changed' });
    const all = await t.api(m.testKey, 'GET', '/api/v1/events?limit=100');
    assert.equal(all.status, 200);
    assert.equal(all.body.data.length, 6);
    assert.equal(all.body.data[0].type, 'customer.updated');
    const created = await t.api(m.testKey, 'GET', '/api/v1/events?type=customer.created');
    assert.equal(created.body.data.length, 5);
    const wildcard = await t.api(m.testKey, 'GET', '/api/v1/events?type=customer.*');
    assert.equal(wildcard.body.data.length, 6);
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await t.api(m.testKey, 'GET', `/api/v1/events?limit=2${cursor ? `&startingAfter=${cursor}` : ''}`);
      seen.push(...page.body.data.map((e: any) => e.id));
      if (!page.body.hasMore) break;
      cursor = page.body.data.at(-1).id;
    }
    assert.deepEqual(seen, all.body.data.map((e: any) => e.id));
    const future = await t.api(m.testKey, 'GET', `/api/v1/events?createdAfter=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    assert.equal(future.body.data.length, 0);
    const since = await t.api(m.testKey, 'GET', `/api/v1/events?createdAfter=${encodeURIComponent(start)}&createdBefore=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    assert.equal(since.body.data.length, 6);
    const one = await t.api(m.testKey, 'GET', `/api/v1/events/${all.body.data[0].id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data.updatedFields, ['name']);
    assert.equal((await t.api(m.liveKey, 'GET', `/api/v1/events/${one.body.id}`)).status, 404);
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/events?paymentId=pay_none')).body.data.length, 0);
  });
});
