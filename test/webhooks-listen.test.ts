// `motu listen`: the stream route and the forwarding client, over real HTTP.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { verifyWebhook } from '../src/events/verify.js';
import { listen } from '../src/start/listen.js';
import { eachDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createMerchant } from './support/factories.js';
import { eventually, sleep } from './support/wait.js';

eachDatabase('motu listen', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, receiver: true });
  const { t, m, rx } = suite;

  it('forwards each new event, signed with the test secret, and prints one line per event', async () => {
    const other = await createMerchant(t, 'Someone else');
    const lines: string[] = [];
    const abort = new AbortController();
    const running = listen({ apiUrl: suite.baseUrl, secretKey: m.testKey, forwardTo: rx.url('/local'), print: (l) => lines.push(l), signal: abort.signal });
    await eventually('motu listen prints Ready', () => lines.some((l) => l.startsWith('Ready')), 10_000, 10);
    await sleep(300);
    const c = await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Listen' });
    await t.api(other.testKey, 'POST', '/api/v1/customers', { name: 'Not mine' });
    await t.api(m.liveKey, 'POST', '/api/v1/customers', { name: 'Live' });
    await t.api(m.testKey, 'PATCH', `/api/v1/customers/${c.body.id}`, { name: 'Listen 2' });
    await rx.waitFor(() => rx.for('/local').length >= 2, 5000);
    await sleep(500);
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
    await assert.rejects(listen({ apiUrl: suite.baseUrl, secretKey: m.liveKey, forwardTo: rx.url('/x'), print: () => {} }), /test secret key/);
  });
});

eachDatabase('GET /events/stream', (dialect) => {
  const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
  const suite = withMerchantApp(dialect, { clock, serve: true });
  const { t, m } = suite;

  it('sends every event of a millisecond with more events than one page (500), then the next ones', async () => {
    const abort = new AbortController();
    const res = await fetch(`${suite.baseUrl}/api/v1/events/stream`, { headers: { authorization: `Bearer ${m.testKey}` }, signal: abort.signal });
    assert.equal(res.status, 200);
    const ids: string[] = [];
    const bodies: string[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        const reader = res.body!.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const id = /^id: (\S+)$/m.exec(message)?.[1];
            if (id) {
              ids.push(id);
              bodies.push(/^data: (.*)$/m.exec(message)![1]!);
            }
          }
        }
      } catch {
        /* aborted */
      }
    })();
    // 620 customers, every one created at the same instant (the clock does not move), then one a second later.
    const created: string[] = [];
    for (let i = 0; i < 620; i += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, (_, j) => t.api(m.testKey, 'POST', '/api/v1/customers', { name: `Burst ${i + j}` })));
      for (const r of batch) {
        assert.equal(r.status, 201);
        created.push(r.body.id);
      }
    }
    clock.advance(1000);
    const late = await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'A second later' });
    created.push(late.body.id);
    await eventually(() => `every event on the stream (${ids.length} of ${created.length})`, () => ids.length >= created.length, 10_000);
    await sleep(400); // nothing more, nothing twice
    abort.abort();
    await reading;
    assert.equal(ids.length, created.length);
    assert.equal(new Set(ids).size, ids.length);
    const customers = bodies.map((b) => JSON.parse(b).data.object?.id ?? JSON.parse(b).data.id);
    assert.deepEqual(new Set(customers), new Set(created));
  });
});
