// Documents as PDFs without stalling the service (docs/billing.md, Invoices; docs/reliability.md): drawn on worker
// threads (the health check answers while the largest invoice is drawn), a finalized document's PDF kept once drawn
// (the same bytes again, not drawn again; drawn anew once the invoice is paid), what one invoice may print bounded
// (400 at creation and change, nothing written) and what one receipt prints (50 items, then one line for the rest),
// and the hosted invoice page, its PDF and the receipt's PDF rate-limited per client address (429 RATE_LIMITED with
// Retry-After).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paySession } from './support/payments.js';
import { pdfText } from './support/pdf.js';
import { money } from '../src/pages/format.js';

const PER_MINUTE = 4;
const METRICS_TOKEN = 'document-pdfs-metrics-token-0123456789';
const IDENTITY = { legalName: 'Fare Ute SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' }, registrationNumber: 'TAHITI A12345' };
/** 100 characters of combining marks and right-to-left text: the slowest text to lay out. */
const HEAVY_TEXT = Array.from('e\u0301\u0302a\u0308 שלום عالم Pāreu Tiʻare ').join('').repeat(10);
const heavyLine = (i: number) => ({ description: Array.from(`${i} ${HEAVY_TEXT}`).slice(0, 100).join(''), quantity: 1, unitPrice: 100 });

