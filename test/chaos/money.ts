// Chaos, the merchant's money, run by `npm run test:chaos`: a real `motu serve` (API and worker in one process) under a
// load of paid payments (some on the simulator's dispute cards), disputes opened by the test helper, evidence that the
// simulated bank decides, operator closes, and payouts (EUR to an account the test bank pays, XPF to one it refuses)
// is SIGKILLed at random moments and restarted. Afterwards, once the worker has answered every payout and decided every
// dispute it can: no payout carries two `payout` transactions or was both paid and credited back, every failed or
// cancelled one is credited back exactly once, each payout has one payout.created and at most one final event, each
// chargeback has one `dispute` and one `dispute_fee` transaction and a reversal only when won, and `motu ledger verify`
// finds nothing. Sizes: CHAOS_KILLS (default 10), CHAOS_CLIENTS (default 6).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/modules/ledger/verify.js';
import { call, CHAOS_ADMIN, MotuProcess, tally } from '../support/chaos.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../support/harness.js';
import { freePort } from '../support/ports.js';
import { sleep } from '../support/wait.js';

const KILLS = Number(process.env.CHAOS_KILLS ?? 10);
const CLIENTS = Number(process.env.CHAOS_CLIENTS ?? 6);
const ENV = { MOTU_TEST_PAYOUT_SECONDS: '1', MOTU_TEST_SETTLEMENT_DELAY: '1' };
const CARDS = ['4242424242424242', '4242424242424242', '4000000000000259', '4000000000002685', '4000000000001976', '4000000000000077'];

