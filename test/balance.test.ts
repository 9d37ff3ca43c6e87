// The merchant's balance and its ledger through HTTP on every database: captures credit the pending balance and their
// fees debit it, settlement makes both available, refunds debit the available balance at once; the transactions'
// figures are the ones the events announced; lists, filters, CSV export, isolation; the operator's adjustments;
// `motu ledger verify` clean after all of it and loud about a tampered line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { post } from '../src/modules/ledger/postings.js';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { paymentEvents } from './support/events.js';
import { createKey, createMerchant, createStore } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';
import { paymentSchedule } from './support/schedule.js';

const ROOT = path.resolve(import.meta.dirname, '..');

eachDatabase('balance and ledger', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now', env: { MOTU_TEST_SETTLEMENT_DELAY: '60' } });
  const get = async (url: string, key = m.testKey) => (await t.api(key, 'GET', url)).body;
  const settleAll = async () => {
    clock.advance(120_000);
    await paymentSchedule(t, clock).tick();
  };
  const balanceOf = async (key = m.testKey) => {
    const b = await get('/api/v1/balance', key);
    const pick = (rows: Array<{ currency: string; amount: number }>, c: string) => rows.find((r) => r.currency === c)?.amount ?? 0;
    return { availableEur: pick(b.available, 'EUR'), pendingEur: pick(b.pending, 'EUR'), availableXpf: pick(b.available, 'XPF'), pendingXpf: pick(b.pending, 'XPF') };
  };

  it('a new merchant has an empty balance', async () => {
    const other = await createMerchant(t, 'Empty');
    assert.deepEqual(await get('/api/v1/balance', other.testKey), { available: [], pending: [] });
  });

  it('capture, settlement and refund move the balance by exactly what the events announce (EUR, partial capture)', async () => {
    const id = await paidPayment(t, m.testKey, { captureMode: 'MANUAL', amount: 10_000 });
    assert.deepEqual(await balanceOf(), { availableEur: 0, pendingEur: 0, availableXpf: 0, pendingXpf: 0 }, 'an authorization moves no money');
    assert.equal((await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/capture`, { amount: 7000 })).status, 200);
    const captured = (await paymentEvents(t, id)).find((e) => e.type === 'payment.captured')!;
    const fee = captured.data.settlement.mobupayCommission as number;
    // 7000 c × 2.5 % = 175 + TVA 28 = 203; fixed 25 + 4 = 29; Σ 232.
    assert.equal(fee, 232);
    assert.deepEqual(await balanceOf(), { availableEur: 0, pendingEur: 7000 - 232, availableXpf: 0, pendingXpf: 0 });

    const list = await get(`/api/v1/balance-transactions?sourceId=${id}`);
    assert.deepEqual(list.data.map((x: any) => [x.type, x.amount, x.amountEur, x.status, x.source]).sort(), [
      ['payment', 7000, 7000, 'pending', { type: 'payment', id }],
      ['payment_fee', -232, -232, 'pending', { type: 'payment', id }],
    ]);
    for (const x of list.data) {
      assert.match(x.id, /^txn_/);
      assert.equal(x.payoutId, null);
      assert.equal(Date.parse(x.availableOn) - Date.parse(x.createdAt), 60_000, 'expected one settlement delay after the capture');
    }

    await settleAll();
    assert.deepEqual(await balanceOf(), { availableEur: 6768, pendingEur: 0, availableXpf: 0, pendingXpf: 0 });
    const settledAt = (await paymentEvents(t, id)).find((e) => e.type === 'payment.settled')!;
    assert.ok(settledAt);
    for (const x of (await get(`/api/v1/balance-transactions?sourceId=${id}`)).data) assert.equal(x.status, 'available');

    const refund = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 2500 });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.deepEqual(await balanceOf(), { availableEur: 6768 - 2500, pendingEur: 0, availableXpf: 0, pendingXpf: 0 });
    const refunds = await get('/api/v1/balance-transactions?type=refund');
    assert.equal(refunds.data.length, 1);
    assert.equal(refunds.data[0].amount, -2500);
    assert.equal(refunds.data[0].status, 'available');
    assert.equal(refunds.data[0].availableOn, refunds.data[0].createdAt);
    assert.equal(refunds.data[0].source.type, 'refund');
    assert.equal((await get(`/api/v1/balance-transactions/${refunds.data[0].id}`)).id, refunds.data[0].id);
  });

  it('XPF: the payment in francs, its fee as the event rounds it, amountEur exact', async () => {
    const before = await balanceOf();
    const id = await paidPayment(t, m.testKey, { amount: 1000, currency: 'XPF' });
    const captured = (await paymentEvents(t, id)).find((e) => e.type === 'payment.captured')!;
    assert.equal(captured.data.settlement.mobupayCommission, 63);
    const rows = (await get(`/api/v1/balance-transactions?sourceId=${id}`)).data;
    const byType = Object.fromEntries(rows.map((x: any) => [x.type, x]));
    assert.equal(byType.payment.amount, 1000);
    assert.equal(byType.payment.currency, 'XPF');
    assert.equal(byType.payment.amountEur, 838);
    assert.equal(byType.payment_fee.amount, -63);
    assert.equal(byType.payment_fee.amountEur, -53);
    const after = await balanceOf();
    assert.equal(after.pendingXpf - before.pendingXpf, 937);
    assert.equal(after.pendingEur, before.pendingEur);
  });

  it('a cancelled authorization is charged the authorization fee its event announces; an expired one nothing', async () => {
    const contract = await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { authorizationFee: 10 });
    assert.equal(contract.status, 200, JSON.stringify(contract.body));
    try {
      const id = await paidPayment(t, m.testKey, { captureMode: 'MANUAL', amount: 5000 });
      assert.equal((await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/cancel`)).status, 200);
      const cancelled = (await paymentEvents(t, id)).find((e) => e.type === 'payment.cancelled')!;
      assert.equal(cancelled.data.settlement.netAmount, -12, '10 c + 20 % tax');
      const rows = (await get(`/api/v1/balance-transactions?sourceId=${id}`)).data;
      assert.deepEqual(rows.map((x: any) => [x.type, x.amount, x.status]), [['payment_fee', -12, 'available']]);
    } finally {
      await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { authorizationFee: 0 });
    }
  });

  it('lists page newest first, filter by type and dates; unknown cursor and bad filters are 400', async () => {
    const page = await get('/api/v1/balance-transactions?limit=2');
    assert.equal(page.data.length, 2);
    assert.equal(page.hasMore, true);
    const next = await get(`/api/v1/balance-transactions?limit=2&startingAfter=${page.data[1].id}`);
    assert.ok(next.data.every((x: any) => !page.data.some((y: any) => y.id === x.id)));
    assert.ok(next.data[0].createdAt <= page.data[1].createdAt);
    const all = (await get('/api/v1/balance-transactions?limit=100')).data;
    const oldest = all[all.length - 1];
    const after = (await get(`/api/v1/balance-transactions?limit=100&createdAfter=${encodeURIComponent(oldest.createdAt)}`)).data;
    assert.ok(after.every((x: any) => x.createdAt > oldest.createdAt));
    const beforeOldest = (await get(`/api/v1/balance-transactions?createdBefore=${encodeURIComponent(oldest.createdAt)}`)).data;
    assert.equal(beforeOldest.length, 0);
    assert.ok((await get('/api/v1/balance-transactions?type=payment_fee')).data.every((x: any) => x.type === 'payment_fee'));
    for (const query of ['type=bonus', 'createdAfter=yesterday', 'limit=0', 'startingAfter=txn_nope', 'colour=red']) {
      const res = await t.api(m.testKey, 'GET', `/api/v1/balance-transactions?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, 'VALIDATION_ERROR', query);
    }
  });

  it('CSV export: every matching row beyond any page, in batches, RFC 4180 quoting', async () => {
    const merchant = await createMerchant(t, 'Many rows');
    const owner = { merchantId: merchant.id, mode: 'test' as const, storeId: null };
    await t.db.transaction(async (trx) => {
      for (let i = 0; i < 1003; i++) {
        await post(trx, { owner, type: 'adjustment', amount: i + 1, currency: 'EUR', source: { type: 'adjustment', id: `adj-${i}` }, description: `row ${i}`, at: clock.now() });
      }
    });
    const quoted = await t.admin('POST', `/admin/v1/merchants/${merchant.id}/adjustments`, { mode: 'test', currency: 'EUR', amount: -7, reason: 'Fee "waiver", reversed\nsee ticket' });
    assert.equal(quoted.status, 201, JSON.stringify(quoted.body));
    const res = await t.api(merchant.testKey, 'GET', '/api/v1/balance-transactions?limit=1', undefined, { accept: 'text/csv' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    const text = res.body as string;
    assert.ok(text.startsWith('id,type,amount,currency,amountEur,status,availableOn,sourceType,sourceId,payoutId,description,createdAt\r\n'));
    // 1 header + 1004 rows; the quoted reason holds a line break inside its quotes.
    assert.equal(text.split('\r\n').filter(Boolean).length, 1005);
    assert.ok(text.includes('"Fee ""waiver"", reversed\nsee ticket"'));
    const sum = text.split('\r\n').slice(1).filter(Boolean).filter((l) => l.includes(',adjustment,') && l.startsWith('txn_') && !l.includes('"'))
      .reduce((s, l) => s + Number(l.split(',')[2]), 0);
    assert.equal(sum, (1003 * 1004) / 2);
    const filtered = await t.api(merchant.testKey, 'GET', `/api/v1/balance-transactions?sourceId=${quoted.body.id}`, undefined, { accept: 'text/csv' });
    assert.equal((filtered.body as string).split('\r\n').filter(Boolean).length, 2);
    assert.equal((await balanceOf(merchant.testKey)).availableEur, (1003 * 1004) / 2 - 7);
  });

  it('isolation: another merchant, the other mode and another store see none of it (404 on a read)', async () => {
    const mine = (await get('/api/v1/balance-transactions?limit=1')).data[0];
    const other = await createMerchant(t, 'Other');
    assert.equal((await t.api(other.testKey, 'GET', `/api/v1/balance-transactions/${mine.id}`)).status, 404);
    assert.equal((await t.api(m.liveKey, 'GET', `/api/v1/balance-transactions/${mine.id}`)).status, 404);
    assert.deepEqual((await get('/api/v1/balance-transactions', other.testKey)).data, []);
    assert.deepEqual(await get('/api/v1/balance', m.liveKey), { available: [], pending: [] });

    const store = await createStore(t, m.id, { code: 'ISO-1' });
    const storeKey = (await createKey(t, m.id, { mode: 'test', storeId: store.id })).secretKey as string;
    assert.deepEqual(await get('/api/v1/balance', storeKey), { available: [], pending: [] });
    assert.equal((await t.api(storeKey, 'GET', `/api/v1/balance-transactions/${mine.id}`)).status, 404);
    const id = await paidPayment(t, storeKey, { amount: 2000 });
    const seen = (await get('/api/v1/balance-transactions', storeKey)).data;
    assert.deepEqual(seen.map((x: any) => x.source.id), [id, id]);
    // 2000 c × 2.5 % = 50 + TVA 8; fixed 25 + 4: 87.
    assert.equal((await balanceOf(storeKey)).pendingEur, 2000 - 87);
    assert.ok((await balanceOf()).pendingEur >= 2000 - 87, 'the merchant-wide key sees the store too');
    const readKey = (await createKey(t, m.id, { mode: 'test', permission: 'read' })).secretKey as string;
    assert.equal((await t.api(readKey, 'GET', '/api/v1/balance')).status, 200);
  });

  it('adjustments: admin API and CLI; bad input changes nothing', async () => {
    const before = await balanceOf();
    const res = await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'test', currency: 'EUR', amount: 150, reason: 'Goodwill' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.type, 'adjustment');
    assert.equal(res.body.status, 'available');
    assert.equal(res.body.description, 'Goodwill');
    assert.deepEqual(res.body.source, { type: 'adjustment', id: res.body.id });
    assert.equal((await balanceOf()).availableEur, before.availableEur + 150);
    for (const body of [
      { mode: 'test', currency: 'EUR', amount: 0, reason: 'x' },
      { mode: 'test', currency: 'EUR', amount: 10 },
      { mode: 'test', currency: 'USD', amount: 10, reason: 'x' },
      { mode: 'test', currency: 'EUR', amount: 1.5, reason: 'x' },
      { mode: 'demo', currency: 'EUR', amount: 10, reason: 'x' },
    ]) {
      const bad = await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, body);
      assert.equal(bad.status, 400, JSON.stringify(body));
    }
    assert.equal((await t.admin('POST', '/admin/v1/merchants/mer_nope/adjustments', { mode: 'test', currency: 'EUR', amount: 5, reason: 'x' })).status, 404);
    assert.equal((await t.api(m.testKey, 'POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'test', currency: 'EUR', amount: 5, reason: 'x' })).status, 401);
    assert.equal((await balanceOf()).availableEur, before.availableEur + 150);
  });

  it('the balance kept with each posting equals its transactions after concurrent captures, adjustments, refunds and settlements', async () => {
    const shop = await createMerchant(t, 'Concurrent');
    const adjust = (amount: number, currency = 'EUR') =>
      t.admin('POST', `/admin/v1/merchants/${shop.id}/adjustments`, { mode: 'test', currency, amount, reason: 'Concurrent' });
    const paid = await Promise.all(Array.from({ length: 8 }, (_, i) => paidPayment(t, shop.testKey, { amount: 1000 + i, currency: i % 2 ? 'XPF' : 'EUR' })));
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => adjust(i % 3 ? 100 + i : -(50 + i), i % 4 ? 'EUR' : 'XPF')),
      ...Array.from({ length: 6 }, (_, i) => paidPayment(t, shop.testKey, { amount: 3000 + i })),
      ...paid.filter((_, i) => i % 2 === 0).map((id) => t.api(shop.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 10 })),
      settleAll(),
    ]);
    for (const a of answers) if (a && typeof a === 'object' && 'status' in a) assert.ok(a.status < 300, JSON.stringify(a.body));
    const transactions = (await get('/api/v1/balance-transactions?limit=100', shop.testKey)).data as Array<{ amount: number; currency: string; status: string }>;
    assert.ok(transactions.length > 30 && transactions.length < 100);
    const sum = (currency: string, status: string) => transactions.filter((x) => x.currency === currency && x.status === status).reduce((s, x) => s + x.amount, 0);
    const balance = await balanceOf(shop.testKey);
    assert.deepEqual(balance, { availableEur: sum('EUR', 'available'), pendingEur: sum('EUR', 'pending'), availableXpf: sum('XPF', 'available'), pendingXpf: sum('XPF', 'pending') });
    assert.ok(balance.availableEur !== 0 && balance.availableXpf !== 0);
    const result = await verifyLedger(t.db);
    assert.equal(result.ok, true, JSON.stringify(result.differences));
  });

  describe('motu ledger verify', () => {
    const cli = (...args: string[]) => {
      const env: NodeJS.ProcessEnv = { ...process.env, MOTU_DATA_DIR: t.dataDir, LOG_LEVEL: 'warn' };
      for (const name of ['DATABASE_URL', 'MOTU_ADMIN_TOKEN', 'MOTU_SEED_DEMO']) delete env[name];
      if (t.databaseUrl) env.DATABASE_URL = t.databaseUrl;
      const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/start/main.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
      return { status: run.status, out: run.stdout, err: run.stderr };
    };

    before(async () => {
      // A bit of everything on the books first: captures, a refund, an XPF payment, an adjustment.
      const id = await paidPayment(t, m.testKey, { amount: 4321 });
      await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 21 });
      await paidPayment(t, m.testKey, { amount: 777, currency: 'XPF' });
    });

    it('finds nothing to say about the books the app wrote (exit 0)', async () => {
      const result = await verifyLedger(t.db);
      assert.equal(result.ok, true, JSON.stringify(result.differences));
      assert.ok(result.counted.transactions > 10);
      const adjust = cli('adjustments', 'create', '--merchant', m.id, '--mode', 'test', '--currency', 'XPF', '--amount=-40', '--reason', 'Cash deposit correction');
      assert.equal(adjust.status, 0, adjust.out + adjust.err);
      assert.equal(JSON.parse(adjust.out).amount, -40);
      const run = cli('ledger', 'verify');
      assert.equal(run.status, 0, run.out + run.err);
      assert.equal(JSON.parse(run.out).ok, true);
    });

    it('reports a line that unbalances a posting, a balance off its transactions, a payment off its capture (exit 1)', async () => {
      const txn = (await get('/api/v1/balance-transactions?type=payment&limit=1')).data[0];
      const entry = await t.db.kysely.selectFrom('ledger_postings').select('id').where('transaction_id', '=', txn.id).where('kind', '=', 'entry').executeTakeFirstOrThrow();
      await t.db.kysely.updateTable('ledger_lines').set((eb) => ({ amount: eb('amount', '+', 1) }))
        .where('posting_id', '=', entry.id).where('account', 'in', ['merchant_pending', 'merchant_available']).execute();
      try {
        const run = cli('ledger', 'verify');
        assert.equal(run.status, 1, run.out + run.err);
        const result = JSON.parse(run.out);
        assert.equal(result.ok, false);
        assert.equal(result.found.posting, 1);
        assert.equal(result.found.transaction, 1);
        assert.equal(result.found.balance, 1);
        assert.equal(result.found.running_balance, 1);
        assert.ok(result.differences.some((d: any) => d.check === 'posting' && d.id === entry.id && /sum to 1, not 0/.test(d.message)));
        assert.ok(result.differences.some((d: any) => d.check === 'transaction' && d.id === txn.id));
      } finally {
        await t.db.kysely.updateTable('ledger_lines').set((eb) => ({ amount: eb('amount', '-', 1) }))
          .where('posting_id', '=', entry.id).where('account', 'in', ['merchant_pending', 'merchant_available']).execute();
      }
      const payment = await t.db.kysely.selectFrom('payments').select(['id', 'captured_amount']).where('id', '=', txn.source.id).executeTakeFirstOrThrow();
      await t.db.kysely.updateTable('payments').set({ captured_amount: payment.captured_amount + 5 }).where('id', '=', payment.id).execute();
      try {
        const result = await verifyLedger(t.db);
        assert.deepEqual(result.found, { posting: 0, transaction: 0, balance: 0, payment: 1, split: 0, running_balance: 0, capture_volume: 1 });
        assert.equal(result.differences[0]!.id, payment.id);
      } finally {
        await t.db.kysely.updateTable('payments').set({ captured_amount: payment.captured_amount }).where('id', '=', payment.id).execute();
      }
      assert.equal((await verifyLedger(t.db)).ok, true);
    });

    it('reports a running balance off the lines it stands for, and the balance shows it (exit 1)', async () => {
      const before = await balanceOf();
      const row = await t.db.kysely.selectFrom('ledger_balances').select(['slot', 'store_key'])
        .where('merchant_id', '=', m.id).where('mode', '=', 'test').where('currency', '=', 'EUR').where('store_key', '=', '')
        .where('available', 'is not', null).executeTakeFirstOrThrow();
      const mine = (q: any) => q.where('merchant_id', '=', m.id).where('mode', '=', 'test').where('currency', '=', 'EUR')
        .where('slot', '=', row.slot).where('store_key', '=', row.store_key);
      await mine(t.db.kysely.updateTable('ledger_balances').set((eb: any) => ({ available: eb('available', '+', 7) }))).execute();
      try {
        assert.equal((await balanceOf()).availableEur, before.availableEur + 7);
        const run = cli('ledger', 'verify');
        assert.equal(run.status, 1, run.out + run.err);
        const result = JSON.parse(run.out);
        assert.deepEqual(result.found, { posting: 0, transaction: 0, balance: 0, payment: 0, split: 0, running_balance: 1, capture_volume: 0 });
        assert.equal(result.differences[0].check, 'running_balance');
        assert.equal(result.differences[0].id, `${m.id} test - EUR`);
        const [kept, lines] = [...(result.differences[0].message as string).matchAll(/available (-?\d+)/g)].map((x) => Number(x[1]));
        assert.equal(kept! - lines!, 7, result.differences[0].message);
      } finally {
        await mine(t.db.kysely.updateTable('ledger_balances').set((eb: any) => ({ available: eb('available', '-', 7) }))).execute();
      }
      assert.equal((await verifyLedger(t.db)).ok, true);
    });
  });
});