eachDatabase('document PDFs', (dialect) => {
  const { t, m } = withMerchantApp(dialect, { env: { MOTU_HOSTED_PAGES_PER_MINUTE: String(PER_MINUTE), MOTU_METRICS_TOKEN: METRICS_TOKEN } });
  const api = (method: string, url: string, body?: unknown) => t.api(m.testKey, method, url, body);
  const get = (url: string, key: string | null = m.testKey, remoteAddress = '127.0.0.1') =>
    t.app.inject({ method: 'GET', url, remoteAddress, headers: key ? { authorization: `Bearer ${key}` } : {} });
  /** How many PDFs the service has drawn, by kind (motu_pdf_drawn_total). */
  const drawn = async (kind: string) => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(res.statusCode, 200, 'the metrics are read');
    const text = res.body;
    return Number(new RegExp(`^motu_pdf_drawn_total\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  };
  let customerId: string;
  const invoice = async (lines: unknown[], finalize = true): Promise<{ id: string; number: string }> => {
    const res = await api('POST', '/api/v1/billing/invoices', { customerId, currency: 'XPF', lines });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    if (!finalize) return res.body as { id: string; number: string };
    const done = await api('POST', `/api/v1/billing/invoices/${res.body.id}/finalize`);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    return done.body as { id: string; number: string };
  };

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, IDENTITY)).status, 200);
    customerId = (await api('POST', '/api/v1/customers', { name: 'Hina', email: 'hina@example.pf' })).body.id;
  });

  it('while the largest invoice (200 lines of combining and right-to-left text) is drawn, /healthz answers, again and again', async () => {
    const inv = await invoice(Array.from({ length: 200 }, (_, i) => heavyLine(i)));
    let pdfDone = false;
    const pdf = get(`/api/v1/billing/invoices/${inv.id}/pdf`).then((res) => { pdfDone = true; return res; });
    const health: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(res.statusCode, 200);
      health.push(pdfDone);
    }
    assert.deepEqual(health, [false, false, false, false, false], 'five health checks answered one after the other before the PDF was done');
    const res = await pdf;
    assert.equal(res.statusCode, 200);
    const text = pdfText(res.rawPayload).lines.join('\n');
    assert.ok(text.includes(inv.number) && text.includes('199 '), 'the whole invoice is drawn, its last line included');
  });

  it("a finalized invoice's PDF is kept: the same bytes again, not drawn again, the hosted page's too; paid since, it is drawn anew", async () => {
    const inv = await invoice([{ description: 'Pāreu Tiʻare', quantity: 2, unitPrice: 4_500 }]);
    const before = await drawn('invoice');
    const first = await get(`/api/v1/billing/invoices/${inv.id}/pdf`);
    assert.equal(first.statusCode, 200);
    assert.equal(await drawn('invoice'), before + 1);
    const second = await get(`/api/v1/billing/invoices/${inv.id}/pdf`);
    assert.ok(second.rawPayload.equals(first.rawPayload), 'the same bytes');
    assert.equal(await drawn('invoice'), before + 1, 'not drawn again');
    const sent = await api('POST', `/api/v1/billing/invoices/${inv.id}/send`);
    const hosted = await get(`${new URL(sent.body.url).pathname}/pdf`, null);
    assert.ok(hosted.rawPayload.equals(first.rawPayload), "the hosted page's PDF is the one kept");
    assert.equal(await drawn('invoice'), before + 1);
    const english = await get(`/api/v1/billing/invoices/${inv.id}/pdf?lang=en`);
    assert.ok(pdfText(english.rawPayload).lines.join('\n').includes('Amount due'));
    assert.equal(await drawn('invoice'), before + 2, 'each language is drawn once');

    assert.equal((await api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 4_000, method: 'cash' })).status, 200);
    const paid = await get(`/api/v1/billing/invoices/${inv.id}/pdf`);
    assert.equal(await drawn('invoice'), before + 3, 'what it shows changed: drawn again');
    const lines = pdfText(paid.rawPayload).lines.join('\n');
    assert.ok(lines.includes('Déjà payé') && lines.includes('5 000'), 'the new PDF shows the payment and what is left');
    assert.ok((await get(`/api/v1/billing/invoices/${inv.id}/pdf`)).rawPayload.equals(paid.rawPayload));
    assert.equal(await drawn('invoice'), before + 3);
  });

  it("a draft's PDF is drawn each time (its content still changes); a credit note's is kept", async () => {
    const draft = await invoice([{ description: 'Loyer', quantity: 1, unitPrice: 85_000 }], false);
    const before = await drawn('invoice');
    await get(`/api/v1/billing/invoices/${draft.id}/pdf`);
    await get(`/api/v1/billing/invoices/${draft.id}/pdf`);
    assert.equal(await drawn('invoice'), before + 2);

    const inv = await invoice([{ description: 'Loyer', quantity: 1, unitPrice: 85_000 }]);
    const note = await api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { amount: 5_000, reason: 'order_change' });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    const notes = await drawn('credit_note');
    const a = await get(`/api/v1/billing/credit-notes/${note.body.id}/pdf`);
    const b = await get(`/api/v1/billing/credit-notes/${note.body.id}/pdf`);
    assert.ok(pdfText(a.rawPayload).lines.join('\n').includes(note.body.number));
    assert.ok(b.rawPayload.equals(a.rawPayload));
    assert.equal(await drawn('credit_note'), notes + 1);
  });

  it('an invoice printing more than 20,000 characters is 400 on lines at creation and change; nothing is written', async () => {
    const long = (n: number) => Array.from({ length: n }, (_, i) => ({ description: `${i} `.padEnd(500, 'x'), quantity: 1, unitPrice: 100 }));
    const listed = async () => (await api('GET', `/api/v1/billing/invoices?customerId=${customerId}&limit=100`)).body.data.length;
    const count = await listed();
    const refused = await api('POST', '/api/v1/billing/invoices', { customerId, currency: 'XPF', lines: long(41) });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'VALIDATION_ERROR');
    assert.equal(refused.body.fields[0].field, 'lines');
    assert.match(refused.body.fields[0].message, /20000/);
    assert.equal(await listed(), count, 'no invoice created');

    const draft = await invoice(long(40), false);
    const memo = await api('PATCH', `/api/v1/billing/invoices/${draft.id}`, { memo: 'Merci' });
    assert.equal(memo.status, 400, 'the memo counts too');
    assert.equal(memo.body.fields[0].field, 'lines');
    assert.equal((await api('GET', `/api/v1/billing/invoices/${draft.id}`)).body.memo, null, 'unchanged');
  });

  it(`the hosted invoice page and its PDF answer ${PER_MINUTE} requests a minute per address, then 429 RATE_LIMITED with Retry-After`, async () => {
    const inv = await invoice([{ description: 'Loyer', quantity: 1, unitPrice: 85_000 }]);
    const page = new URL((await api('POST', `/api/v1/billing/invoices/${inv.id}/send`)).body.url).pathname;
    for (const url of [page, `${page}/pdf`]) {
      for (let i = 0; i < PER_MINUTE; i++) assert.equal((await get(url, null, '10.1.2.3')).statusCode, 200, `${url} #${i + 1}`);
      const limited = await get(url, null, '10.1.2.3');
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().code, 'RATE_LIMITED');
      assert.equal(typeof limited.json().message, 'string');
      assert.ok(Number(limited.headers['retry-after']) >= 1, `Retry-After: ${limited.headers['retry-after']}`);
      const other = await t.app.inject({ method: 'GET', url, remoteAddress: '10.9.8.7' });
      assert.equal(other.statusCode, 200, 'another address is not limited');
    }
  });

  it("a receipt's PDF is kept once drawn, and rate-limited per address as the invoice page", async () => {
    const { sessionId } = await createSession(t, m.testKey);
    await paySession(t, sessionId);
    const url = `/checkout/success/receipt.pdf?sessionId=${sessionId}`;
    const before = await drawn('receipt');
    const first = await get(url, null, '10.4.5.6');
    assert.equal(first.statusCode, 200);
    assert.ok(pdfText(first.rawPayload).lines.join('\n').includes('4242'));
    for (let i = 1; i < PER_MINUTE; i++) assert.ok((await get(url, null, '10.4.5.6')).rawPayload.equals(first.rawPayload));
    assert.equal(await drawn('receipt'), before + 1, 'drawn once');
    const limited = await get(url, null, '10.4.5.6');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
  });

  it('a receipt of 500 items prints the first 50, then one line for the other 450; the lines still add up to the total', async () => {
    const items = Array.from({ length: 500 }, (_, i) => ({ product: `Article ${i + 1} ${'ʻ'.repeat(150)}`, unitPrice: 100, quantity: 2, ...(i % 2 ? { discount: 10 } : {}) }));
    const amount = items.reduce((sum, i) => sum + i.unitPrice * i.quantity - (i.discount ?? 0), 0);
    const { sessionId } = await createSession(t, m.testKey, { currency: 'XPF', extra: { order: { reference: 'CMD-500', amount, currency: 'XPF', items } } });
    await paySession(t, sessionId);
    const res = await get(`/checkout/success/receipt.pdf?sessionId=${sessionId}`, null, '10.7.7.7');
    assert.equal(res.statusCode, 200);
    const text = pdfText(res.rawPayload).lines.join('\n').replace(/\s/g, ' ');
    assert.ok(text.includes('Article 50 '), 'the 50th item is printed');
    assert.ok(!text.includes('Article 51 '), 'the 51st is not');
    const rest = items.slice(50).reduce((sum, i) => sum + i.unitPrice * i.quantity - (i.discount ?? 0), 0);
    const xpf = (n: number) => money(n, 'XPF', 'fr').replace(/\s/g, ' ');
    assert.ok(text.includes('450 autres articles (le détail de la commande est chez'), text.slice(-800));
    assert.ok(text.includes(xpf(rest)), `${xpf(rest)} for the other 450`);
    assert.ok(text.includes(`Total ${xpf(amount)}`), text.slice(-800));
  });
});
