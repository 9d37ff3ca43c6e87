// Chaos, crash, run by `npm run test:chaos`: real `motu serve` processes under a steady
// load of payments, captures and refunds are SIGKILLed at random moments and restarted:
// - the server (role all: API and worker in one process), on SQLite and PostgreSQL;
// - on PostgreSQL, separately, the worker: `--role api` and `--role worker` run as two processes, and only the
//   worker is killed (with SQLite the worker cannot run apart: the server kills above kill it too).
// After each storm: refunds a kill left pending are settled by the worker's recover-refunds job
// (MOTU_REFUND_RECOVERY_SECONDS, short here) and none is left pending; every payment that got a 2xx is there; each of
// its events reached the healthy endpoint at least once; no capture or refund happened twice; captured − refunded per
// payment matches its events (test/support/chaos.ts, checkLedger). Then 50 concurrent captures/refunds/cancels on one
// payment and 50 identical requests under one Idempotency-Key.
// Sizes: CHAOS_KILLS (default 10), CHAOS_CLIENTS (default 6), CHAOS_RECOVERY_SECONDS (default 10).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/modules/ledger/verify.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import {
  call, CHAOS_ADMIN, checkLedger, client, MotuProcess, newLedger, percentile, retryUnanswered, tally, waitForRefundRecovery,
} from '../support/chaos.js';
import { freePort } from '../support/ports.js';
import { sleep } from '../support/wait.js';

const KILLS = Number(process.env.CHAOS_KILLS ?? 10);
const CLIENTS = Number(process.env.CHAOS_CLIENTS ?? 6);
const RECOVERY_SECONDS = process.env.CHAOS_RECOVERY_SECONDS ?? '10';
const ENV = { MOTU_REFUND_RECOVERY_SECONDS: RECOVERY_SECONDS };

