// Chaos, live, run by `npm run test:chaos`: the crash storm of test/chaos/crash.ts with live keys, every card going
// through the Monext connector to the fake Monext (test/support/fake-monext.ts, in this process: it outlives the kills,
// as Monext outlives Motu's). The `motu serve` process is SIGKILLed at random moments while clients pay in the
// widget, capture and refund; each kill can land between Motu's call to Monext and Motu's record of its answer.
// After the storm, Motu's invariants (test/support/chaos.ts, checkLedger; `motu ledger verify`) and Monext's side:
// for every payment, what Monext captured and refunded is exactly what Motu recorded — nothing captured or refunded
// twice at Monext, nothing Monext did that Motu does not know. Live webhooks only go to public https addresses, so
// event delivery is checked by test/chaos/crash.ts, not here. Sizes: CHAOS_KILLS, CHAOS_CLIENTS as crash.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/modules/ledger/verify.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../support/harness.js';
import { FAKE_MONEXT_CREDENTIALS, FakeMonext, MONEXT_CARDS } from '../support/fake-monext.js';
import {
  call, CHAOS_ADMIN, checkLedger, client, MotuProcess, newLedger, retryUnanswered, tally, waitForRefundRecovery, type CardEntry,
} from '../support/chaos.js';
import { freePort } from '../support/ports.js';
import { sleep } from '../support/wait.js';

const KILLS = Number(process.env.CHAOS_KILLS ?? 10);
const CLIENTS = Number(process.env.CHAOS_CLIENTS ?? 6);
const RECOVERY_SECONDS = process.env.CHAOS_RECOVERY_SECONDS ?? '10';
const CLAIM_SECONDS = '15';