eachDatabase('chaos: money', (dialect) => {
  let d: TestDatabase;
  let server: MotuProcess;
  let key: string;
  let merchantId: string;

  before(async () => {
    d = await freshDatabase(dialect);
    server = new MotuProcess(d, await freePort(), 'all', ENV);
    await server.start();
    const m = await call(server.url, 'POST', '/admin/v1/merchants', CHAOS_ADMIN, { name: 'Chaos money' });
    assert.equal(m.status, 201, JSON.stringify(m.body));
    key = m.body.testSecretKey;
    merchantId = m.body.id;
    for (const [currency, iban] of [['EUR', 'FR7630006000010000000000152'], ['XPF', 'FR7630006000010000000000346']]) {
      const res = await call(server.url, 'POST', '/api/v1/bank-accounts', key, { iban, holderName: 'Chaos', currency });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    // Funds for the payouts the clients ask for under load (captures become available only at the next settlement run).
    for (const currency of ['EUR', 'XPF']) {
      const res = await call(server.url, 'POST', `/admin/v1/merchants/${merchantId}/adjustments`, CHAOS_ADMIN, { mode: 'test', currency, amount: 10_000_000, reason: 'chaos funds' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    // Automatic payouts would race the clients' manual ones harmlessly, but the test counts the clients' own.
    assert.equal((await call(server.url, 'PATCH', '/api/v1/payout-schedule', key, { interval: 'manual' })).status, 200);
  });
  after(async () => {
    await server?.kill();
    await d?.drop();
  });

  /** One client: pays, disputes, submits evidence, asks for payouts, until told to stop. Every answer may be cut by a kill. */
  async function client(n: number, stop: () => boolean) {
    const url = () => server.url;
    for (let i = 0; !stop(); i++) {
      const currency = i % 3 === 0 ? 'XPF' : 'EUR';
      const s = await call(url(), 'POST', '/api/v1/payments/sessions', key, {
        order: { reference: `M${n}-${i}`, amount: currency === 'XPF' ? 5_000 + i : 3_000 + i, currency }, email: 'chaos@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/hook',
      });
      if (s.status !== 201) { await sleep(100); continue; }
      const token = await call(url(), 'POST', '/acquirer/v1/tokens', key, { mode: 'test', number: CARDS[(n + i) % CARDS.length], expMonth: 12, expYear: 2040, cvc: '123', session: s.body.sessionId });
      if (token.status !== 201) continue;
      const paid = await call(url(), 'POST', `/checkout/${s.body.sessionId}/pay`, key, { token: token.body.token });
      if (paid.status !== 200) continue;
      const roll = Math.random();
      if (roll < 0.4) {
        const dp = await call(url(), 'POST', `/api/v1/test-helpers/payments/${s.body.paymentId}/dispute`, key, { amount: 1_000 });
        if (dp.status === 201) {
          const text = ['winning_evidence', 'losing_evidence', 'waits'][i % 3];
          if (i % 4 === 0) await call(url(), 'POST', `/api/v1/disputes/${dp.body.id}/accept`, key, {});
          else if (i % 4 === 1) await call(url(), 'POST', `/admin/v1/disputes/${dp.body.id}/close`, CHAOS_ADMIN, { outcome: i % 2 ? 'won' : 'lost' });
          else await call(url(), 'POST', `/api/v1/disputes/${dp.body.id}/evidence`, key, { uncategorizedText: text, submit: true });
        }
      } else if (roll < 0.6) {
        await call(url(), 'POST', '/api/v1/payouts', key, { currency, amount: 500 + i });
      }
    }
  }

  test(`the server SIGKILLed ${KILLS} times during payouts and dispute transitions: no payout paid twice, no posting lost or doubled`, async () => {
    let stopping = false;
    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n, () => stopping));
    for (let k = 0; k < KILLS; k++) {
      await sleep(1_000 + Math.random() * 2_500);
      await server.kill('SIGKILL');
      tally.faults++;
      await sleep(Math.random() * 300);
      await server.start();
    }
    await sleep(1_000);
    stopping = true;
    await Promise.all(clients);
    // One last payout of each whole balance, then the worker answers everything (test bank after 1 s, disputes after 2 s).
    for (const currency of ['EUR', 'XPF']) await call(server.url, 'POST', '/api/v1/payouts', key, { currency });
    const k = d.db.kysely;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const open = await k.selectFrom('payouts').select('id').where('merchant_id', '=', merchantId).where('status', 'in', ['pending', 'in_transit']).execute();
      const deciding = await k.selectFrom('disputes').select('id').where('merchant_id', '=', merchantId).where('test_outcome', 'is not', null).where('status', '=', 'under_review').execute();
      if (open.length === 0 && deciding.length === 0) break;
      assert.ok(Date.now() < deadline, `${open.length} payouts unanswered and ${deciding.length} disputes undecided after a minute`);
      await sleep(500);
    }

    const payouts = await k.selectFrom('payouts').selectAll().where('merchant_id', '=', merchantId).execute();
    const txns = await k.selectFrom('balance_transactions').select(['type', 'source_id', 'amount']).where('merchant_id', '=', merchantId).execute();
    const events = (await k.selectFrom('webhook_events').select(['type', 'body']).where('merchant_id', '=', merchantId).execute())
      .map((e) => ({ type: e.type, data: JSON.parse(e.body).data }));
    const count = (type: string, id: string) => txns.filter((x) => x.type === type && x.source_id === id).length;
    const eventsOf = (type: string, key: string, id: string) => events.filter((e) => e.type === type && e.data[key] === id).length;
    for (const p of payouts) {
      tally.invariants += 4;
      assert.equal(count('payout', p.id), 1, `payout ${p.id}: one payout transaction`);
      assert.equal(count('payout_failure', p.id), p.status === 'paid' ? 0 : 1, `payout ${p.id} ${p.status}: credited back ${p.status === 'paid' ? 'never' : 'once'}`);
      assert.equal(eventsOf('payout.created', 'payoutId', p.id), 1);
      assert.equal(eventsOf('payout.completed', 'payoutId', p.id) + eventsOf('payout.failed', 'payoutId', p.id), 1, `payout ${p.id}: one final event`);
      assert.equal(p.status, p.currency === 'EUR' ? 'paid' : 'failed', 'EUR payouts are paid, XPF ones refused');
    }
    const disputes = await k.selectFrom('disputes').selectAll().where('merchant_id', '=', merchantId).execute();
    for (const dp of disputes) {
      tally.invariants += 4;
      const chargeback = dp.kind === 'chargeback';
      assert.equal(count('dispute', dp.id), chargeback ? 1 : 0, `dispute ${dp.id}`);
      assert.equal(count('dispute_fee', dp.id), chargeback ? 1 : 0, `dispute ${dp.id} fee`);
      assert.equal(count('dispute_reversal', dp.id), chargeback && dp.status === 'won' ? 1 : 0, `dispute ${dp.id} ${dp.status}: reversal`);
      assert.equal(eventsOf('dispute.created', 'disputeId', dp.id), 1);
    }
    const books = await verifyLedger(d.db);
    tally.invariants += books.counted.transactions;
    assert.deepEqual(books.differences, [], 'ledger verify after the kills');
    assert.ok(payouts.length > 0 && disputes.length > 0, `only ${payouts.length} payouts and ${disputes.length} disputes under load`);
    console.log(`chaos money [${dialect}]: ${KILLS} SIGKILLs, ${payouts.length} payouts (${payouts.filter((p) => p.status === 'paid').length} paid), `
      + `${disputes.length} disputes (${JSON.stringify(Object.fromEntries([...new Set(disputes.map((x) => x.status))].map((s) => [s, disputes.filter((x) => x.status === s).length])))}), `
      + `ledger verify clean over ${books.counted.transactions} balance transactions`);
  });
});