eachDatabase('chaos: crash', (dialect) => {
  let d: TestDatabase;
  let server: MotuProcess;
  let receiver: Receiver;
  let key: string;
  const report: string[] = [];

  before(async () => {
    d = await freshDatabase(dialect);
    server = new MotuProcess(d, await freePort(), 'all', ENV);
    await server.start();
    receiver = await startReceiver();
    const m = await call(server.url, 'POST', '/admin/v1/merchants', CHAOS_ADMIN, { name: 'Chaos' });
    assert.equal(m.status, 201, JSON.stringify(m.body));
    key = m.body.testSecretKey;
    const e = await call(server.url, 'POST', '/api/v1/webhook-endpoints', key, { url: receiver.url('/healthy'), events: ['*'] });
    assert.equal(e.status, 201, JSON.stringify(e.body));
  });
  after(async () => {
    await server?.kill();
    await receiver?.close();
    await d?.drop();
    for (const line of report) console.log(line);
    console.log(`chaos crash [${dialect}] totals: faults ${tally.faults}, requests ${tally.requests}, invariants ${tally.invariants}`);
  });

  /** Load, `KILLS` SIGKILLs of `victim` at random moments, then recovery and every invariant. */
  async function storm(name: string, apiUrl: string, victim: MotuProcess) {
    const ledger = newLedger();
    const requestsBefore = tally.requests;
    let stopping = false;
    const clients = Array.from({ length: CLIENTS }, (_, n) => client(apiUrl, key, receiver.url('/notify'), ledger, () => stopping, `${name}${n}`));
    let lastKill = Date.now();
    for (let k = 0; k < KILLS; k++) {
      await sleep(1_000 + Math.random() * 2_500);
      await victim.kill('SIGKILL');
      lastKill = Date.now();
      tally.faults++;
      await sleep(Math.random() * 300);
      await victim.start();
    }
    await sleep(1_000);
    stopping = true;
    const stoppedAt = Date.now();
    await Promise.all(clients);
    assert.ok(ledger.payments.size > KILLS, `only ${ledger.payments.size} payments under load`);
    // The merchant's retries: every POST that got no answer, again with its Idempotency-Key, once the dead
    // request's in-flight claim is abandoned (60 s after it; src/http/idempotency.ts).
    const unanswered = ledger.unanswered.size;
    // Refunds a kill left pending, counted now: the worker's recover-refunds job settles them from here on.
    const pendingWhenStopped = (await waitForRefundRecovery(apiUrl, key, ledger, 0)).pendingAtStop;
    if (unanswered > 0) await sleep(Math.max(0, lastKill + 62_000 - Date.now()));
    const references = await retryUnanswered(apiUrl, key, ledger);
    // A session created twice under one key would show as two payments with the same order reference.
    for (const reference of references) {
      const listed = await call(apiUrl, 'GET', `/api/v1/payments?reference=${reference}`, key);
      tally.invariants++;
      assert.ok(listed.body.data.length <= 1, `${listed.body.data.length} payments for the one Idempotency-Key of order ${reference}`);
    }
    const requests = tally.requests - requestsBefore;

    const started = Date.now();
    const recovery = await waitForRefundRecovery(apiUrl, key, ledger, (Number(RECOVERY_SECONDS) + 60) * 1000);
    const recoveredIn = Date.now() - started;
    const invariantsBefore = tally.invariants;
    const { eventIds, statuses } = await checkLedger(apiUrl, key, ledger);
    await receiver.waitFor((got) => {
      const seen = new Set(got.filter((r) => r.path === '/healthy').map((r) => r.body.id));
      return eventIds.every((id) => seen.has(id));
    }, 180_000, 'every event at the healthy endpoint');
    const drainedIn = Date.now() - stoppedAt;
    tally.invariants += eventIds.length;
    const wanted = new Set(eventIds);
    const received = receiver.for('/healthy').filter((r) => wanted.has(r.body.id));
    const latencies = received.map((r) => r.at - Date.parse(r.body.createdAt)).sort((a, b) => a - b);
    report.push(
      `chaos crash [${dialect}] ${name}: ${KILLS} SIGKILLs, ${requests} requests, ${ledger.payments.size} payments, ${ledger.captures.size} captures, ` +
      `${ledger.refunds.size} refunds answered 201, ${unanswered} POSTs cut by a kill retried after 62 s, ${pendingWhenStopped} payments with a refund pending when the load stopped ` +
      `(${recovery.pendingAtStop} still pending after the retries, none ${recoveredIn} ms later), ` +
      `${eventIds.length} events (${received.length - eventIds.length} redelivered), healthy p50/p99/max ${percentile(latencies, 0.5)}/${percentile(latencies, 0.99)}/${latencies.at(-1)} ms, ` +
      `all delivered ${drainedIn} ms after the load stopped, payment statuses ${JSON.stringify(statuses)}, ` +
      `invariants ${tally.invariants - invariantsBefore}`,
    );
    // The books after the kills: every posting balances, every balance is its transactions, every payment's
    // transactions are its captured and refunded amounts (nothing lost or doubled by a kill mid-transaction).
    const books = await verifyLedger(d.db);
    tally.invariants += books.counted.transactions;
    assert.equal(books.ok, true, `ledger verify after the kills: ${JSON.stringify(books.differences)}`);
    report.push(`chaos crash [${dialect}] ${name}: ledger verify clean over ${books.counted.transactions} balance transactions and ${books.counted.payments} captured payments`);
  }

  test(`the server SIGKILLed ${KILLS} times under load: nothing answered 2xx is lost, events delivered, nothing twice, totals reconcile`, async () => {
    await storm('server', server.url, server);
  });

  test(`the worker SIGKILLed ${KILLS} times under load (--role api and --role worker apart)`, {
    skip: dialect === 'sqlite' ? 'SQLite: one process holds the API and the worker; the server kills cover it' : false,
  }, async () => {
    await server.kill('SIGTERM');
    const api = new MotuProcess(d, server.port, 'api', ENV);
    const worker = new MotuProcess(d, await freePort(), 'worker', ENV);
    await api.start();
    await worker.start();
    try {
      await storm('worker', api.url, worker);
    } finally {
      await worker.kill('SIGTERM');
      await api.kill('SIGTERM');
      await server.start(); // the next test uses the all-in-one server again
    }
  });

  test('50 concurrent captures, refunds and cancels on one payment; 50 identical requests with one Idempotency-Key', async () => {
    const invariantsBefore = tally.invariants;
    const s = await call(server.url, 'POST', '/api/v1/payments/sessions', key, {
      order: { reference: 'RACE', amount: 10_000, currency: 'EUR' }, captureMode: 'MANUAL', email: 'race@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: receiver.url('/notify'),
    });
    const token = await call(server.url, 'POST', '/acquirer/v1/tokens', key, { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: s.body.sessionId });
    const paid = await call(server.url, 'POST', `/checkout/${s.body.sessionId}/pay`, key, { token: token.body.token });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    const id = s.body.paymentId as string;
    const ops = Array.from({ length: 50 }, (_, i) =>
      i % 3 === 0 ? call(server.url, 'POST', `/api/v1/payments/${id}/capture`, key, { amount: 6_000 })
        : i % 3 === 1 ? call(server.url, 'POST', `/api/v1/payments/${id}/refund`, key, { amountCents: 700 })
          : call(server.url, 'POST', `/api/v1/payments/${id}/cancel`, key, {}));
    const results = await Promise.all(ops);
    tally.invariants += results.length;
    for (const r of results) assert.ok(r.status > 0 && r.status < 500, `server error ${r.status} ${JSON.stringify(r.body)}`);
    const captures = results.filter((r, i) => i % 3 === 0 && r.status === 200).length;
    const cancels = results.filter((r, i) => i % 3 === 2 && r.status === 200).length;
    const refunds = results.filter((r, i) => i % 3 === 1 && r.status === 201);
    const p = await call(server.url, 'GET', `/api/v1/payments/${id}`, key);
    const events = await call(server.url, 'GET', `/api/v1/events?paymentId=${id}&limit=100`, key);
    const types = (events.body.data as Array<{ type: string }>).map((e) => e.type);
    tally.invariants += 7;
    assert.equal(captures + cancels, 1, `exactly one of capture and cancel wins: captures ${captures}, cancels ${cancels}`);
    assert.ok(p.body.refundedAmount <= p.body.capturedAmount);
    assert.equal(p.body.refundedAmount, refunds.length * 700);
    assert.equal((p.body.refunds as unknown[]).length, refunds.length);
    assert.equal(types.filter((t) => t === 'payment.captured').length, captures);
    assert.equal(types.filter((t) => t === 'payment.cancelled').length, cancels);
    assert.equal(types.filter((t) => t === 'payment.refunded' || t === 'payment.partially_refunded').length, refunds.length);

    const body = { order: { reference: 'IDEM', amount: 5_000, currency: 'EUR' }, redirectUrl: 'https://shop.example/r', notificationUrl: receiver.url('/notify') };
    const same = await Promise.all(Array.from({ length: 50 }, () =>
      call(server.url, 'POST', '/api/v1/payments/sessions', key, body, { 'idempotency-key': 'one-key-for-fifty' })));
    const ids = new Set(same.filter((r) => r.status === 201).map((r) => r.body.paymentId));
    tally.invariants += same.length + 2;
    assert.equal(ids.size, 1, `one payment for fifty identical requests, got ${ids.size}: ${JSON.stringify(same.map((r) => r.status))}`);
    for (const r of same) assert.ok(r.status === 201 || r.body?.code === 'IDEMPOTENCY_KEY_IN_USE', `${r.status} ${JSON.stringify(r.body)}`);
    const listed = await call(server.url, 'GET', '/api/v1/payments?reference=IDEM', key);
    assert.equal(listed.body.data.length, 1);
    report.push(
      `chaos crash [${dialect}] concurrency: 50 lifecycle calls (captures ${captures}, cancels ${cancels}, refunds ${refunds.length}), ` +
      `50 identical requests → statuses ${JSON.stringify(Object.fromEntries([...new Set(same.map((r) => r.status))].map((s) => [s, same.filter((r) => r.status === s).length])))}, ` +
      `invariants ${tally.invariants - invariantsBefore}`,
    );
  });
});
