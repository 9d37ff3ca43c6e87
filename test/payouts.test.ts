// Payouts through HTTP on every database: the available balance paid out whole or in part to the default or a chosen
// account, the transactions each carries summing to it, the simulated bank's answers by IBAN (paid, or failed and
// credited back), three failures in a row making the account errored, live payouts pending until the operator records
// the bank's answer or the merchant cancels, every error code, isolation; ledger verify clean throughout.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { before, it } from 'node:test';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { eventsOfType } from './support/events.js';
import { createKey, createMerchant, createStore } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';
import { paymentSchedule } from './support/schedule.js';

const PAID_IBAN = 'FR7630006000010000000000152';
const FAILS: Record<string, string> = {
  FR7630006000010000000000249: 'no_account',
  FR7630006000010000000000346: 'account_closed',
  FR7630006000010000000000443: 'declined',
  FR7630006000010000000000540: 'could_not_process',
};

eachDatabase('payouts', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now', env: { MOTU_TEST_SETTLEMENT_DELAY: '60', MOTU_TEST_PAYOUT_SECONDS: '30' } });
  const api = (method: string, url: string, body?: unknown, key = m.testKey) => t.api(key, method, url, body);
  const available = async (currency = 'EUR', key = m.testKey) =>
    ((await api('GET', '/api/v1/balance', undefined, key)).body.available as Array<{ currency: string; amount: number }>).find((b) => b.currency === currency)?.amount ?? 0;
  const settle = async () => {
    clock.advance(120_000);
    await paymentSchedule(t, clock).tick();
  };
  const bankAnswers = async () => {
    clock.advance(31_000);
    return paymentSchedule(t, clock).services.payouts.answerDueTestPayouts(clock.now());
  };
  const account = async (iban: string, currency = 'EUR', key = m.testKey) => {
    const res = await api('POST', '/api/v1/bank-accounts', { iban, holderName: 'Fare Ute SARL', currency }, key);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { id: string };
  };
  const books = async () => assert.equal((await verifyLedger(t.db)).ok, true);

  before(async () => {
    for (const amount of [10_000, 4_000, 2_500]) await paidPayment(t, m.testKey, { amount });
    await settle();
  });

  it('refused without a bank account in the currency (NO_BANK_ACCOUNT) or beyond the balance (INSUFFICIENT_BALANCE); nothing written', async () => {
    const before = await available();
    assert.ok(before > 0);
    const none = await api('POST', '/api/v1/payouts', { currency: 'EUR' });
    assert.equal(none.status, 422);
    assert.equal(none.body.code, 'NO_BANK_ACCOUNT');
    await account(PAID_IBAN);
    const beyond = await api('POST', '/api/v1/payouts', { currency: 'EUR', amount: before + 1 });
    assert.equal(beyond.status, 422);
    assert.equal(beyond.body.code, 'INSUFFICIENT_BALANCE');
    assert.equal(beyond.body.details.available, before);
    const xpf = await api('POST', '/api/v1/payouts', { currency: 'XPF' });
    assert.equal(xpf.body.code, 'NO_BANK_ACCOUNT');
    for (const body of [{ currency: 'USD' }, { currency: 'EUR', amount: 0 }, { currency: 'EUR', amount: 1.5 }, { currency: 'EUR', colour: 'red' }]) {
      assert.equal((await api('POST', '/api/v1/payouts', body)).status, 400, JSON.stringify(body));
    }
    assert.deepEqual((await api('GET', '/api/v1/payouts')).body.data, []);
    assert.equal(await available(), before);
  });

  it('a payout of the whole balance: in transit at once, carries transactions summing to it, paid by the bank 30 s later', async () => {
    const before = await available();
    const res = await api('POST', '/api/v1/payouts', { currency: 'EUR', description: 'Weekly' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const payout = res.body;
    assert.match(payout.id, /^po_/);
    assert.equal(payout.amount, before);
    assert.equal(payout.status, 'in_transit');
    assert.equal(payout.automatic, false);
    assert.equal(Date.parse(payout.arrivalDate) - Date.parse(payout.createdAt), 30_000);
    assert.equal(await available(), 0);
    const carried = (await api('GET', `/api/v1/payouts/${payout.id}/transactions?limit=100`)).body.data as Array<{ amount: number; type: string; payoutId: string }>;
    assert.equal(carried.reduce((s, x) => s + x.amount, 0), payout.amount, 'the carried transactions sum to the payout');
    assert.ok(carried.every((x) => x.type !== 'payout' && x.payoutId === payout.id));
    const own = (await api('GET', `/api/v1/balance-transactions?sourceId=${payout.id}`)).body.data;
    assert.deepEqual(own.map((x: any) => [x.type, x.amount, x.status]), [['payout', -payout.amount, 'available']]);
    await books();

    assert.equal(await bankAnswers(), 1);
    const paid = (await api('GET', `/api/v1/payouts/${payout.id}`)).body;
    assert.equal(paid.status, 'paid');
    const [created] = (await eventsOfType(t, 'payout.created')).filter((e) => e.data.payoutId === payout.id);
    const [completed] = (await eventsOfType(t, 'payout.completed')).filter((e) => e.data.payoutId === payout.id);
    assert.deepEqual(created.data, { payoutId: payout.id, recipientId: payout.bankAccountId, amount: payout.amount, currency: 'EUR', status: 'in_transit', automatic: false, arrivalDate: payout.arrivalDate });
    assert.equal(completed.data.status, 'paid');
    assert.ok(!JSON.stringify([created, completed]).includes('3000600001'), 'no bank details in events');
    assert.equal((await api('POST', `/api/v1/payouts/${payout.id}/cancel`)).body.code, 'PAYOUT_NOT_CANCELLABLE');
  });

  it('a partial payout carries the transactions it covers in full; the next carries the rest', async () => {
    for (const amount of [3_000, 3_000, 3_000]) await paidPayment(t, m.testKey, { amount });
    await settle();
    const total = await available();
    const first = (await api('POST', '/api/v1/payouts', { currency: 'EUR', amount: 4_000 })).body;
    const carried = (await api('GET', `/api/v1/payouts/${first.id}/transactions?limit=100`)).body.data as Array<{ amount: number }>;
    const sum = carried.reduce((s, x) => s + x.amount, 0);
    assert.ok(sum <= 4_000 && carried.length > 0, `carried ${sum}`);
    assert.equal(await available(), total - 4_000);
    const rest = (await api('POST', '/api/v1/payouts', { currency: 'EUR' })).body;
    assert.equal(rest.amount, total - 4_000);
    const restCarried = (await api('GET', `/api/v1/payouts/${rest.id}/transactions?limit=100`)).body.data as Array<{ amount: number }>;
    assert.equal(sum + restCarried.reduce((s, x) => s + x.amount, 0), total, 'the two payouts carry everything, once');
    await bankAnswers();
    await books();
  });

  it('the test bank fails by IBAN: credited back (payout_failure), payout.failed with the reason; three in a row make the account errored', async () => {
    const merchant = await createMerchant(t, 'Failing bank');
    const fund = async (amount: number) => assert.equal((await t.admin('POST', `/admin/v1/merchants/${merchant.id}/adjustments`, { mode: 'test', currency: 'EUR', amount, reason: 'funding' })).status, 201);
    for (const [iban, reason] of Object.entries(FAILS)) {
      const acct = await account(iban, 'EUR', merchant.testKey);
      await fund(1_000);
      const payout = (await api('POST', '/api/v1/payouts', { currency: 'EUR', bankAccountId: acct.id }, merchant.testKey)).body;
      assert.equal(payout.status, 'in_transit', JSON.stringify(payout));
      assert.equal(await available('EUR', merchant.testKey), 0);
      await bankAnswers();
      const failed = (await api('GET', `/api/v1/payouts/${payout.id}`, undefined, merchant.testKey)).body;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failureReason, reason);
      assert.equal(await available('EUR', merchant.testKey), 1_000, 'credited back');
      const event = (await eventsOfType(t, 'payout.failed')).find((e) => e.data.payoutId === payout.id);
      assert.equal(event.data.failureReason, reason);
      // Spend it, so the next round starts from zero.
      await fund(-1_000);
    }
    // Three failures in a row on one account: errored.
    const fragile = await account('FR7630006000010000000000443', 'EUR', merchant.testKey);
    for (let i = 0; i < 3; i++) {
      await fund(500);
      assert.equal((await api('POST', '/api/v1/payouts', { currency: 'EUR', bankAccountId: fragile.id }, merchant.testKey)).status, 201);
      await bankAnswers();
      await fund(-500);
      const status = (await api('GET', `/api/v1/bank-accounts/${fragile.id}`, undefined, merchant.testKey)).body.status;
      assert.equal(status, i < 2 ? 'new' : 'errored', `after ${i + 1} failures`);
    }
    await books();
  });

  it('live: pending until the operator records the answer; the merchant may cancel a pending one (credited back, payout.failed "cancelled")', async () => {
    const fund = async (amount: number) => assert.equal((await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'live', currency: 'EUR', amount, reason: 'live funds' })).status, 201);
    await fund(9_000);
    await account(PAID_IBAN, 'EUR', m.liveKey);
    const one = (await api('POST', '/api/v1/payouts', { currency: 'EUR', amount: 4_000 }, m.liveKey)).body;
    assert.equal(one.status, 'pending');
    const cancelled = await api('POST', `/api/v1/payouts/${one.id}/cancel`, undefined, m.liveKey);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.failureReason, 'cancelled');
    assert.equal(await available('EUR', m.liveKey), 9_000);
    assert.equal((await eventsOfType(t, 'payout.failed')).find((e) => e.data.payoutId === one.id).data.failureReason, 'cancelled');

    const two = (await api('POST', '/api/v1/payouts', { currency: 'EUR' }, m.liveKey)).body;
    const paid = await t.admin('POST', `/admin/v1/payouts/${two.id}/paid`);
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.status, 'paid');
    assert.equal((await t.admin('POST', `/admin/v1/payouts/${two.id}/failed`, { failureReason: 'declined' })).body.code, 'PAYOUT_NOT_PENDING');
    await fund(700);
    const three = (await api('POST', '/api/v1/payouts', { currency: 'EUR' }, m.liveKey)).body;
    const failed = await t.admin('POST', `/admin/v1/payouts/${three.id}/failed`, { failureReason: 'account_closed' });
    assert.equal(failed.body.status, 'failed');
    assert.equal(await available('EUR', m.liveKey), 700);
    assert.equal((await t.admin('POST', `/admin/v1/payouts/${three.id}/failed`, { failureReason: 'bank_on_fire' })).status, 400);
    assert.equal((await t.admin('POST', '/admin/v1/payouts/po_nope/paid')).status, 404);
    // The same answers as `motu` commands.
    await fund(300);
    const four = (await api('POST', '/api/v1/payouts', { currency: 'EUR' }, m.liveKey)).body;
    const root = path.resolve(import.meta.dirname, '..');
    const env: NodeJS.ProcessEnv = { ...process.env, MOTU_DATA_DIR: t.dataDir, LOG_LEVEL: 'warn' };
    for (const name of ['DATABASE_URL', 'MOTU_ADMIN_TOKEN', 'MOTU_SEED_DEMO']) delete env[name];
    if (t.databaseUrl) env.DATABASE_URL = t.databaseUrl;
    const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'src/start/main.ts'), ...args], { cwd: root, env, encoding: 'utf8' });
    const bad = cli('payouts', 'failed', four.id, '--reason', 'bank_on_fire');
    assert.equal(bad.status, 1);
    const run = cli('payouts', 'failed', four.id, '--reason', 'declined');
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.equal(JSON.parse(run.stdout).failureReason, 'declined');
    assert.equal(await available('EUR', m.liveKey), 1_000);
    await books();
  });

  it('isolation: another merchant and the other mode see none (404); a store-bound key gets 403; a read key reads only', async () => {
    const mine = (await api('GET', '/api/v1/payouts?limit=1')).body.data[0];
    const other = await createMerchant(t, 'Other');
    for (const [method, url] of [['GET', `/api/v1/payouts/${mine.id}`], ['GET', `/api/v1/payouts/${mine.id}/transactions`], ['POST', `/api/v1/payouts/${mine.id}/cancel`]] as const) {
      assert.equal((await api(method, url, undefined, other.testKey)).status, 404, `${method} ${url}`);
      assert.equal((await api(method, url, undefined, m.liveKey)).status, 404, `${method} ${url} live`);
    }
    assert.deepEqual((await api('GET', '/api/v1/payouts', undefined, other.testKey)).body.data, []);
    const store = await createStore(t, m.id, { code: 'PO-1' });
    const storeKey = (await createKey(t, m.id, { mode: 'test', storeId: store.id })).secretKey;
    assert.equal((await api('GET', '/api/v1/payouts', undefined, storeKey)).status, 403);
    assert.equal((await api('POST', '/api/v1/payouts', { currency: 'EUR' }, storeKey)).status, 403);
    const readKey = (await createKey(t, m.id, { mode: 'test', permission: 'read' })).secretKey;
    assert.equal((await api('GET', `/api/v1/payouts/${mine.id}`, undefined, readKey)).status, 200);
    assert.equal((await api('POST', '/api/v1/payouts', { currency: 'EUR' }, readKey)).status, 403);
  });

  it('CSV: every payout, and every transaction a payout carries, streamed with Accept: text/csv', async () => {
    const listed = (await api('GET', '/api/v1/payouts?limit=100')).body.data as Array<{ id: string; amount: number; status: string }>;
    const csv = await t.api(m.testKey, 'GET', '/api/v1/payouts?limit=1', undefined, { accept: 'text/csv' });
    assert.equal(csv.status, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    const lines = String(csv.body).trim().split('\r\n');
    assert.equal(lines[0], 'id,amount,currency,status,automatic,bankAccountId,arrivalDate,description,failureReason,createdAt');
    assert.deepEqual(lines.slice(1).map((l) => l.split(',')[0]), listed.map((p) => p.id), 'every payout, whatever the limit');
    const whole = listed.find((p) => p.status === 'paid')!;
    const carried = await t.api(m.testKey, 'GET', `/api/v1/payouts/${whole.id}/transactions`, undefined, { accept: 'text/csv' });
    const rows = String(carried.body).trim().split('\r\n').slice(1).map((l) => l.split(','));
    const json = (await api('GET', `/api/v1/payouts/${whole.id}/transactions?limit=100`)).body.data as Array<{ id: string; amount: number }>;
    assert.deepEqual(rows.map((r) => r[0]).sort(), json.map((x) => x.id).sort());
    assert.equal(rows.reduce((sum, r) => sum + Number(r[2]), 0), json.reduce((sum, x) => sum + x.amount, 0));
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/payouts/po_nope/transactions', undefined, { accept: 'text/csv' })).status, 404);
  });
});
