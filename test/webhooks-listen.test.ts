// `motu listen`: the stream route and the forwarding client, over real HTTP.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { verifyWebhook } from '../src/events/verify.js';
import { listen } from '../src/start/listen.js';
import { eachDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createKey, createMerchant } from './support/factories.js';
import { signedInUser, type UserClient } from './support/back-office.js';
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

eachDatabase('an event stream ends with its credential', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, receiver: true });
  const { t, m, rx } = suite;

  /** Opens the stream with `headers`; answers the event ids read and a promise settled when the server ends it. */
  async function openStream(headers: Record<string, string>) {
    const abort = new AbortController();
    const res = await fetch(`${suite.baseUrl}/api/v1/events/stream`, { headers, signal: abort.signal });
    assert.equal(res.status, 200);
    const ids: string[] = [];
    let endedByServer = false;
    const ended = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          for (const match of decoder.decode(chunk, { stream: true }).matchAll(/^id: (\S+)$/gm)) ids.push(match[1]!);
        }
        endedByServer = true;
      } catch {
        /* aborted by the test */
      }
    })();
    await sleep(300);
    return { ids, ended, endedByServer: () => endedByServer, close: () => abort.abort() };
  }

  async function endsSoon(stream: Awaited<ReturnType<typeof openStream>>, what: string) {
    await eventually(`the stream ends after ${what}`, () => stream.endedByServer(), 6000, 50);
  }

  it('motu listen stops when its key is revoked, and forwards nothing made after', async () => {
    const key = await createKey(t, m.id, { mode: 'test' });
    const lines: string[] = [];
    const running = listen({ apiUrl: suite.baseUrl, secretKey: key.secretKey, forwardTo: rx.url('/revoked'), print: (l) => lines.push(l) });
    const outcome = running.then(() => 'returned', (err: Error) => err.message);
    await eventually('motu listen prints Ready', () => lines.some((l) => l.startsWith('Ready')), 10_000, 10);
    await sleep(300);
    await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Before' });
    await rx.waitFor(() => rx.for('/revoked').length === 1, 5000);
    assert.equal((await t.admin('DELETE', `/admin/v1/keys/${key.id}`)).status, 200);
    await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'After' });
    const message = await Promise.race([outcome, sleep(8000).then(() => 'still listening')]);
    assert.match(message, /401|revoked/i);
    await sleep(300);
    assert.equal(rx.for('/revoked').length, 1, 'nothing made after the revocation was forwarded');
  });

  it("a back-office session's stream ends at sign-out, removal and role change; a back-office key's at its revocation or its maker's role change", async () => {
    const owner = await signedInUser(t, m.id, 'owner');
    const streamOf = (user: UserClient) => openStream({ cookie: user.cookie });

    const signingOut = await signedInUser(t, m.id, 'developer');
    const s1 = await streamOf(signingOut);
    await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Seen' });
    await eventually('the session sees the event', () => s1.ids.length === 1, 5000, 20);
    assert.equal((await signingOut.call('POST', '/dashboard/api/sign-out')).status, 204);
    await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Not seen' });
    await endsSoon(s1, 'sign-out');
    assert.equal(s1.ids.length, 1, 'no event after sign-out');

    const removed = await signedInUser(t, m.id, 'developer');
    const s2 = await streamOf(removed);
    assert.equal((await owner.call('DELETE', `/dashboard/api/users/${removed.id}`)).status, 204);
    await endsSoon(s2, 'removal');

    const demoted = await signedInUser(t, m.id, 'developer');
    const s3 = await streamOf(demoted);
    assert.equal((await owner.call('PATCH', `/dashboard/api/users/${demoted.id}`, { role: 'analyst' })).status, 200);
    await endsSoon(s3, 'a role change');
    const reopened = await streamOf(demoted);
    await sleep(2500);
    assert.equal(reopened.endedByServer(), false, 'opened again with the new role, it stays open');
    reopened.close();

    const developer = await signedInUser(t, m.id, 'developer');
    const key = (await developer.call('POST', '/dashboard/api/keys', {})).body;
    const s4 = await openStream({ authorization: `Bearer ${key.secretKey}` });
    assert.equal((await developer.call('DELETE', `/dashboard/api/keys/${key.id}`)).status, 200);
    await endsSoon(s4, 'the key’s revocation');

    const maker = await signedInUser(t, m.id, 'developer');
    const made = (await maker.call('POST', '/dashboard/api/keys', {})).body;
    const s5 = await openStream({ authorization: `Bearer ${made.secretKey}` });
    assert.equal((await owner.call('PATCH', `/dashboard/api/users/${maker.id}`, { role: 'support' })).status, 200);
    await endsSoon(s5, 'its maker’s role change');
  });
});
