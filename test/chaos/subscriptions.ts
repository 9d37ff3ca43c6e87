// Chaos, subscriptions, run by `npm run test:chaos`: a real `motu serve` (API and worker together) charges the daily
// subscriptions of customers on test clocks, which the test keeps advancing, and is SIGKILLed at random moments while
// due dates are being opened and charged. Afterwards, once every clock is ready: every due date up to each clock's time
// was opened (none lost), no due date has more than one captured payment, every paid one exactly one, and every payment
// of a subscription belongs to a due date's attempt; `ledger verify` is clean.
// Sizes: CHAOS_KILLS (default 10), CHAOS_CLIENTS (default 6: customers, each on its own clock with two subscriptions).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/modules/ledger/verify.js';
import { call, CHAOS_ADMIN, MotuProcess, tally } from '../support/chaos.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../support/harness.js';
import { freePort } from '../support/ports.js';
import { sleep } from '../support/wait.js';

const KILLS = Number(process.env.CHAOS_KILLS ?? 10);
const CUSTOMERS = Number(process.env.CHAOS_CLIENTS ?? 6);
const START = Date.parse('2027-01-01T00:00:00.000Z');
const DAY = 86_400_000;

eachDatabase('chaos: subscriptions', (dialect) => {
  let d: TestDatabase;
  let server: MotuProcess;
  let key: string;
  const clocks: string[] = [];

  before(async () => {
    d = await freshDatabase(dialect);
    server = new MotuProcess(d, await freePort(), 'all', { MOTU_OPERATION_CLAIM_SECONDS: '5' });
    await server.start();
    const m = await call(server.url, 'POST', '/admin/v1/merchants', CHAOS_ADMIN, { name: 'Chaos subscriptions' });
    assert.equal(m.status, 201, JSON.stringify(m.body));
    key = m.body.testSecretKey;
    for (let n = 0; n < CUSTOMERS; n++) {
      const clock = await call(server.url, 'POST', '/api/v1/test-helpers/test-clocks', key, { frozenTime: new Date(START).toISOString() });
      const customer = await call(server.url, 'POST', '/api/v1/customers', key, { email: `chaos-${n}@example.com`, testClockId: clock.body.id });
      for (const number of ['4242424242424242', '4000000000000341']) {
        const session = await call(server.url, 'POST', `/api/v1/customers/${customer.body.id}/sessions`, key, { returnUrl: 'https://shop.example/w' });
        const token = await call(server.url, 'POST', '/acquirer/v1/tokens', key, { mode: 'test', number, expMonth: 12, expYear: 2040, cvc: '123', session: session.body.sessionId });
        const saved = await call(server.url, 'POST', `/api/v1/sdk/sessions/${session.body.sessionId}/submit`, key, { token: token.body.token });
        assert.equal(saved.status, 200, JSON.stringify(saved.body));
        const sub = await call(server.url, 'POST', '/api/v1/subscriptions', key, {
          customerId: customer.body.id, paymentMethodId: saved.body.paymentMethodId, amount: 1000 + n, currency: 'EUR', interval: 'day', retrySchedule: [1, 1],
        });
        assert.equal(sub.status, 201, JSON.stringify(sub.body));
      }
      clocks.push(clock.body.id);
    }
  });
  after(async () => {
    await server?.kill();
    await d?.drop();
  });

  test(`the server SIGKILLed ${KILLS} times while due dates are charged: none lost, none charged twice`, async () => {
    let stopping = false;
    const targets = new Map<string, number>(clocks.map((id) => [id, START]));
    // Each customer's clock is moved on by a few days whenever it is ready, until told to stop.
    const movers = clocks.map(async (id) => {
      while (!stopping) {
        const now = await call(server.url, 'GET', `/api/v1/test-helpers/test-clocks/${id}`, key);
        if (now.status === 200 && now.body.status === 'ready') {
          const to = Date.parse(now.body.frozenTime) + 3 * DAY;
          const res = await call(server.url, 'POST', `/api/v1/test-helpers/test-clocks/${id}/advance`, key, { frozenTime: new Date(to).toISOString() });
          if (res.status === 200) targets.set(id, to);
        }
        await sleep(200);
      }
    });
    for (let k = 0; k < KILLS; k++) {
      await sleep(1_000 + Math.random() * 2_500);
      await server.kill('SIGKILL');
      tally.faults++;
      await sleep(Math.random() * 300);
      await server.start();
    }
    stopping = true;
    await Promise.all(movers);
    // Every clock ready again (a run a kill cut short is taken over after its claim lapses: a minute).
    const deadline = Date.now() + 150_000;
    for (const id of clocks) {
      for (;;) {
        const now = await call(server.url, 'GET', `/api/v1/test-helpers/test-clocks/${id}`, key);
        if (now.body?.status === 'ready') break;
        assert.ok(Date.now() < deadline, `clock ${id} still advancing`);
        await sleep(500);
      }
    }
    const k = d.db.kysely;
    // Charges a kill left claimed are finished by the worker once their claim lapses (MOTU_OPERATION_CLAIM_SECONDS).
    for (;;) {
      const charging = await k.selectFrom('subscription_due_dates').select('subscription_id').where('status', '=', 'charging').execute();
      if (charging.length === 0) break;
      assert.ok(Date.now() < deadline + 150_000, `${charging.length} due dates still charging`);
      await sleep(1_000);
    }
    const subs = await k.selectFrom('subscriptions').selectAll().execute();
    let dueDates = 0;
    for (const sub of subs) {
      const clock = await k.selectFrom('test_clocks').select('frozen_time').where('id', '=', sub.test_clock_id!).executeTakeFirstOrThrow();
      const rows = await k.selectFrom('subscription_due_dates').selectAll().where('subscription_id', '=', sub.id).execute();
      const payments = await k.selectFrom('payments').select(['id', 'due_date', 'status']).where('subscription_id', '=', sub.id).execute();
      const reached = Math.floor((Date.parse(clock.frozen_time) - START) / DAY) + 1;
      tally.invariants += rows.length + 2;
      if (sub.status === 'active') assert.equal(rows.length, reached, `${sub.id}: every due date up to ${clock.frozen_time} opened`);
      for (const row of rows) {
        const captured = payments.filter((p) => p.due_date === row.due_date && p.status === 'captured').length;
        assert.ok(captured <= 1, `${sub.id} ${row.due_date}: charged ${captured} times`);
        if (row.status === 'paid') assert.equal(captured, 1, `${sub.id} ${row.due_date}: paid by one payment`);
        assert.ok(payments.filter((p) => p.due_date === row.due_date).length <= Math.max(row.attempts, 1), `${sub.id} ${row.due_date}: no payment beyond its attempts`);
      }
      assert.ok(payments.every((p) => rows.some((r) => r.due_date === p.due_date)), `${sub.id}: every payment belongs to a due date`);
      dueDates += rows.length;
    }
    const books = await verifyLedger(d.db);
    assert.deepEqual(books.differences, [], 'ledger verify after the kills');
    assert.ok(dueDates > subs.length, `only ${dueDates} due dates under load`);
    console.log(`chaos subscriptions [${dialect}]: ${KILLS} SIGKILLs, ${subs.length} subscriptions, ${dueDates} due dates, `
      + `${JSON.stringify(Object.fromEntries([...new Set(subs.map((s) => s.status))].map((s) => [s, subs.filter((x) => x.status === s).length])))}; ledger verify clean`);
  });
});
