// GET /api/v1/payments as a back-office lives on it, on every database: each filter (amount range, currency, customer
// email, card's last 4, the `q` search, status and dates) returns exactly the right payments, newest first, and only
// the caller's (another merchant's, the other mode's and another store's never appear); the CSV export
// (`Accept: text/csv`) has every matching payment across several internal batches, with the values GET
// /payments/{id} shows; bad values are 400 VALIDATION_ERROR naming the field.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { CARDS } from './support/cards.js';
import { createCustomer, createKey, createMerchant, createStore, type MerchantFixture } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paySession } from './support/payments.js';
import { saveCard } from './support/wallet.js';
import { newId, newPaymentReference } from '../src/shared/ids.js';

const HOUR = 3_600_000;

/** The CSV's lines as arrays of fields (no field of these tests holds a line break). */
function parseCsv(text: string): string[][] {
  return text.split('\r\n').filter(Boolean).map((line) => {
    const fields: string[] = [];
    let i = 0;
    while (i <= line.length) {
      if (line[i] === '"') {
        let value = '';
        i++;
        for (;;) {
          const q = line.indexOf('"', i);
          if (line[q + 1] === '"') { value += line.slice(i, q + 1); i = q + 2; continue; }
          value += line.slice(i, q);
          i = q + 2;
          break;
        }
        fields.push(value);
      } else {
        const end = line.indexOf(',', i) === -1 ? line.length : line.indexOf(',', i);
        fields.push(line.slice(i, end));
        i = end + 1;
      }
    }
    return fields;
  });
}

