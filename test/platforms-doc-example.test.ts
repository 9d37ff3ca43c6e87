// The worked example of docs/platforms.md ("Split payments", "A worked example") run through the API on every
// database: the order is the doc's JSON block, the refund the doc's, and every figure of the doc's two tables is
// checked to the cent against platformDistribution, refundDistribution and the balances each merchant reads. Changing
// a figure of the doc (or the arithmetic) fails this test.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { paymentEvents } from './support/events.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { makePlatform, onboardSeller } from './support/platforms.js';
import { balanceOf, paidSplit, type SplitEntry } from './support/splits.js';

const doc = readFileSync(new URL('../docs/platforms.md', import.meta.url), 'utf8');
const start = doc.indexOf('## Split payments');
const end = doc.indexOf('\n## ', start + 3);
const section = doc.slice(start, end < 0 ? undefined : end);
const example = section.slice(section.indexOf('### A worked example'));

/** "−23.61" / "-23.61" / "60.00" → cents. */
function cents(text: string): number {
  const m = /^(-|−)?(\d+)\.(\d{2})$/.exec(text.trim());
  assert.ok(m, `not an amount in EUR: ${text}`);
  return (m[1] ? -1 : 1) * (Number(m[2]) * 100 + Number(m[3]));
}

/** The rows of the markdown table whose header starts with `first`: {label → {column → cell}}. */
function table(text: string, first: string): Map<string, Record<string, string>> {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  assert.ok(at >= 0, `no table "${first}" in the doc's example`);
  const cells = (l: string) => l.split('|').slice(1, -1).map((c) => c.trim());
  const header = cells(lines[at]!);
  const rows = new Map<string, Record<string, string>>();
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    const row = cells(line);
    rows.set(row[0]!, Object.fromEntries(header.map((h, i) => [h, row[i]!])));
  }
  return rows;
}

eachDatabase('platforms doc example', (dialect) => {
  const { t } = withMerchantApp(dialect, { clock: 'now' });

  it('runs the worked example of docs/platforms.md and finds every figure of its tables', async () => {
    const config = JSON.parse(`{${/```json\n([\s\S]*?)\n```/.exec(section)![1]!}}`).platformConfig as { distribution: SplitEntry[]; financing: { amount: number } };
    const sellers = table(example, 'Seller');
    const platformRows = table(example, 'Platform');
    const fig = (label: string) => cents(platformRows.get(label)!.EUR!);
    assert.deepEqual([...sellers.keys()], ['A', 'B']);

    const platform = await makePlatform(t, 'Doc Market');
    const ids: Record<string, { merchantId: string; secretKey: string }> = {
      A: await onboardSeller(t, platform.testKey, { legalName: 'Doc Seller A' }),
      B: await onboardSeller(t, platform.testKey, { legalName: 'Doc Seller B' }),
    };
    const distribution = config.distribution.map((d) => ({ ...d, merchantId: ids[d.merchantId.slice(4)]!.merchantId }));
    const orderAmount = distribution.reduce((s, d) => s + d.amount - (d.discount ?? 0), 0);
    const id = await paidSplit(t, platform.testKey, { amount: orderAmount, distribution, financing: config.financing.amount });

    const payment = (await t.api(platform.testKey, 'GET', `/api/v1/payments/${id}`)).body;
    assert.equal(payment.amount, fig('Card charged'));
    const [entryA, entryB, own] = payment.platformDistribution;
    for (const [name, entry] of [['A', entryA], ['B', entryB]] as const) {
      const row = sellers.get(name)!;
      assert.equal(entry.merchantId, ids[name]!.merchantId);
      assert.deepEqual([entry.amount, entry.discount, entry.commission, entry.netAmount],
        [cents(row.Amount!), cents(row.Discount!), cents(row.Commission!), cents(row['Net at capture']!)], `seller ${name}`);
    }
    assert.deepEqual([own.commission, own.discounts, own.financing, own.fees, own.netAmount],
      [fig('Commissions'), fig('Discounts'), fig('Financing'), fig("Motu's fees"), fig('Net at capture')]);

    const refund = await t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amount: fig('Refund to the card') });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    const event = (await paymentEvents(t, id)).find((e) => e.type === 'payment.partially_refunded');
    for (const name of ['A', 'B']) {
      const row = sellers.get(name)!;
      const share = event.data.refundDistribution.find((s: { merchantId: string }) => s.merchantId === ids[name]!.merchantId);
      assert.deepEqual([share.amount, share.commission], [cents(row['Refund share']!), cents(row['Commission back']!)], `seller ${name}'s refund`);
      const balance = await balanceOf(t, ids[name]!.secretKey);
      assert.equal(balance.available + balance.pending, cents(row['Balance after the refund']!), `seller ${name}'s balance`);
    }
    assert.equal(event.data.platformDistribution[2].refundedCommission, fig('Commission given back'));
    const mine = await balanceOf(t, platform.testKey);
    assert.equal(mine.available + mine.pending, fig('Balance after the refund'));
    assert.deepEqual((await verifyLedger(t.db)).differences, []);
  });
});
