// Disputes through HTTP on every database: opened by the test helper, the simulator's dispute cards and the operator;
// the money (dispute and its fee at opening, the reversal when won, nothing for an inquiry) as the balance and the
// transactions show it; refunds limited by what is disputed; evidence saved, submitted once, decided by the simulated
// bank; accept; the 7-day deadline, on real time and on a test clock; events with previousStatus, to the payment's
// notificationUrl too; every error code; isolation; `motu disputes …`; ledger verify clean throughout.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { paymentEvents } from './support/events.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paidPayment, paySession } from './support/payments.js';
import { paymentSchedule } from './support/schedule.js';

const DAY = 86_400_000;

eachDatabase('disputes', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now', env: { MOTU_TEST_SETTLEMENT_DELAY: '60' } });
  const api = (method: string, url: string, body?: unknown, key = m.testKey) => t.api(key, method, url, body);
  const tick = () => paymentSchedule(t, clock).tick();
  const available = async (currency = 'EUR', key = m.testKey) =>
    ((await api('GET', '/api/v1/balance', undefined, key)).body.available as Array<{ currency: string; amount: number }>).find((b) => b.currency === currency)?.amount ?? 0;
  const settled = async (options: Parameters<typeof paidPayment>[2] = {}) => {
    const id = await paidPayment(t, m.testKey, options);
    clock.advance(61_000);
    await tick();
    return id;
  };
  const dispute = async (paymentId: string, body: Record<string, unknown> = {}, key = m.testKey) => {
    const res = await api('POST', `/api/v1/test-helpers/payments/${paymentId}/dispute`, body, key);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };
  const books = async () => {
    const result = await verifyLedger(t.db);
    assert.deepEqual(result.differences, [], 'ledger verify finds nothing');
  };
  const txns = async (disputeId: string) =>
    ((await api('GET', `/api/v1/balance-transactions?sourceId=${disputeId}&limit=100`)).body.data as Array<{ type: string; amount: number; amountEur: number; status: string }>)
      .map((x) => [x.type, x.amount, x.amountEur, x.status]).sort();
  const disputeEvents = async (paymentId: string) => (await paymentEvents(t, paymentId)).filter((e) => e.type.startsWith('dispute.'));

  it('a chargeback takes its amount and the 15 EUR fee from the available balance at once, and blocks refunds of it', async () => {
    const id = await settled({ amount: 10_000 });
    const before = await available();
    const d = await dispute(id, { reason: 'fraudulent', amount: 6000 });
    assert.match(d.id, /^dp_/);
    assert.deepEqual({ ...d, id: undefined, createdAt: undefined, evidenceDueBy: undefined }, {
      id: undefined, paymentId: id, kind: 'chargeback', reason: 'fraudulent', amount: 6000, currency: 'EUR', amountEur: 6000,
      status: 'needs_response', evidence: {}, evidenceSubmittedAt: null, createdAt: undefined, closedAt: null, evidenceDueBy: undefined,
    });
    assert.equal(Date.parse(d.evidenceDueBy) - Date.parse(d.createdAt), 7 * DAY);
    assert.equal(await available(), before - 6000 - 1500);
    assert.deepEqual(await txns(d.id), [['dispute', -6000, -6000, 'available'], ['dispute_fee', -1500, -1500, 'available']]);
    const payment = (await api('GET', `/api/v1/payments/${id}`)).body;
    assert.equal(payment.disputedAmount, 6000);
    assert.equal(payment.status, 'captured', 'a dispute does not change the payment status');
    const [created] = await disputeEvents(id);
    assert.deepEqual(created.data, {
      disputeId: d.id, paymentId: id, kind: 'chargeback', reason: 'fraudulent', amount: 6000, currency: 'EUR', status: 'needs_response', evidenceDueBy: d.evidenceDueBy,
    });
    // Sent to the payment's notificationUrl like its payment events.
    const targets = await t.db.kysely.selectFrom('webhook_deliveries as d').innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .select('d.url').where('e.type', '=', 'dispute.created').where('e.payment_id', '=', id).execute();
    assert.deepEqual(targets.map((x) => x.url), ['https://shop.example/hook']);

    // 10,000 captured, 6,000 disputed: 4,000 may be refunded, not a cent more.
    const over = await api('POST', `/api/v1/payments/${id}/refund`, { amount: 4001 });
    assert.equal(over.status, 422);
    assert.equal(over.body.code, 'PAYMENT_DISPUTED');
    assert.equal((await api('POST', `/api/v1/payments/${id}/refund`, { amount: 4000 })).status, 201);
    const rest = await api('POST', `/api/v1/payments/${id}/refund`, {});
    assert.equal(rest.status, 422);
    assert.equal(rest.body.code, 'PAYMENT_DISPUTED');
    const again = await api('POST', `/api/v1/test-helpers/payments/${id}/dispute`, {});
    assert.equal(again.status, 422);
    assert.equal(again.body.code, 'PAYMENT_NOT_DISPUTABLE');
    await books();
  });

  it('evidence: drafts merge, one submission puts it under review, the simulated bank decides winning_evidence: won, the amount comes back and the fee stays', async () => {
    const id = await settled({ amount: 8000 });
    const d = await dispute(id);
    const afterOpening = await available();
    const draft = await api('POST', `/api/v1/disputes/${d.id}/evidence`, { productDescription: 'Blue pareo', submit: false });
    assert.equal(draft.status, 200);
    assert.equal(draft.body.status, 'needs_response');
    const merged = await api('POST', `/api/v1/disputes/${d.id}/evidence`, { uncategorizedText: 'winning_evidence', submit: false });
    assert.deepEqual(merged.body.evidence, { productDescription: 'Blue pareo', uncategorizedText: 'winning_evidence' });
    const sent = await api('POST', `/api/v1/disputes/${d.id}/evidence`, { shippingTracking: 'CP123456789PF', submit: true });
    assert.equal(sent.status, 200);
    assert.equal(sent.body.status, 'under_review');
    assert.ok(sent.body.evidenceSubmittedAt);
    for (const [url, body] of [[`/api/v1/disputes/${d.id}/evidence`, { uncategorizedText: 'more', submit: true }], [`/api/v1/disputes/${d.id}/accept`, {}]] as const) {
      const res = await api('POST', url, body);
      assert.equal(res.status, 422, url);
      assert.equal(res.body.code, 'DISPUTE_EVIDENCE_SUBMITTED');
    }
    await tick();
    assert.equal((await api('GET', `/api/v1/disputes/${d.id}`)).body.status, 'under_review', 'decided a moment later, not at once');
    clock.advance(3000);
    await tick();
    const won = (await api('GET', `/api/v1/disputes/${d.id}`)).body;
    assert.equal(won.status, 'won');
    assert.ok(won.closedAt);
    assert.equal(await available(), afterOpening + 8000);
    assert.deepEqual(await txns(d.id), [['dispute', -8000, -8000, 'available'], ['dispute_fee', -1500, -1500, 'available'], ['dispute_reversal', 8000, 8000, 'available']]);
    assert.equal((await api('GET', `/api/v1/payments/${id}`)).body.disputedAmount, 0);
    assert.deepEqual((await disputeEvents(id)).map((e) => [e.type, e.data.status, e.data.previousStatus]), [
      ['dispute.created', 'needs_response', undefined], ['dispute.updated', 'under_review', 'needs_response'], ['dispute.updated', 'won', 'under_review'],
    ]);
    const closed = await api('POST', `/api/v1/disputes/${d.id}/accept`, {});
    assert.equal(closed.status, 422);
    assert.equal(closed.body.code, 'DISPUTE_CLOSED');
    await books();
  });

  it('losing_evidence is lost, accepted is lost at once, no evidence by the deadline is lost; an inquiry moves no money', async () => {
    const losing = await dispute(await settled());
    await api('POST', `/api/v1/disputes/${losing.id}/evidence`, { uncategorizedText: 'losing_evidence', submit: true });
    const accepted = await dispute(await settled());
    const res = await api('POST', `/api/v1/disputes/${accepted.id}/accept`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'lost');
    const inquiryPayment = await settled({ amount: 3000 });
    const before = await available();
    const inquiry = await dispute(inquiryPayment, { kind: 'inquiry', reason: 'general' });
    assert.equal(inquiry.status, 'warning_needs_response');
    assert.deepEqual(await txns(inquiry.id), []);
    assert.equal(await available(), before, 'an inquiry moves no money');
    const silent = await dispute(await settled());
    clock.advance(7 * DAY - 5000);
    await tick();
    assert.equal((await api('GET', `/api/v1/disputes/${silent.id}`)).body.status, 'needs_response', 'not before the deadline');
    clock.advance(5000);
    await tick();
    const get = async (id: string) => (await api('GET', `/api/v1/disputes/${id}`)).body;
    assert.equal((await get(losing.id)).status, 'lost');
    assert.equal((await get(silent.id)).status, 'lost');
    assert.equal((await get(inquiry.id)).status, 'warning_closed');
    assert.deepEqual(await txns(silent.id), [['dispute', -10000, -10000, 'available'], ['dispute_fee', -1500, -1500, 'available']], 'lost: nothing comes back');
    const list = (await api('GET', '/api/v1/disputes?status=lost&limit=100')).body.data.map((x: { id: string }) => x.id);
    for (const id of [losing.id, accepted.id, silent.id]) assert.ok(list.includes(id));
    assert.ok(!list.includes(inquiry.id));
    const csv = await t.api(m.testKey, 'GET', '/api/v1/disputes?status=lost', undefined, { accept: 'text/csv' });
    assert.equal(csv.status, 200);
    const lines = String(csv.body).trim().split('\r\n');
    assert.equal(lines[0], 'id,paymentId,kind,reason,amount,currency,amountEur,status,evidenceDueBy,evidenceSubmittedAt,createdAt,closedAt');
    assert.equal(lines.length - 1, list.length);
    await books();
  });

  it('the simulator dispute cards: 0259 fraudulent and 2685 product_not_received chargebacks, 1976 an inquiry, each for the whole capture; 0077 settles at once', async () => {
    const cards: Array<[string, string, string]> = [
      ['4000000000000259', 'chargeback', 'fraudulent'], ['4000000000002685', 'chargeback', 'product_not_received'], ['4000000000001976', 'inquiry', 'general'],
    ];
    const ids: string[] = [];
    for (const [card] of cards) ids.push(await paidPayment(t, m.testKey, { card, amount: 4200 }));
    await tick();
    for (const id of ids) assert.deepEqual(await disputeEvents(id), [], 'not at the capture itself');
    clock.advance(3000);
    await tick();
    await tick();
    for (const [i, [, kind, reason]] of cards.entries()) {
      const found = (await api('GET', `/api/v1/disputes?paymentId=${ids[i]}`)).body.data;
      assert.equal(found.length, 1, `one dispute for ${cards[i]![0]}`);
      assert.deepEqual([found[0].kind, found[0].reason, found[0].amount], [kind, reason, 4200]);
    }
    const instant = await paidPayment(t, m.testKey, { card: '4000000000000077', amount: 5000 });
    const before = await available();
    clock.advance(1000);
    await tick();
    const p = (await api('GET', `/api/v1/payments/${instant}`)).body;
    assert.equal(p.settled, true, 'settled without the settlement delay (60 s here)');
    assert.ok(Date.parse(p.settledAt) - Date.parse(p.capturedAt) < 1000);
    assert.ok(await available() > before);
    await books();
  });

  it("the contract's disputeFee (PATCH /admin/v1/contracts) is charged, converted for XPF; the operator opens and closes live disputes, by API and command", async () => {
    const patched = await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { disputeFee: 2000 });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.disputeFee, 2000);
    assert.equal((await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { disputeFee: -1 })).status, 400);
    const xpf = await settled({ amount: 11_933, currency: 'XPF' });
    const d = await dispute(xpf);
    // 20 EUR = 2386.63… XPF at 119.33 XPF per euro: 2387 francs, and exactly -2000 EUR cents.
    assert.deepEqual(await txns(d.id), [['dispute', -11_933, -10_000, 'available'], ['dispute_fee', -2387, -2000, 'available']]);

    const live = await t.admin('POST', `/admin/v1/payments/${xpf}/disputes`, { kind: 'chargeback', reason: 'duplicate' });
    assert.equal(live.status, 422, 'nothing left to dispute');
    assert.equal((await t.admin('POST', `/admin/v1/payments/pay_nope/disputes`, { kind: 'chargeback', reason: 'duplicate' })).status, 404);
    assert.equal((await t.admin('POST', `/admin/v1/disputes/${d.id}/close`, { outcome: 'maybe' })).status, 400);
    const won = await t.admin('POST', `/admin/v1/disputes/${d.id}/close`, { outcome: 'won' });
    assert.equal(won.status, 200);
    assert.equal(won.body.status, 'won');
    assert.equal((await t.admin('POST', `/admin/v1/disputes/${d.id}/close`, { outcome: 'lost' })).body.code, 'DISPUTE_CLOSED');
    await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { disputeFee: 1500 });

    const eur = await settled({ amount: 2500 });
    const root = path.resolve(import.meta.dirname, '..');
    const env: NodeJS.ProcessEnv = { ...process.env, MOTU_DATA_DIR: t.dataDir, LOG_LEVEL: 'warn' };
    for (const name of ['DATABASE_URL', 'MOTU_ADMIN_TOKEN', 'MOTU_SEED_DEMO']) delete env[name];
    if (t.databaseUrl) env.DATABASE_URL = t.databaseUrl;
    const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'src/start/main.ts'), ...args], { cwd: root, env, encoding: 'utf8' });
    const bad = cli('disputes', 'open', eur, '--kind', 'chargeback', '--reason', 'bored');
    assert.equal(bad.status, 1);
    const opened = cli('disputes', 'open', eur, '--kind', 'chargeback', '--reason', 'credit_not_processed', '--amount', '1000');
    assert.equal(opened.status, 0, opened.stdout + opened.stderr);
    const row = JSON.parse(opened.stdout);
    assert.deepEqual([row.reason, row.amount, row.status], ['credit_not_processed', 1000, 'needs_response']);
    const lost = cli('disputes', 'close', row.id, '--outcome', 'lost');
    assert.equal(lost.status, 0, lost.stdout + lost.stderr);
    assert.equal(JSON.parse(lost.stdout).status, 'lost');
    await books();
  });

  it("a dispute on a test clock's customer payment: its deadline runs on the clock", async () => {
    const start = new Date(Math.floor(clock.now().getTime() / 1000) * 1000 - 30 * DAY);
    const c = (await api('POST', '/api/v1/test-helpers/test-clocks', { frozenTime: start.toISOString() })).body;
    const customerId = (await api('POST', '/api/v1/customers', { email: 'clocked-dispute@example.com', testClockId: c.id })).body.id;
    const session = await createSession(t, m.testKey, { amount: 2000, extra: { customerId, email: undefined, externalId: undefined } });
    await paySession(t, session.sessionId);
    const d = await dispute(session.paymentId);
    assert.equal(d.createdAt, start.toISOString());
    assert.equal(d.evidenceDueBy, new Date(start.getTime() + 7 * DAY).toISOString());
    await tick();
    assert.equal((await api('GET', `/api/v1/disputes/${d.id}`)).body.status, 'needs_response', 'a month of real time past its deadline: the clock holds it');
    await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime: new Date(start.getTime() + 8 * DAY).toISOString() });
    await tick();
    const closed = (await api('GET', `/api/v1/disputes/${d.id}`)).body;
    assert.equal(closed.status, 'lost');
    assert.equal(closed.closedAt, new Date(start.getTime() + 7 * DAY).toISOString(), 'closed at the deadline, in clock time');
    await books();
  });

  it('the worked example of docs/money.md, to the cent', async () => {
    const x = await createMerchant(t, 'Worked example');
    const key = x.testKey;
    const balance = async () => {
      const b = (await api('GET', '/api/v1/balance', undefined, key)).body;
      const of = (rows: Array<{ currency: string; amount: number }>) => rows.find((r) => r.currency === 'EUR')?.amount ?? 0;
      return [of(b.available), of(b.pending)];
    };
    const id = await paidPayment(t, key, { amount: 10_000, captureMode: 'MANUAL' });
    assert.deepEqual(await balance(), [0, 0]);
    assert.equal((await api('POST', `/api/v1/payments/${id}/capture`, { amount: 7000 }, key)).status, 200);
    assert.deepEqual(await balance(), [0, 6768]);
    clock.advance(61_000);
    await tick();
    assert.deepEqual(await balance(), [6768, 0]);
    assert.equal((await api('POST', `/api/v1/payments/${id}/refund`, { amount: 2500 }, key)).status, 201);
    assert.deepEqual(await balance(), [4268, 0]);
    const d = await dispute(id, { amount: 2000 }, key);
    assert.deepEqual(await balance(), [768, 0]);
    assert.equal((await api('GET', `/api/v1/payments/${id}`, undefined, key)).body.disputedAmount, 2000);
    assert.equal((await api('POST', `/api/v1/payments/${id}/refund`, { amount: 2501 }, key)).body.code, 'PAYMENT_DISPUTED');
    assert.equal((await api('POST', `/api/v1/disputes/${d.id}/evidence`, { uncategorizedText: 'winning_evidence', submit: true }, key)).status, 200);
    clock.advance(3000);
    await tick();
    assert.equal((await api('GET', `/api/v1/disputes/${d.id}`, undefined, key)).body.status, 'won');
    assert.deepEqual(await balance(), [2768, 0]);
    assert.equal((await api('POST', '/api/v1/bank-accounts', { iban: 'FR7630006000010000000000152', holderName: 'Worked', currency: 'EUR' }, key)).status, 201);
    const payout = await api('POST', '/api/v1/payouts', { currency: 'EUR' }, key);
    assert.equal(payout.body.amount, 2768);
    assert.deepEqual(await balance(), [0, 0]);
    const carried = (await api('GET', `/api/v1/payouts/${payout.body.id}/transactions?limit=100`, undefined, key)).body.data as Array<{ type: string; amount: number }>;
    assert.deepEqual(carried.map((c) => [c.type, c.amount]).sort(), [
      ['dispute', -2000], ['dispute_fee', -1500], ['dispute_reversal', 2000], ['payment', 7000], ['payment_fee', -232], ['refund', -2500],
    ]);
    assert.equal(carried.reduce((sum, c) => sum + c.amount, 0), 2768);
  });

  it('bad input is a 400 that changes nothing; a live key gets 403 on the helper; another merchant or mode gets 404', async () => {
    const id = await settled();
    for (const body of [{ kind: 'fight' }, { reason: 'bored' }, { amount: 0 }, { amount: 1.5 }, { extra: true }]) {
      const res = await api('POST', `/api/v1/test-helpers/payments/${id}/dispute`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.deepEqual((await api('GET', `/api/v1/disputes?paymentId=${id}`)).body.data, []);
    const d = await dispute(id);
    for (const body of [{}, { submit: 'yes' }, { uncategorizedText: 'x'.repeat(20_001), submit: false }, { notes: 'x', submit: false }]) {
      const res = await api('POST', `/api/v1/disputes/${d.id}/evidence`, body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    }
    assert.deepEqual((await api('GET', `/api/v1/disputes/${d.id}`)).body.evidence, {});
    assert.equal((await api('GET', '/api/v1/disputes?status=open')).status, 400);
    const live = await api('POST', `/api/v1/test-helpers/payments/${id}/dispute`, {}, m.liveKey);
    assert.equal(live.status, 403);
    assert.equal(live.body.code, 'PERMISSION_DENIED');
    const other = await createMerchant(t, 'Other disputes');
    for (const key of [other.testKey, m.liveKey]) {
      assert.equal((await api('GET', `/api/v1/disputes/${d.id}`, undefined, key)).status, 404);
      assert.equal((await api('POST', `/api/v1/disputes/${d.id}/accept`, {}, key)).status, 404);
      assert.equal((await api('POST', `/api/v1/disputes/${d.id}/evidence`, { submit: true }, key)).status, 404);
      assert.deepEqual((await api('GET', '/api/v1/disputes', undefined, key)).body.data, []);
    }
    assert.equal((await api('POST', `/api/v1/test-helpers/payments/${id}/dispute`, {}, other.testKey)).status, 404);
    assert.equal((await api('GET', `/api/v1/disputes/${d.id}`)).body.status, 'needs_response');
  });
});
