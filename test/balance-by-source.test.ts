// A source's balance transactions (`?sourceId=`) and a payout's (`?payoutId=`) among a merchant's long history: the
// answer (rows, order, pages, the other filters with it, the merchant's scope) and, on SQLite, the plan of the list's
// statement: read through the filter's own index, never a walk of the merchant's list index (docs/performance.md,
// "Growth"). SQLite has no statistics here, as in production, so the plan on this small database is the plan on a
// large one.
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import { before, it } from 'node:test';
import { transactionsPage, type TransactionFilters } from '../src/modules/ledger/balance.service.js';
import { post } from '../src/modules/ledger/postings.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

eachDatabase('balance transactions by source', (dialect) => {
  const { t } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now' });
  const START = Date.UTC(2026, 0, 1);
  const at = (minute: number) => new Date(START + minute * 60_000);
  let shop: Awaited<ReturnType<typeof createMerchant>>;
  let other: Awaited<ReturnType<typeof createMerchant>>;
  /** The source's five transactions, newest first: two at the same instant (ordered by id, descending). */
  let expected: string[];
  /** Those of them that are fees. */
  let fees: string[];

  before(async () => {
    shop = await createMerchant(t, 'Long history');
    other = await createMerchant(t, 'Same source id elsewhere');
    const owner = { merchantId: shop.id, mode: 'test' as const, storeId: null };
    const mine: { id: string; at: number; type: string }[] = [];
    await t.db.transaction(async (trx) => {
      for (let i = 0; i < 600; i++) {
        // The source's rows are among the oldest of the history, and one in its middle: a walk of the merchant's list
        // from its newest row passes nearly all of it before it finds them.
        const ofSource = [3, 4, 7, 9, 300].includes(i);
        const minute = i === 4 ? 3 : i;
        const row = await post(trx, {
          owner, type: ofSource && i % 2 ? 'payment_fee' : 'adjustment', amount: i + 1, currency: 'EUR',
          source: { type: 'adjustment', id: ofSource ? 'src_target' : `src_${i}` }, description: `row ${i}`, at: at(minute),
        });
        if (ofSource) mine.push({ id: row.id, at: minute, type: row.type });
      }
      // The same source id on another merchant's books and in live mode: never in the answer.
      await post(trx, { owner: { merchantId: other.id, mode: 'test', storeId: null }, type: 'adjustment', amount: 5, currency: 'EUR', source: { type: 'adjustment', id: 'src_target' }, at: at(8) });
      await post(trx, { owner: { ...owner, mode: 'live' }, type: 'adjustment', amount: 5, currency: 'EUR', source: { type: 'adjustment', id: 'src_target' }, at: at(8) });
    });
    mine.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
    expected = mine.map((x) => x.id);
    fees = mine.filter((x) => x.type === 'payment_fee').map((x) => x.id);
  });

  const list = async (query: string) => {
    const res = await t.api(shop.testKey, 'GET', `/api/v1/balance-transactions?${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { data: Array<{ id: string; type: string; source: { id: string }; createdAt: string }>; hasMore: boolean };
  };

  it('answers the source\'s transactions only, newest first, paged with startingAfter and hasMore', async () => {
    const all = await list('sourceId=src_target');
    assert.deepEqual(all.data.map((x) => x.id), expected);
    assert.equal(all.hasMore, false);
    assert.ok(all.data.every((x) => x.source.id === 'src_target'));

    const pages: string[] = [];
    let after = '';
    for (let n = 0; n < 3; n++) {
      const page = await list(`sourceId=src_target&limit=2${after ? `&startingAfter=${after}` : ''}`);
      pages.push(...page.data.map((x) => x.id));
      assert.equal(page.hasMore, n < 2, `page ${n + 1}`);
      after = page.data.at(-1)!.id;
    }
    assert.deepEqual(pages, expected);
  });

  it('combines the source with the other filters', async () => {
    assert.equal(fees.length, 3);
    assert.deepEqual((await list('sourceId=src_target&type=payment_fee')).data.map((x) => x.id), fees);
    const after = new Date(START + 5 * 60_000).toISOString();
    const before = new Date(START + 200 * 60_000).toISOString();
    const dated = await list(`sourceId=src_target&createdAfter=${encodeURIComponent(after)}&createdBefore=${encodeURIComponent(before)}`);
    assert.deepEqual(dated.data.map((x) => x.createdAt), [at(9).toISOString(), at(7).toISOString()]);
    assert.deepEqual((await list('sourceId=src_nothing')).data, []);
    assert.deepEqual((await list('sourceId=src_target&payoutId=po_nothing')).data, []);
    const otherAnswer = await t.api(other.testKey, 'GET', '/api/v1/balance-transactions?sourceId=src_target');
    assert.equal(otherAnswer.body.data.length, 1);
  });

  if (dialect === 'sqlite') {
    const plan = async (filters: TransactionFilters, after?: { created_at: string; id: string }) => {
      const owner = { merchantId: shop.id, mode: 'test' as const, storeId: null };
      const compiled = transactionsPage(t.db, owner, filters, 21, after).compile();
      const rows = await t.db.kysely.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
      return rows.rows.map((r) => r.detail).join('\n');
    };

    it('SQLite reads a source\'s or a payout\'s transactions through their own index, the others along the list', async () => {
      const cursor = { created_at: at(7).toISOString(), id: expected[2]! };
      for (const [filters, after] of [[{ sourceId: 'src_target' }], [{ sourceId: 'src_target', type: 'adjustment', createdAfter: at(1).toISOString() }], [{ sourceId: 'src_target' }, cursor]] as const) {
        const text = await plan(filters, after);
        assert.match(text, /SEARCH t USING INDEX balance_transactions_source \(source_id=\?\)/, text);
        assert.doesNotMatch(text, /balance_transactions_list/, text);
      }
      const byPayout = await plan({ payoutId: 'po_x' });
      assert.match(byPayout, /SEARCH p USING INDEX payout_items_payout \(payout_id=\?\)/, byPayout);
      assert.doesNotMatch(byPayout, /balance_transactions_list/, byPayout);
      // Without such a filter the list index gives the order and the page: read from its newest row, no sort.
      for (const filters of [{}, { type: 'adjustment' as const }, { createdAfter: at(1).toISOString() }]) {
        const text = await plan(filters);
        assert.match(text, /SEARCH t USING INDEX balance_transactions_list \(merchant_id=\? AND mode=\?/, text);
        assert.doesNotMatch(text, /TEMP B-TREE/, text);
      }
    });
  }
});
