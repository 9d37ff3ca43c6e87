// postMany with more rows than one statement takes on SQLite (writeLedger writes 8 balance transactions, 16 postings,
// 16 lines or 16 running balances per INSERT there; one statement in all on PostgreSQL): every transaction, posting and
// line is written once, as given, the running balances hold the sums, and `motu ledger verify` finds them clean; and
// so after the settlement's release of them all, written the same way.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { postMany, releasePayment, type PostInput } from '../src/modules/ledger/postings.js';
import { readBalance } from '../src/modules/ledger/running-balance.js';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { eachDatabase, freshDatabase, type TestDatabase } from './support/harness.js';

eachDatabase('postMany beyond one statement per table', (dialect) => {
  let d: TestDatabase;
  before(async () => {
    d = await freshDatabase(dialect);
  });
  after(async () => d.drop());

  it('writes a split between 18 sellers, each row once, and releases it all', async () => {
    const at = new Date('2026-03-01T10:00:00.000Z');
    // A platform and 18 sellers: 19 running balances (more than one statement of 16 takes), 54 transactions (6
    // statements of 8 and one of 6), 54 postings, 108 lines. As a split capture posts them: per seller the platform's
    // share of its net, the seller's amount and its commission (platform_clearing sums to zero).
    const platform = 'mer_postmanyplatform';
    const sellers = Array.from({ length: 18 }, (_, i) => `mer_postmanyseller${String(i).padStart(2, '0')}`);
    const merchants = [platform, ...sellers];
    const base = { currency: 'EUR', pending: true, source: { type: 'payment', id: 'pay_postmany' }, paymentId: 'pay_postmany', at };
    const owner = (merchantId: string) => ({ merchantId, mode: 'test' as const, storeId: null });
    const inputs: PostInput[] = sellers.flatMap((seller, i) => {
      const amount = 1000 + i;
      const commission = 10 + i;
      return [
        { ...base, owner: owner(platform), type: 'platform_share' as const, amount: -(amount - commission), description: `share of ${seller}` },
        { ...base, owner: owner(seller), type: 'platform_share' as const, amount, description: `amount of ${seller}` },
        { ...base, owner: owner(seller), type: 'platform_commission' as const, amount: -commission, description: `commission of ${seller}` },
      ];
    });
    const rows = await d.db.transaction((trx) => postMany(trx, inputs));
    assert.equal(rows.length, 54);

    const k = d.db.kysely;
    const written = await k.selectFrom('balance_transactions').select(['id', 'merchant_id', 'amount', 'currency', 'description']).where('payment_id', '=', 'pay_postmany').execute();
    assert.deepEqual(
      written.map((r) => `${r.description} ${r.merchant_id} ${Number(r.amount)} ${r.currency}`).sort(),
      inputs.map((p) => `${p.description} ${p.owner.merchantId} ${p.amount} ${p.currency}`).sort(),
    );
    assert.deepEqual(written.map((r) => r.id).sort(), rows.map((r) => r.id).sort());
    const postings = await k.selectFrom('ledger_postings').select(['id', 'transaction_id', 'kind']).execute();
    assert.equal(postings.length, 54);
    assert.deepEqual(postings.map((p) => p.transaction_id).sort(), rows.map((r) => r.id).sort());
    const lines = await k.selectFrom('ledger_lines').select(['posting_id', 'account', 'amount']).execute();
    assert.equal(lines.length, 108);
    for (const p of postings) {
      const own = lines.filter((l) => l.posting_id === p.id);
      assert.equal(own.length, 2);
      assert.equal(own.reduce((s, l) => s + Number(l.amount), 0), 0);
    }

    const expected = (merchantId: string) => inputs.filter((p) => p.owner.merchantId === merchantId).reduce((s, p) => s + p.amount, 0);
    for (const merchantId of merchants) {
      const balances = await readBalance(k, { merchantId, mode: 'test', storeId: null }, { byStore: false });
      assert.deepEqual(balances, [{ currency: 'EUR', pending: expected(merchantId), available: null }], merchantId);
    }
    assert.deepEqual((await verifyLedger(d.db)).differences, []);

    // The settlement releases all 54 (54 postings, 108 lines, 19 running balances), each once.
    assert.equal(await d.db.transaction((trx) => releasePayment(trx, 'pay_postmany', at)), 54);
    assert.equal(await d.db.transaction((trx) => releasePayment(trx, 'pay_postmany', at)), 0);
    const releases = await k.selectFrom('ledger_postings').select('transaction_id').where('kind', '=', 'release').execute();
    assert.deepEqual(releases.map((r) => r.transaction_id).sort(), rows.map((r) => r.id).sort());
    for (const merchantId of merchants) {
      const balances = await readBalance(k, { merchantId, mode: 'test', storeId: null }, { byStore: false });
      assert.deepEqual(balances, [{ currency: 'EUR', pending: 0, available: expected(merchantId) }], merchantId);
    }
    assert.deepEqual((await verifyLedger(d.db)).differences, []);
  });
});