eachDatabase('payments list: filters, search, CSV export', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now' });
  const list = async (query: string, key = m.testKey) => {
    const res = await t.api(key, 'GET', `/api/v1/payments${query ? `?${query}` : ''}`);
    assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
    return res.body as { data: any[]; hasMore: boolean };
  };
  const ids = async (query: string, key = m.testKey) => (await list(query, key)).data.map((p) => p.id);
  const csv = async (query: string, key = m.testKey) => {
    const res = await t.api(key, 'GET', `/api/v1/payments${query ? `?${query}` : ''}`, undefined, { accept: 'text/csv' });
    assert.equal(res.status, 200, `${query}: ${String(res.body).slice(0, 300)}`);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(String(res.headers['content-disposition']), /attachment; filename="payments.csv"/);
    return parseCsv(res.body as string);
  };

  /** A (oldest) … E (newest), an hour apart, and the ids of the payments of others that must never show. */
  const p = {} as Record<'A' | 'B' | 'C' | 'D' | 'E', { id: string; reference: string; createdAt: string }>;
  let other: MerchantFixture;
  let storeKey: string;
  let storePayment: string;
  const foreign: string[] = [];

  const session = async (key: string, order: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    createSession(t, key, { extra: { order, ...extra } });
  const read = async (id: string, key = m.testKey) => {
    const res = await t.api(key, 'GET', `/api/v1/payments/${id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const remember = async (name: keyof typeof p, id: string) => {
    const view = await read(id);
    p[name] = { id, reference: view.reference, createdAt: view.createdAt };
  };

  before(async () => {
    // Others first, with the same emails, order references, cards and amounts as the merchant's own.
    other = await createMerchant(t, 'Other shop');
    const theirs = await session(other.testKey, { reference: 'ORD-A', amount: 1000, currency: 'EUR' }, { email: 'alice@example.com' });
    await paySession(t, theirs.sessionId, CARDS.visa);
    foreign.push(theirs.paymentId);
    const live = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { reference: 'ORD-A', amount: 1000, currency: 'EUR' }, email: 'alice@example.com',
      redirectUrl: 'https://shop.example/return', notificationUrl: 'https://shop.example/hook',
    });
    assert.equal(live.status, 201, JSON.stringify(live.body));
    foreign.push(live.body.paymentId);
    const store = await createStore(t, m.id, { code: 'kiosk' });
    storeKey = (await createKey(t, m.id, { mode: 'test', storeId: store.id })).secretKey;
    clock.advance(HOUR);

    const a = await session(m.testKey, { reference: 'ORD-A', amount: 1000, currency: 'EUR' }, { email: 'Alice@Example.com' });
    await paySession(t, a.sessionId, CARDS.visa);
    const refund = await t.api(m.testKey, 'POST', `/api/v1/payments/${a.paymentId}/refund`, { amount: 300 });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    await remember('A', a.paymentId);
    clock.advance(HOUR);
    const b = await session(m.testKey, { reference: 'ORD-B', amount: 5000, currency: 'XPF' }, { email: 'bob@example.com' });
    await paySession(t, b.sessionId, CARDS.declined);
    await remember('B', b.paymentId);
    clock.advance(HOUR);
    const c = await session(m.testKey, { reference: 'ORD-C', amount: 2500, currency: 'EUR' }, { email: 'ALICE@example.com' });
    await remember('C', c.paymentId);
    clock.advance(HOUR);
    // A saved card charged by the merchant: the payment has no email of its own, its customer has one.
    const carol = await createCustomer(t, m.testKey, { email: 'Carol@Example.com' });
    const card = (await saveCard(t, m.testKey, carol, CARDS.mastercard)).result.paymentMethodId;
    const d = await t.api(m.testKey, 'POST', '/api/v1/payments', {
      paymentMethodId: card, order: { reference: 'ORD-D', amount: 999, currency: 'XPF' }, notificationUrl: 'https://shop.example/hook',
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    assert.equal(d.body.email, null);
    await remember('D', d.body.id);
    clock.advance(HOUR);
    const e = await session(m.testKey, { reference: 'ORD-E', amount: 1001, currency: 'EUR' }, { customerId: carol, email: undefined });
    await paySession(t, e.sessionId, CARDS.cbVisa);
    await remember('E', e.paymentId);
    clock.advance(HOUR);
    const s = await session(storeKey, { reference: 'ORD-S', amount: 1000, currency: 'EUR' }, { email: 'alice@example.com' });
    storePayment = s.paymentId;
  });

  it('each filter returns exactly its payments, newest first, combined with the others and the pages', async () => {
    const { A, B, C, D, E } = p;
    const S = { id: storePayment };
    assert.deepEqual(await ids(''), [S.id, E.id, D.id, C.id, B.id, A.id]);
    const cases: [string, { id: string }[]][] = [
      ['amountMin=1000', [S, E, C, B, A]],
      ['amountMax=1000', [S, D, A]],
      ['amountMin=1000&amountMax=1000', [S, A]],
      ['amountMin=999&amountMax=1001', [S, E, D, A]],
      ['amountMin=1002&amountMax=2499', []],
      ['currency=XPF', [D, B]],
      ['currency=EUR&amountMax=1001', [S, E, A]],
      ['customerEmail=alice%40EXAMPLE.com', [S, C, A]],
      ['customerEmail=carol%40example.com', [E, D]],
      ['customerEmail=bob%40example.com', [B]],
      ['customerEmail=nobody%40example.com', []],
      ['cardLast4=4242', [A]],
      ['cardLast4=4444', [D]],
      ['cardLast4=0002', [B]],
      ['cardLast4=0006', [E]],
      ['cardLast4=9999', []],
      [`q=${A.id}`, [A]],
      [`q=${B.reference}`, [B]],
      ['q=ORD-C', [C]],
      ['q=%20ORD-C%20', [C]],
      ['q=ORD', []],
      ['q=ALICE%40example.com', [S, C, A]],
      ['q=carol%40example.com', [E, D]],
      [`reference=${D.reference}`, [D]],
      ['reference=ORD-E', [E]],
      ['status=captured', [E, D]],
      ['status=partially_refunded', [A]],
      ['status=failed', [B]],
      ['status=pending', [S, C]],
      [`createdFrom=${encodeURIComponent(B.createdAt)}&createdTo=${encodeURIComponent(D.createdAt)}`, [C, B]],
      [`status=captured&createdFrom=${encodeURIComponent(A.createdAt)}&createdTo=${encodeURIComponent(E.createdAt)}`, [D]],
      ['status=pending&q=alice%40example.com&currency=EUR', [S, C]],
      ['customerEmail=alice%40example.com&storeId=kiosk', [S]],
      ['currency=XPF&cardLast4=4242', []],
    ];
    for (const [query, expected] of cases) assert.deepEqual(await ids(query), expected.map((x) => x.id), query);

    const first = await list('currency=EUR&limit=2');
    assert.deepEqual(first.data.map((x) => x.id), [S.id, E.id]);
    assert.equal(first.hasMore, true);
    const second = await list(`currency=EUR&limit=2&startingAfter=${E.id}`);
    assert.deepEqual(second.data.map((x) => x.id), [C.id, A.id]);
    assert.equal(second.hasMore, false);
  });

  it('isolation: another merchant, the other mode and another store never see these payments, whatever the filter', async () => {
    const { A, D } = p;
    for (const query of ['', 'customerEmail=alice%40example.com', 'q=ORD-A', `q=${A.id}`, 'cardLast4=4242', 'amountMin=1000&amountMax=1000']) {
      const mine = await ids(query);
      for (const id of foreign) assert.ok(!mine.includes(id), `${query}: ${id}`);
      const theirs = await ids(query, other.testKey);
      assert.ok(!theirs.includes(A.id) && !theirs.includes(storePayment), query);
      assert.ok(!(await ids(query, m.liveKey)).includes(A.id), query);
      assert.deepEqual(await ids(query, storeKey), query === '' || query.startsWith('customerEmail') || query.startsWith('amount') ? [storePayment] : [], query);
    }
    assert.deepEqual(await ids(`q=${foreign[0]}`), []);
    assert.deepEqual(await ids('q=ORD-A', other.testKey), [foreign[0]]);
    assert.deepEqual(await ids('q=ORD-A', m.liveKey), [foreign[1]]);
    assert.deepEqual(await ids(`q=${D.id}`, storeKey), []);
    const theirCsv = await csv('', other.testKey);
    assert.deepEqual(theirCsv.slice(1).map((r) => r[0]), [foreign[0]]);
    const storeCsv = await csv('', storeKey);
    assert.deepEqual(storeCsv.slice(1).map((r) => r[0]), [storePayment]);
    assert.deepEqual((await csv('', m.liveKey)).slice(1).map((r) => r[0]), [foreign[1]]);
  });

  it('CSV: the columns an accountant reads, with the values GET /payments/{id} shows, filtered like the list', async () => {
    const rows = await csv('limit=1');
    assert.deepEqual(rows[0], [
      'id', 'reference', 'orderReference', 'createdAt', 'status', 'amount', 'currency', 'amountEur', 'capturedAmount', 'refundedAmount',
      'fees', 'net', 'customerEmail', 'cardBrand', 'cardLast4', 'storeCode',
    ]);
    assert.deepEqual(rows.slice(1).map((r) => r[0]), await ids('limit=100'));
    for (const row of rows.slice(1)) {
      const view = await read(row[0]!);
      const customerEmail = view.email ?? (view.customerId ? (await t.api(m.testKey, 'GET', `/api/v1/customers/${view.customerId}`)).body.email : null);
      assert.deepEqual(row, [
        view.id, view.reference, view.orderReference ?? '', view.createdAt, view.status, String(view.amount), view.currency, String(view.amountCents),
        String(view.capturedAmount), String(view.refundedAmount), String(view.settlement.mobupayCommission), String(view.settlement.netAmount),
        customerEmail ?? '', view.cardBrand ?? '', view.cardLast4 ?? '', view.store?.code ?? '',
      ], view.id);
    }
    const a = rows.find((r) => r[0] === p.A.id)!;
    assert.equal(a[4], 'partially_refunded');
    assert.equal(a[9], '300');
    assert.ok(Number(a[10]) > 0, 'fees on a captured payment');
    assert.equal(Number(a[11]), 1000 - Number(a[10]));
    assert.equal(rows.find((r) => r[0] === p.D.id)![12], 'Carol@Example.com', "a saved card's payment: its customer's email");
    assert.equal(rows.find((r) => r[0] === storePayment)![15], 'kiosk');

    const carol = await csv('customerEmail=CAROL%40example.com');
    assert.deepEqual(carol.slice(1).map((r) => r[0]), [p.E.id, p.D.id]);
    assert.deepEqual((await csv('currency=XPF&amountMin=1000')).slice(1).map((r) => r[0]), [p.B.id]);
    assert.deepEqual(await csv('cardLast4=1234'), [rows[0]]);
  });

  it('CSV: every payment across several internal batches, in order, ties on the same instant included, quoting safe', async () => {
    const big = await createMerchant(t, 'Busy shop');
    const count = 2345;
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    const made: { id: string; created_at: string; amount: number; currency: string; order_reference: string }[] = [];
    for (let start = 0; start < count; start += 200) {
      const rows = Array.from({ length: Math.min(200, count - start) }, (_, k) => {
        const i = start + k;
        // Seven payments per instant: batches of 1000 end in the middle of a tie.
        const created = new Date(base + Math.floor(i / 7) * 1000).toISOString();
        const currency = i % 3 === 0 ? 'XPF' : 'EUR';
        const order = i === 5 ? 'ORD,"5"' : i === 6 ? '=SUM(A1)' : `ORD-${i}`;
        return {
          id: newId('pay'), merchant_id: big.id, mode: 'test' as const, session_id: null, status: 'captured' as const,
          reference: newPaymentReference(base + i), order_reference: order, external_id: null, amount: i + 1, currency,
          amount_eur_cents: i + 1, tax_amount: 0, is_incl_tax_amount: 1, order_json: JSON.stringify({ reference: order, amount: i + 1, currency }),
          capture_mode: 'AUTO' as const, store_id: null, contract_id: big.defaultContractId, customer_id: null, customer_created: 0,
          email: `buyer${i}@example.com`, save_customer: 0, notification_url: '', private_data: null, authorized_amount: i + 1,
          captured_amount: i + 1, disputed_amount: 0, refunded_amount: 0, refusal_code: null, refusal_message: null, payment_method_id: null,
          card_brand: 'visa', card_last4: '4242', card_network: 'VISA', authorized_at: created, captured_at: created, settled: 0,
          acquirer_authorization_id: null, operation: null, operation_at: null, refund_reserved: 0, authorization_attempts: 1,
          settled_at: null, invoice_id: null, subscription_id: null, due_date: null, test_clock_id: null, created_at: created, updated_at: created,
        };
      });
      await t.db.kysely.insertInto('payments').values(rows).execute();
      made.push(...rows);
    }
    const expected = [...made].sort((x, y) => (x.created_at === y.created_at ? (x.id < y.id ? 1 : -1) : x.created_at < y.created_at ? 1 : -1));
    const rows = await csv('limit=5', big.testKey);
    assert.equal(rows.length, count + 1);
    assert.deepEqual(rows.slice(1).map((r) => r[0]), expected.map((x) => x.id));
    assert.equal(rows.slice(1).reduce((sum, r) => sum + Number(r[5]), 0), (count * (count + 1)) / 2);
    assert.equal(rows.find((r) => r[5] === '6')![2], 'ORD,"5"');
    assert.equal(rows.find((r) => r[5] === '7')![2], "'=SUM(A1)", 'a formula is never run by a spreadsheet');
    const xpf = await csv('currency=XPF', big.testKey);
    assert.deepEqual(xpf.slice(1).map((r) => r[0]), expected.filter((x) => x.currency === 'XPF').map((x) => x.id));
    const ranged = await csv('amountMin=100&amountMax=1500&currency=EUR', big.testKey);
    assert.deepEqual(ranged.slice(1).map((r) => r[0]), expected.filter((x) => x.currency === 'EUR' && x.amount >= 100 && x.amount <= 1500).map((x) => x.id));
    // The JSON list pages through the same ties without losing or repeating one.
    const paged: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await list(`limit=100${after ? `&startingAfter=${after}` : ''}`, big.testKey);
      paged.push(...page.data.map((x) => x.id));
      if (!page.hasMore) break;
      after = page.data.at(-1).id;
    }
    assert.deepEqual(paged, expected.map((x) => x.id));
  });

  it('bad values are 400 VALIDATION_ERROR naming the field, for JSON and CSV alike', async () => {
    const bad: [string, string][] = [
      ['amountMin=-1', 'amountMin'],
      ['amountMin=1.5', 'amountMin'],
      ['amountMin=ten', 'amountMin'],
      ['amountMax=1000000000', 'amountMax'],
      ['amountMin=10&amountMax=5', 'amountMin'],
      ['currency=USD', 'currency'],
      ['currency=eur', 'currency'],
      ['customerEmail=not-an-email', 'customerEmail'],
      ['cardLast4=123', 'cardLast4'],
      ['cardLast4=12345', 'cardLast4'],
      ['cardLast4=12a4', 'cardLast4'],
      ['q=', 'q'],
      [`q=${'x'.repeat(256)}`, 'q'],
      ['status=settled', 'status'],
      ['createdFrom=yesterday', 'createdFrom'],
      ['colour=red', 'colour'],
    ];
    for (const [query, field] of bad) {
      for (const headers of [{}, { accept: 'text/csv' }] as Record<string, string>[]) {
        const res = await t.api(m.testKey, 'GET', `/api/v1/payments?${query}`, undefined, headers);
        assert.equal(res.status, 400, `${query} ${JSON.stringify(headers)}`);
        const body = typeof res.body === 'string' ? JSON.parse(res.body) : res.body;
        assert.equal(body.code, 'VALIDATION_ERROR', query);
        assert.ok(body.fields?.some((f: { field: string }) => f.field.includes(field)), `${query}: ${JSON.stringify(body.fields)}`);
      }
    }
  });
});
