// Migration 0050 on a database that already has books: the running balances it writes equal the lines' sums, per
// merchant, mode, store and currency (an account that never moved in a currency stays absent), and
// `motu ledger verify` finds them clean; the postings after it keep them so.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrate } from '../src/db/migrate.js';
import { post } from '../src/modules/ledger/postings.js';
import { readBalance } from '../src/modules/ledger/running-balance.js';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { eachDatabase, freshDatabase, type TestDatabase } from './support/harness.js';

eachDatabase('migration 0050: running balances from existing books', (dialect) => {
  let d: TestDatabase;
  before(async () => {
    d = await freshDatabase(dialect, { migrate: false });
    await migrate(d.db, '0044_merchant_logos');
  });
  after(async () => d.drop());

  it('fills each balance with the sum of its lines, and later postings add to it', async () => {
    const k = d.db.kysely as any;
    const at = '2026-01-01T00:00:00.000Z';
    // Lines as postings before 0050 wrote them: the merchant's own, a store's, EUR available and pending, XPF pending only.
    const lines: [string, string | null, string, string, number][] = [
      ['lpo_1', null, 'EUR', 'merchant_pending', 1000], ['lpo_1', null, 'EUR', 'acquirer_clearing', -1000],
      ['lpo_2', null, 'EUR', 'merchant_pending', -1000], ['lpo_2', null, 'EUR', 'merchant_available', 1000],
      ['lpo_3', null, 'EUR', 'merchant_available', -250], ['lpo_3', null, 'EUR', 'acquirer_clearing', 250],
      ['lpo_4', 'sto_a', 'EUR', 'merchant_pending', 400], ['lpo_4', 'sto_a', 'EUR', 'acquirer_clearing', -400],
      ['lpo_5', null, 'XPF', 'merchant_pending', 900], ['lpo_5', null, 'XPF', 'acquirer_clearing', -900],
    ];
    for (const [posting, store, currency, account, amount] of lines) {
      await k.insertInto('ledger_lines').values({ posting_id: posting, merchant_id: 'mer_old', mode: 'test', store_id: store, currency, account, amount }).execute();
    }
    const txns: [string, string, string | null, string, number, number][] = [
      ['txn_1', 'lpo_1', null, 'EUR', 1000, 1], ['txn_3', 'lpo_3', null, 'EUR', -250, 0], ['txn_4', 'lpo_4', 'sto_a', 'EUR', 400, 1], ['txn_5', 'lpo_5', null, 'XPF', 900, 1],
    ];
    for (const [id, posting, store, currency, amount, pending] of txns) {
      await k.insertInto('balance_transactions').values({
        id, merchant_id: 'mer_old', mode: 'test', store_id: store, type: amount > 0 ? 'payment' : 'refund', amount, currency, amount_eur: amount, pending,
        source_type: 'payment', source_id: `pay_${id}`, payment_id: null, description: null, created_at: at,
      }).execute();
      await k.insertInto('ledger_postings').values({ id: posting, merchant_id: 'mer_old', mode: 'test', currency, kind: 'entry', transaction_id: id, created_at: at }).execute();
    }
    await k.insertInto('ledger_postings').values({ id: 'lpo_2', merchant_id: 'mer_old', mode: 'test', currency: 'EUR', kind: 'release', transaction_id: 'txn_1', created_at: at }).execute();

    assert.ok((await migrate(d.db)).includes('0050_running_balances'));
    const owner = { merchantId: 'mer_old', mode: 'test' as const, storeId: null };
    assert.deepEqual(await readBalance(d.db.kysely, owner, { byStore: true }), [
      { currency: 'EUR', pending: 400, available: 750 },
      { currency: 'XPF', pending: 900, available: null },
    ]);
    assert.deepEqual(await readBalance(d.db.kysely, { ...owner, storeId: 'sto_a' }, { byStore: true }), [{ currency: 'EUR', pending: 400, available: null }]);
    const clean = await verifyLedger(d.db);
    assert.equal(clean.ok, true, JSON.stringify(clean.differences));

    await d.db.transaction((trx) => post(trx, {
      owner, type: 'adjustment', amount: 55, currency: 'XPF', source: { type: 'adjustment', id: 'txn_adj' }, at: new Date(at),
    }));
    assert.deepEqual((await readBalance(d.db.kysely, owner, { byStore: false, currency: 'XPF' }))[0], { currency: 'XPF', pending: 900, available: 55 });
    assert.equal((await verifyLedger(d.db)).ok, true);
  });
});