eachDatabase('chaos: live through Monext', (dialect) => {
  let d: TestDatabase;
  let fake: FakeMonext;
  let server: MotuProcess;
  let key: string;
  const report: string[] = [];

  before(async () => {
    fake = await new FakeMonext().start();
    d = await freshDatabase(dialect);
    server = new MotuProcess(d, await freePort(), 'all', {
      MOTU_REFUND_RECOVERY_SECONDS: RECOVERY_SECONDS, MOTU_MONEXT_API_URL: fake.url, MOTU_MONEXT_TIMEOUT_MS: '5000',
      // A capture a kill cut after Monext took it is recorded by the claim recovery, this long after it started.
      MOTU_OPERATION_CLAIM_SECONDS: CLAIM_SECONDS,
    });
    await server.start();
    const m = await call(server.url, 'POST', '/admin/v1/merchants', CHAOS_ADMIN, { name: 'Chaos Live' });
    assert.equal(m.status, 201, JSON.stringify(m.body));
    const connected = await call(server.url, 'PATCH', `/admin/v1/contracts/${m.body.defaultContractId}`, CHAOS_ADMIN, {
      acquirer: 'monext', monext: { ...FAKE_MONEXT_CREDENTIALS, environment: 'homologation' },
    });
    assert.equal(connected.status, 200, JSON.stringify(connected.body));
    key = m.body.liveSecretKey;
  });
  after(async () => {
    await server?.kill();
    await fake?.stop();
    await d?.drop();
    for (const line of report) console.log(line);
    console.log(`chaos live [${dialect}] totals: faults ${tally.faults}, requests ${tally.requests}, invariants ${tally.invariants}`);
  });

  /** The cardholder in Monext's widget: Motu opens the widget session, the card is typed in the fake's widget. */
  const widgetCard: CardEntry = async (url, k, sessionId) => {
    const entry = await call(url, 'POST', '/acquirer/v1/monext/sessions', k, { session: sessionId });
    if (entry.status !== 201) return null;
    fake.payInWidget(entry.body.token, MONEXT_CARDS.visa);
    return entry.body.token;
  };

  test(`the server SIGKILLed ${KILLS} times while live cards go through Monext: nothing lost, nothing captured or refunded twice at Monext`, async () => {
    const ledger = newLedger();
    const requestsBefore = tally.requests;
    let stopping = false;
    const clients = Array.from({ length: CLIENTS }, (_, n) =>
      client(server.url, key, 'https://shop.example/notify', ledger, () => stopping, `L${n}`, widgetCard));
    let lastKill = Date.now();
    for (let k = 0; k < KILLS; k++) {
      await sleep(1_000 + Math.random() * 2_500);
      await server.kill('SIGKILL');
      lastKill = Date.now();
      tally.faults++;
      await sleep(Math.random() * 300);
      await server.start();
    }
    await sleep(1_000);
    stopping = true;
    await Promise.all(clients);
    assert.ok(ledger.payments.size > KILLS, `only ${ledger.payments.size} payments under load`);
    const unanswered = ledger.unanswered.size;
    if (unanswered > 0) await sleep(Math.max(0, lastKill + 62_000 - Date.now()));
    await retryUnanswered(server.url, key, ledger);
    const recovery = await waitForRefundRecovery(server.url, key, ledger, (Number(RECOVERY_SECONDS) + 60) * 1000);
    assert.equal(recovery.left, 0, 'refunds left pending');
    const invariantsBefore = tally.invariants;
    const { statuses } = await checkLedger(server.url, key, ledger);

    // Monext's side, payment by payment: its captures and refunds are Motu's, each once. A capture a kill cut after
    // Monext took it is Motu's once the claim recovery has read it back (MOTU_OPERATION_CLAIM_SECONDS): until then the
    // payment is `transit` at Motu and captured at Monext, so the comparison waits for the recovery, then must hold.
    const monextSide = (id: string) => {
      const txs = [...fake.transactions.values()].filter((tx) => tx.orderReference === id);
      const ok = (type: string) => txs.flatMap((tx) => tx.associated.filter((a) => a.type === type && a.status === 'OK'));
      const captured = txs.filter((tx) => tx.type === 'AUTHORIZATION_AND_CAPTURE' && tx.result.title === 'ACCEPTED').reduce((s, tx) => s + tx.amount, 0)
        + ok('CAPTURE').reduce((s, a) => s + a.amount, 0);
      return { captures: ok('CAPTURE').length, captured, refunded: ok('REFUND').reduce((s, a) => s + a.amount, 0) };
    };
    const differences = async () => {
      const out: string[] = [];
      for (const id of ledger.payments) {
        const p = await call(server.url, 'GET', `/api/v1/payments/${id}`, key);
        const m = monextSide(id);
        if (m.captured !== p.body.capturedAmount || m.refunded !== p.body.refundedAmount) {
          out.push(`${id} (${p.body.status}): Monext captured ${m.captured} and refunded ${m.refunded}, Motu recorded ${p.body.capturedAmount} and ${p.body.refundedAmount}`);
        }
      }
      return out;
    };
    const waitUntil = Date.now() + (Number(CLAIM_SECONDS) + 45) * 1000;
    let differing = await differences();
    const differingAtFirst = differing.length;
    while (differing.length > 0 && Date.now() < waitUntil) {
      await sleep(3_000);
      differing = await differences();
    }
    assert.deepEqual(differing, [], 'what Monext did and what Motu recorded');
    let capturedAtMonext = 0;
    let refundedAtMonext = 0;
    for (const id of ledger.payments) {
      const m = monextSide(id);
      tally.invariants += 3;
      assert.ok(m.captures <= 1, `${id}: captured ${m.captures} times at Monext`);
      capturedAtMonext += m.captured;
      refundedAtMonext += m.refunded;
    }
    const books = await verifyLedger(d.db);
    tally.invariants += books.counted.transactions;
    assert.equal(books.ok, true, `ledger verify after the kills: ${JSON.stringify(books.differences)}`);
    report.push(
      `chaos live [${dialect}]: ${KILLS} SIGKILLs, ${tally.requests - requestsBefore} requests, ${ledger.payments.size} payments, ` +
      `${fake.requests.length} calls to Monext, captured ${capturedAtMonext} and refunded ${refundedAtMonext} at Monext = Motu's records, ` +
      `${unanswered} POSTs cut by a kill retried after 62 s, ${recovery.pendingAtStop} payments with a refund pending when the load stopped, ` +
      `${differingAtFirst} captures Monext took under a kill recorded by the claim recovery, ` +
      `payment statuses ${JSON.stringify(statuses)}, ledger verify clean over ${books.counted.transactions} balance transactions, invariants ${tally.invariants - invariantsBefore}`,
    );
  });
});
