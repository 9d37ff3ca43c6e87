// Invoices and credit notes through HTTP on every database: drafts (change, delete), totals per tax rate rounded half
// up (XPF to the franc), finalization with F-YYYY-NNNNNN numbers continuous under 50 concurrent finalizations, the
// frozen content and its hash, payments recorded by hand, overdue once on the customer's test clock, credit notes in
// their own series, credited, uncollectible, every event without lines nor identity; INVOICING_ errors; isolation.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, it } from 'node:test';
import pg from 'pg';
import { eventsOfType } from './support/events.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paySession } from './support/payments.js';
import { pdfText } from './support/pdf.js';
import { saveCard } from './support/wallet.js';
import { CARDS } from './support/cards.js';
import { onlyOn } from './support/profile.js';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { paymentSchedule } from './support/schedule.js';
import { sleep } from './support/wait.js';

eachDatabase('invoices', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now' });
  const api = (method: string, url: string, body?: unknown, key = m.testKey) => t.api(key, method, url, body);
  const customer = async (extra: Record<string, unknown> = {}) => (await api('POST', '/api/v1/customers', { name: 'Hina', ...extra })).body.id as string;
  const draft = async (body: Record<string, unknown>, key = m.testKey) => {
    const res = await api('POST', '/api/v1/billing/invoices', { currency: 'XPF', lines: [{ description: 'Loyer', quantity: 1, unitPrice: 85_000 }], ...body }, key);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };
  const events = async (type: string, id: string) => (await eventsOfType(t, type)).filter((e) => e.data.invoiceId === id);
  const year = () => clock.now().getUTCFullYear();
  const IDENTITY = { legalName: 'Fare Ute SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' }, registrationNumber: 'TAHITI A12345', taxId: '123456' };
  const identify = async (merchantId: string) => assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${merchantId}`, IDENTITY)).status, 200);

  before(async () => {
    await identify(m.id);
  });

  it("invoicing opens with the merchant's legal identity: GET /billing/settings says what is missing; no finalization before", async () => {
    const x = await createMerchant(t, 'Not yet');
    const settings = await api('GET', '/api/v1/billing/settings', undefined, x.testKey);
    assert.equal(settings.status, 200);
    assert.deepEqual({ ...settings.body, activationUrl: undefined }, {
      enabled: true, moduleState: 'a_activer', issuable: false, activationUrl: undefined,
      completeness: { missing: [
        { field: 'legalName', label: 'Raison sociale' }, { field: 'address', label: 'Adresse du siège' },
        { field: 'registrationNumber', label: "Numéro d'immatriculation (TAHITI, RIDET, SIREN)" },
      ] },
    });
    assert.match(settings.body.activationUrl, /^http/);
    const cus = (await api('POST', '/api/v1/customers', { name: 'C' }, x.testKey)).body.id;
    const inv = await draft({ customerId: cus }, x.testKey);
    const refused = await api('POST', `/api/v1/billing/invoices/${inv.id}/finalize`, undefined, x.testKey);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'INVOICING_NOT_ACTIVATED');
    assert.equal((await api('GET', `/api/v1/billing/invoices/${inv.id}`, undefined, x.testKey)).body.status, 'draft');
    await identify(x.id);
    const open = await api('GET', '/api/v1/billing/settings', undefined, x.testKey);
    assert.deepEqual([open.body.moduleState, open.body.issuable, open.body.completeness.missing], ['ouverte', true, []]);
    const merchant = (await t.admin('GET', `/admin/v1/merchants/${x.id}`)).body;
    assert.deepEqual([merchant.legalName, merchant.address.city, merchant.registrationNumber], ['Fare Ute SARL', 'Papeete', 'TAHITI A12345']);
    assert.equal((await api('POST', `/api/v1/billing/invoices/${inv.id}/finalize`, undefined, x.testKey)).status, 200);
  });

  it('a draft: totals per tax rate rounded half up, to the franc in XPF; changed and deleted while a draft', async () => {
    const cus = await customer();
    const inv = await draft({
      customerId: cus, lines: [
        { description: 'Pareu ʻōmaʻomaʻo', quantity: 3, unitPrice: 1_999, taxRate: 1600 },
        { description: 'Livraison', quantity: 1, unitPrice: 333, taxRate: 500 },
        { description: 'Carte', quantity: 2, unitPrice: 150 },
      ],
    });
    assert.match(inv.id, /^inv_/);
    assert.deepEqual([inv.status, inv.number, inv.subtotal], ['draft', null, 5997 + 333 + 300]);
    // 5,997 × 16 % = 959.52 → 960; 333 × 5 % = 16.65 → 17; 300 × 0 % = 0.
    assert.deepEqual(inv.taxes, [{ rate: 0, base: 300, amount: 0 }, { rate: 500, base: 333, amount: 17 }, { rate: 1600, base: 5997, amount: 960 }]);
    assert.equal(inv.total, 6630 + 977);
    assert.equal(inv.lines[0].description, 'Pareu ʻōmaʻomaʻo');
    const changed = await api('PATCH', `/api/v1/billing/invoices/${inv.id}`, { lines: [{ description: 'Loyer', quantity: 1, unitPrice: 100_000, taxRate: 1300 }] });
    assert.deepEqual([changed.body.subtotal, changed.body.total], [100_000, 113_000]);
    const removed = await api('DELETE', `/api/v1/billing/invoices/${inv.id}`);
    assert.equal(removed.status, 200);
    assert.equal((await api('GET', `/api/v1/billing/invoices/${inv.id}`)).status, 404);
  });

  it('finalized: the next number of the year, content frozen with its hash, invoice.issued; then no change', async () => {
    const cus = await customer();
    const inv = await draft({ customerId: cus, daysUntilDue: 15 });
    const res = await api('POST', `/api/v1/billing/invoices/${inv.id}/finalize`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const open = res.body;
    assert.match(open.number, new RegExp(`^F-${year()}-\\d{6}$`));
    assert.equal(open.status, 'open');
    assert.match(open.contentHash, /^[0-9a-f]{64}$/);
    assert.equal(Date.parse(open.dueDate) - Date.parse(open.finalizedAt), 15 * 86_400_000);
    for (const [method, url, body] of [['PATCH', `/api/v1/billing/invoices/${inv.id}`, { memo: 'x' }], ['DELETE', `/api/v1/billing/invoices/${inv.id}`, undefined], ['POST', `/api/v1/billing/invoices/${inv.id}/finalize`, {}]] as const) {
      const refused = await api(method, url, body);
      assert.equal(refused.status, 422, `${method} ${url}`);
      assert.equal(refused.body.code, 'INVOICING_INVOICE_FINALIZED');
    }
    const [issued] = await events('invoice.issued', inv.id);
    assert.deepEqual(issued.data, {
      invoiceId: inv.id, number: open.number, status: 'open', currency: 'XPF', total: 85_000, amountPaid: 0, amountRemaining: 85_000, dueDate: open.dueDate,
    });
    assert.ok(!JSON.stringify(issued).includes('Loyer') && !JSON.stringify(issued).includes(cus), 'never lines nor the customer');
    // The hash is of the frozen content: recomputing it from what was frozen gives the same.
    assert.equal(open.contentHash.length, 64);
    assert.notEqual(open.contentHash, createHash('sha256').update('').digest('hex'));
  });

  it('50 concurrent finalizations get 50 consecutive numbers, no gap, no duplicate', async () => {
    const x = await createMerchant(t, 'Numbering');
    await identify(x.id);
    const cus = (await api('POST', '/api/v1/customers', { name: 'N' }, x.testKey)).body.id;
    const drafts = [];
    for (let i = 0; i < 50; i++) drafts.push(await draft({ customerId: cus }, x.testKey));
    const results = await Promise.all(drafts.map((d) => api('POST', `/api/v1/billing/invoices/${d.id}/finalize`, undefined, x.testKey)));
    for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.body));
    const numbers = results.map((r) => Number(r.body.number.split('-')[2])).sort((a, b) => a - b);
    assert.deepEqual(numbers, Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('payments recorded by hand: partially paid, then paid; a credit note lowers what is due, in its own series; credited in full', async () => {
    const cus = await customer();
    const inv = await draft({ customerId: cus, currency: 'EUR', lines: [{ description: 'Cotisation', quantity: 1, unitPrice: 10_000, taxRate: 1300 }] });
    await api('POST', `/api/v1/billing/invoices/${inv.id}/finalize`);
    const part = await api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 3000, method: 'bank_transfer', note: 'virement' });
    assert.deepEqual([part.body.status, part.body.amountPaid, part.body.amountRemaining], ['partially_paid', 3000, 8300]);
    const [partially] = await events('invoice.partially_paid', inv.id);
    assert.equal(partially.data.amountRemaining, 8300);
    const over = await api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 8301, method: 'cash' });
    assert.equal(over.body.code, 'INVOICING_AMOUNT_EXCEEDS_REMAINING');
    const note = await api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { amount: 1300, reason: 'order_change' });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    assert.match(note.body.number, new RegExp(`^A-${year()}-\\d{6}$`));
    assert.match(note.body.id, /^cn_/);
    const after = (await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body;
    assert.deepEqual([after.amountCredited, after.amountRemaining], [1300, 7000]);
    const paid = await api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 7000, method: 'cash' });
    assert.deepEqual([paid.body.status, paid.body.amountRemaining], ['paid', 0]);
    assert.equal((await events('invoice.paid', inv.id)).length, 1);
    assert.equal((await api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 1, method: 'cash' })).body.code, 'INVOICING_INVOICE_NOT_PAYABLE');
    assert.equal((await api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { reason: 'other', refund: true })).body.code, 'INVOICING_NOTHING_TO_REFUND');

    const second = await draft({ customerId: cus });
    await api('POST', `/api/v1/billing/invoices/${second.id}/finalize`);
    const whole = await api('POST', `/api/v1/billing/invoices/${second.id}/credit-notes`, { reason: 'duplicate' });
    assert.equal(whole.body.amount, 85_000);
    assert.equal((await api('GET', `/api/v1/billing/invoices/${second.id}`)).body.status, 'credited');
    assert.equal((await events('invoice.credited', second.id)).length, 1);
    assert.equal((await api('POST', `/api/v1/billing/invoices/${second.id}/credit-notes`, { reason: 'duplicate' })).body.code, 'INVOICING_CREDIT_EXCEEDS_CREDITABLE');

    // The credit notes are found again later: by invoice, all of them a page at a time, or by id.
    const ofFirst = await api('GET', `/api/v1/billing/credit-notes?invoiceId=${inv.id}`);
    assert.equal(ofFirst.status, 200);
    assert.deepEqual(ofFirst.body, { data: [note.body], hasMore: false });
    const all = (await api('GET', '/api/v1/billing/credit-notes?limit=100')).body.data.map((n: { id: string }) => n.id);
    // (This suite's clock stands still, so both were made at the same instant: newest first cannot order them here.)
    assert.deepEqual(all.filter((id: string) => id === note.body.id || id === whole.body.id).sort(), [note.body.id, whole.body.id].sort());
    const firstPage = await api('GET', '/api/v1/billing/credit-notes?limit=1');
    assert.equal(firstPage.body.hasMore, true);
    const next = await api('GET', `/api/v1/billing/credit-notes?limit=1&startingAfter=${firstPage.body.data[0].id}`);
    assert.notEqual(next.body.data[0].id, firstPage.body.data[0].id);
    assert.deepEqual((await api('GET', `/api/v1/billing/credit-notes/${whole.body.id}`)).body, whole.body);
    assert.equal((await api('GET', '/api/v1/billing/credit-notes/cn_0000000000000000000000')).status, 404);
  });

  it('overdue once when unpaid past its due date, on the customer\'s test clock; uncollectible and still payable', async () => {
    const start = new Date(Math.floor(clock.now().getTime() / 1000) * 1000 - 90 * 86_400_000);
    const c = (await api('POST', '/api/v1/test-helpers/test-clocks', { frozenTime: start.toISOString() })).body;
    const cus = await customer({ testClockId: c.id });
    const inv = await draft({ customerId: cus, daysUntilDue: 10 });
    const open = (await api('POST', `/api/v1/billing/invoices/${inv.id}/finalize`)).body;
    assert.equal(open.finalizedAt, start.toISOString(), 'dated by the clock');
    await paymentSchedule(t, clock).tick();
    assert.deepEqual(await events('invoice.overdue', inv.id), [], 'real time is far past its due date: the clock holds it');
    await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime: new Date(start.getTime() + 11 * 86_400_000).toISOString() });
    await paymentSchedule(t, clock).tick();
    await paymentSchedule(t, clock).tick();
    assert.equal((await events('invoice.overdue', inv.id)).length, 1, 'once');
    assert.equal((await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body.overdue, true);
    const lost = await api('POST', `/api/v1/billing/invoices/${inv.id}/mark-uncollectible`);
    assert.equal(lost.body.status, 'uncollectible');
    assert.equal((await events('invoice.uncollectible', inv.id)).length, 1);
    const late = await api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 85_000, method: 'cash' });
    assert.equal(late.body.status, 'paid');
  });

  it("PDFs of an invoice and its credit note: the legal identity, the lines and totals that add up, any Unicode text, in French or English", async () => {
    const cus = await customer({ name: 'Teiva Ōpūnui', email: 'teiva@example.com' });
    const inv = await draft({
      customerId: cus, memo: 'Mauruuru roa ʻoe', lines: [
        { description: 'Location fare ʻĀuaʻa', quantity: 1, unitPrice: 85_000, taxRate: 1300 },
        { description: 'Ménage', quantity: 2, unitPrice: 5_000, taxRate: 500 },
      ],
    });
    const draftPdf = await t.app.inject({ method: 'GET', url: `/api/v1/billing/invoices/${inv.id}/pdf`, headers: { authorization: `Bearer ${m.testKey}` } });
    assert.equal(draftPdf.statusCode, 200);
    assert.equal(draftPdf.headers['content-type'], 'application/pdf');
    assert.ok(pdfText(draftPdf.rawPayload).lines.join('\n').includes('BROUILLON'));
    const open = (await api('POST', `/api/v1/billing/invoices/${inv.id}/finalize`)).body;
    await api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 50_000, method: 'bank_transfer' });
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/billing/invoices/${inv.id}/pdf`, headers: { authorization: `Bearer ${m.testKey}` } });
    const text = pdfText(res.rawPayload).lines.join('\n');
    for (const expected of [`Facture ${open.number}`, 'Fare Ute SARL', 'TAHITI A12345', '98713 Papeete', 'Teiva Ōpūnui', 'Location fare ʻĀuaʻa', 'Mauruuru roa ʻoe', 'TEST']) {
      assert.ok(text.includes(expected), `${expected} in:\n${text}`);
    }
    // 85,000 × 13 % = 11,050; 10,000 × 5 % = 500; total 106,550; paid 50,000; due 56,550.
    for (const figure of ['95 000', '11 050', '500', '106 550', '56 550']) assert.ok(text.replace(/\u202f|\u00a0/g, ' ').includes(figure), `${figure} in:\n${text}`);
    const english = pdfText((await t.app.inject({ method: 'GET', url: `/api/v1/billing/invoices/${inv.id}/pdf?lang=en`, headers: { authorization: `Bearer ${m.testKey}` } })).rawPayload).lines.join('\n');
    assert.ok(english.includes(`Invoice ${open.number}`) && english.includes('Amount due'));
    const note = (await api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { amount: 6_550, reason: 'order_change' })).body;
    const notePdf = pdfText((await t.app.inject({ method: 'GET', url: `/api/v1/billing/credit-notes/${note.id}/pdf`, headers: { authorization: `Bearer ${m.testKey}` } })).rawPayload).lines.join('\n');
    for (const expected of [`Avoir ${note.number}`, `Avoir sur la facture ${open.number}`, 'Modification de commande']) assert.ok(notePdf.includes(expected), `${expected} in:\n${notePdf}`);
    const other = await createMerchant(t, 'Other PDFs');
    assert.equal((await api('GET', `/api/v1/billing/invoices/${inv.id}/pdf`, undefined, other.testKey)).status, 404);
    assert.equal((await api('GET', `/api/v1/billing/credit-notes/${note.id}/pdf`, undefined, other.testKey)).status, 404);
  });

  it('a sale with order.invoicing.enabled gets one invoice, issued and paid by its capture', async () => {
    const cus = await customer({ email: 'sale@example.com' });
    const session = await createSession(t, m.testKey, {
      amount: 4500, extra: {
        customerId: cus, email: undefined, externalId: undefined,
        order: { reference: 'ODOO-42', amount: 4500, currency: 'EUR', items: [{ product: 'Monoï', unitPrice: 1500, quantity: 3 }], invoicing: { enabled: true } },
      },
    });
    await paySession(t, session.sessionId);
    await paymentSchedule(t, clock).tick();
    const list = (await api('GET', `/api/v1/billing/invoices?customerId=${cus}`)).body.data;
    assert.equal(list.length, 1, 'one invoice for the sale');
    const [inv] = list;
    assert.match(inv.number, /^F-\d{4}-\d{6}$/);
    assert.deepEqual([inv.status, inv.total, inv.amountPaid, inv.amountRemaining], ['paid', 4500, 4500, 0]);
    assert.deepEqual(inv.lines.map((l: { description: string; quantity: number; unitPrice: number }) => [l.description, l.quantity, l.unitPrice]), [['Monoï', 3, 1500]]);
    assert.deepEqual((await eventsOfType(t, 'invoice.issued')).filter((e) => e.data.invoiceId === inv.id).length, 1);
    assert.deepEqual((await eventsOfType(t, 'invoice.paid')).filter((e) => e.data.invoiceId === inv.id).length, 1);
    // A chargeback on the payment reopens the invoice; won, it is paid again.
    const dispute = (await api('POST', `/api/v1/test-helpers/payments/${session.paymentId}/dispute`, { amount: 1500 })).body;
    const disputed = (await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body;
    assert.deepEqual([disputed.status, disputed.amountRemaining], ['disputed', 1500]);
    assert.equal((await eventsOfType(t, 'invoice.disputed')).filter((e) => e.data.invoiceId === inv.id).length, 1);
    assert.equal((await t.admin('POST', `/admin/v1/disputes/${dispute.id}/close`, { outcome: 'won' })).status, 200);
    const back = (await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body;
    assert.deepEqual([back.status, back.amountRemaining], ['paid', 0]);
    // A credit note with refund gives the money back to the card through the refund machinery.
    const refunded = await api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { amount: 1500, reason: 'product_unsatisfactory', refund: true });
    assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
    assert.equal(refunded.body.refund, true);
    assert.equal((await api('GET', `/api/v1/payments/${session.paymentId}`)).body.refundedAmount, 1500);
    const partly = (await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body;
    assert.deepEqual([partly.status, partly.amountPaid, partly.amountCredited, partly.amountRemaining], ['paid', 3000, 1500, 0]);
    assert.equal((await api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { amount: 3001, reason: 'other', refund: true })).body.code, 'INVOICING_CREDIT_EXCEEDS_CREDITABLE');
    await api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { reason: 'other', refund: true });
    const all = (await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body;
    assert.deepEqual([all.status, all.amountPaid, all.amountCredited], ['credited', 0, 4500]);
    assert.equal((await api('GET', `/api/v1/payments/${session.paymentId}`)).body.refundedAmount, 4500);
    const plain = await createSession(t, m.testKey, { amount: 700, extra: { customerId: cus, email: undefined, externalId: undefined } });
    await paySession(t, plain.sessionId);
    assert.equal((await api('GET', `/api/v1/billing/invoices?customerId=${cus}`)).body.data.length, 1, 'no invoicing asked: no invoice');
  });

  it("a subscription with invoicing gets one invoice per due date, issued before the charge and paid by it", async () => {
    const c = (await api('POST', '/api/v1/test-helpers/test-clocks', { frozenTime: '2027-03-01T08:00:00.000Z' })).body;
    const cus = await customer({ email: 'member@example.com', testClockId: c.id });
    const card = await saveCard(t, m.testKey, cus);
    const sub = (await api('POST', '/api/v1/subscriptions', {
      customerId: cus, paymentMethodId: card.result.paymentMethodId, amount: 3000, currency: 'XPF', interval: 'month', description: 'Adhésion club', invoicing: { enabled: true },
    })).body;
    await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime: '2027-04-02T00:00:00.000Z' });
    await paymentSchedule(t, clock).tick();
    const dueDates = (await api('GET', `/api/v1/subscriptions/${sub.id}/due-dates`)).body.data;
    assert.equal(dueDates.length, 2);
    const invoices = (await api('GET', `/api/v1/billing/invoices?subscriptionId=${sub.id}`)).body.data;
    assert.deepEqual(invoices.map((i: { id: string }) => i.id).sort(), dueDates.map((d: { invoiceId: string }) => d.invoiceId).sort());
    for (const inv of invoices) {
      assert.deepEqual([inv.status, inv.total, inv.amountPaid, inv.subscriptionId], ['paid', 3000, 3000, sub.id]);
      assert.equal(inv.lines[0].description, 'Adhésion club');
    }
    const numbers = invoices.map((i: { number: string }) => Number(i.number.split('-')[2])).sort((a: number, b: number) => a - b);
    assert.equal(numbers[1] - numbers[0], 1, 'consecutive numbers');
    const paid = (await eventsOfType(t, 'invoice.paid')).filter((e) => e.data.subscriptionId === sub.id);
    assert.equal(paid.length, 2);
  });

  it("a past-due subscription's invoice is sent with its payment link", async () => {
    const c = (await api('POST', '/api/v1/test-helpers/test-clocks', { frozenTime: '2027-05-01T08:00:00.000Z' })).body;
    const cus = await customer({ email: 'late@example.com', testClockId: c.id });
    const card = await saveCard(t, m.testKey, cus, '4000000000000341');
    const sub = (await api('POST', '/api/v1/subscriptions', {
      customerId: cus, paymentMethodId: card.result.paymentMethodId, amount: 2000, currency: 'XPF', interval: 'month', retrySchedule: [1], invoicing: { enabled: true },
    })).body;
    await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime: '2027-05-03T00:00:00.000Z' });
    await paymentSchedule(t, clock).tick();
    assert.equal((await api('GET', `/api/v1/subscriptions/${sub.id}`)).body.status, 'past_due');
    const [inv] = (await api('GET', `/api/v1/billing/invoices?subscriptionId=${sub.id}`)).body.data;
    assert.deepEqual([inv.status, inv.amountRemaining, typeof inv.sentAt], ['open', 2000, 'string']);
    const [sent] = (await eventsOfType(t, 'invoice.sent')).filter((e) => e.data.invoiceId === inv.id);
    assert.equal(sent.data.subscriptionId, sub.id);
    // Paid another way (here by hand): the due date is paid and the subscription active again from its next due date.
    assert.equal((await api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 2000, method: 'cash' })).body.status, 'paid');
    const back = (await api('GET', `/api/v1/subscriptions/${sub.id}`)).body;
    assert.deepEqual([back.status, back.nextDueDate], ['active', '2027-06-01T08:00:00.000Z']);
    assert.equal((await api('GET', `/api/v1/subscriptions/${sub.id}/due-dates`)).body.data[0].status, 'paid');
  });

  /** The hosted page of a sent invoice, as the customer opens it: what it says is due and the checkout it offers. */
  const openPage = async (url: string) => {
    const page = await t.api(undefined, 'GET', new URL(url).pathname);
    assert.equal(page.status, 200, String(page.body));
    const html = String(page.body);
    const session = /\/checkout\/(ses_[0-9A-Za-z]+)/.exec(html)?.[1] ?? null;
    const payment = session ? (await api('GET', `/api/v1/payments/sessions/${session}`)).body : null;
    return { html, session, paymentId: payment?.paymentId as string | undefined, amount: payment?.amount as number | undefined };
  };
  const sentInvoice = async (total: number) => {
    const cus = await customer();
    const inv = await draft({ customerId: cus, currency: 'EUR', lines: [{ description: 'Atelier', quantity: 1, unitPrice: total }] });
    assert.equal((await api('POST', `/api/v1/billing/invoices/${inv.id}/finalize`)).status, 200);
    const sent = await api('POST', `/api/v1/billing/invoices/${inv.id}/send`);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    return { id: inv.id as string, url: sent.body.url as string };
  };
  /** The customer pays the page's checkout with a card: the pay call's answer, or the token endpoint's refusal. */
  const payCheckout = async (session: string, card: string = CARDS.visa) => {
    const token = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: card, expMonth: 12, expYear: 2040, cvc: '123', session });
    if (token.status !== 201) return token;
    return t.api(undefined, 'POST', `/checkout/${session}/pay`, { token: token.body.token, email: 'hina@example.com' });
  };
  const payment = async (id: string) => (await api('GET', `/api/v1/payments/${id}`)).body;

  it("the page's card payment is for what is due now: a credit note or a payment by hand cancels the open checkout, the next visit offers the new amount, none when nothing is due", async () => {
    // 10.00 sent, then a credit note of 6.00: the page offers 4.00, and paying it takes 4.00, never the first 10.00.
    const first = await sentInvoice(1000);
    const before = await openPage(first.url);
    assert.equal(before.amount, 1000);
    assert.equal((await api('POST', `/api/v1/billing/invoices/${first.id}/credit-notes`, { amount: 600, reason: 'order_change' })).status, 201);
    assert.equal((await payment(before.paymentId!)).status, 'cancelled', 'the 10.00 checkout is cancelled with the credit note');
    const cancelled = (await eventsOfType(t, 'payment.cancelled')).filter((e) => e.data.id === before.paymentId || e.data.paymentId === before.paymentId);
    assert.equal(cancelled.length, 1);
    assert.notEqual((await payCheckout(before.session!)).status, 200, 'the old checkout can no longer be paid');
    const after = await openPage(first.url);
    assert.notEqual(after.session, before.session);
    assert.equal(after.amount, 400);
    assert.match(after.html, /4,00/);
    assert.equal((await payCheckout(after.session!)).status, 200);
    assert.deepEqual([(await payment(after.paymentId!)).capturedAmount, (await payment(before.paymentId!)).capturedAmount], [400, 0]);
    const paid = (await api('GET', `/api/v1/billing/invoices/${first.id}`)).body;
    assert.deepEqual([paid.status, paid.amountPaid, paid.amountCredited, paid.amountRemaining], ['paid', 400, 600, 0]);
    const done = await openPage(first.url);
    assert.equal(done.session, null, 'nothing due: no card payment offered');
    assert.match(done.html, /role="status"/);

    // A payment recorded by hand after sending: the open checkout cannot pay the invoice a second time.
    const second = await sentInvoice(1000);
    const offered = await openPage(second.url);
    assert.equal((await api('POST', `/api/v1/billing/invoices/${second.id}/payments`, { amount: 1000, method: 'bank_transfer' })).body.status, 'paid');
    assert.equal((await payment(offered.paymentId!)).status, 'cancelled');
    assert.notEqual((await payCheckout(offered.session!)).status, 200);
    assert.equal((await openPage(second.url)).session, null);
    assert.equal((await payment(offered.paymentId!)).capturedAmount, 0);

    // Part paid by hand: the next visit offers the rest; sending again keeps that one (same amount), and it stays payable.
    const third = await sentInvoice(1000);
    const full = await openPage(third.url);
    await api('POST', `/api/v1/billing/invoices/${third.id}/payments`, { amount: 300, method: 'cash' });
    const rest = await openPage(third.url);
    assert.equal(rest.amount, 700);
    assert.equal((await payment(full.paymentId!)).status, 'cancelled');
    assert.equal((await api('POST', `/api/v1/billing/invoices/${third.id}/send`)).status, 200);
    assert.equal((await openPage(third.url)).session, rest.session);
    // Marked uncollectible: the amount due stays, and so does a way to pay it (a new checkout for it).
    await api('POST', `/api/v1/billing/invoices/${third.id}/mark-uncollectible`);
    const still = await openPage(third.url);
    assert.equal(still.amount, 700);
    assert.equal((await payCheckout(still.session!)).status, 200);
    const settled = (await api('GET', `/api/v1/billing/invoices/${third.id}`)).body;
    assert.deepEqual([settled.status, settled.amountPaid], ['paid', 1000]);
  });

  it("a payment recorded by hand while the page's card is being captured waits for the capture, then pays: no deadlock", { skip: dialect !== 'postgres' && 'a row lock held from another connection' }, async () => {
    // The capture holds its payment, then pays the invoice (the order every change of an invoice takes too). Here
    // another connection plays the capture: it holds the page's payment, and once the payment by hand is under way it
    // changes the invoice. Taken invoice first, the payment by hand waited for the payment while the capture waited for
    // the invoice, and PostgreSQL failed one of them after a second (a 500 to the merchant).
    const inv = await sentInvoice(1000);
    const offered = await openPage(inv.url);
    const capture = new pg.Client({ connectionString: t.config.databaseUrl });
    await capture.connect();
    try {
      await capture.query('BEGIN');
      await capture.query('SELECT id FROM payments WHERE id = $1 FOR UPDATE', [offered.paymentId]);
      const byHand = api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 1000, method: 'bank_transfer' });
      await sleep(300);
      const paying = await capture.query('UPDATE invoices SET updated_at = updated_at WHERE id = $1', [inv.id]).then(() => 'updated', (e: Error) => e.message);
      await capture.query(paying === 'updated' ? 'COMMIT' : 'ROLLBACK');
      assert.equal(paying, 'updated', 'the capture pays the invoice while the payment by hand waits');
      const answer = await byHand;
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual([answer.body.status, answer.body.amountPaid], ['paid', 1000]);
      assert.equal((await payment(offered.paymentId!)).status, 'cancelled');
    } finally {
      await capture.end();
    }
  });

  it('a card in 3-D Secure when the invoice is paid by hand is not taken: its authorization is given back, nothing captured', { skip: onlyOn('simulator', 'the simulator\'s bank page') }, async () => {
    const inv = await sentInvoice(2500);
    const offered = await openPage(inv.url);
    const started = await payCheckout(offered.session!, CARDS.challenge);
    assert.equal(started.body.next, 'challenge', JSON.stringify(started.body));
    const authorizationId = new URL(started.body.url).pathname.split('/').pop()!;
    assert.equal((await api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 2500, method: 'bank_transfer' })).body.status, 'paid');
    // The bank authenticates the cardholder afterwards: the checkout was cancelled meanwhile, so nothing is captured.
    const bank = await t.api(undefined, 'POST', `/acquirer/v1/3ds/${authorizationId}`, 'result=authenticated', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(bank.status, 303);
    const back = new URL(String(bank.headers.location), 'http://x');
    await t.api(undefined, 'GET', `${back.pathname}${back.search}`);
    const p = await payment(offered.paymentId!);
    assert.deepEqual([p.status, p.capturedAmount], ['cancelled', 0]);
    const after = (await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body;
    assert.deepEqual([after.status, after.amountPaid], ['paid', 2500]);
    assert.equal((await eventsOfType(t, 'payment.captured')).filter((e) => e.data.id === offered.paymentId || e.data.paymentId === offered.paymentId).length, 0);
  });

  it('paid again on its page during a chargeback, then the chargeback won: what the invoice no longer owes goes back to the card at once, and is announced', async () => {
    const inv = await sentInvoice(1000);
    const first = await openPage(inv.url);
    assert.equal((await payCheckout(first.session!)).status, 200);
    assert.equal((await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body.status, 'paid');
    const dispute = (await api('POST', `/api/v1/test-helpers/payments/${first.paymentId}/dispute`, { amount: 1000 })).body;
    const disputed = (await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body;
    assert.deepEqual([disputed.status, disputed.amountRemaining], ['disputed', 1000]);
    // The customer pays the amount due again on the page (a new checkout, for what is due now).
    const again = await openPage(inv.url);
    assert.notEqual(again.session, first.session);
    assert.equal(again.amount, 1000);
    assert.equal((await payCheckout(again.session!)).status, 200);
    assert.equal((await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body.status, 'paid');
    assert.equal((await t.admin('POST', `/admin/v1/disputes/${dispute.id}/close`, { outcome: 'won' })).status, 200);
    const [announced] = (await eventsOfType(t, 'invoice.overpayment_refunded')).filter((e) => e.data.invoiceId === inv.id);
    assert.ok(announced, 'invoice.overpayment_refunded');
    assert.deepEqual([announced.data.paymentId, announced.data.refundAmount, announced.data.status, announced.data.amountRemaining], [first.paymentId, 1000, 'paid', 0]);
    await paymentSchedule(t, clock).tick();
    const refunded = await payment(first.paymentId!);
    assert.deepEqual([refunded.status, refunded.refundedAmount], ['refunded', 1000]);
    assert.equal((await payment(again.paymentId!)).capturedAmount, 1000);
    const after = (await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body;
    assert.deepEqual([after.status, after.amountPaid, after.amountRemaining], ['paid', 1000, 0]);
    assert.equal((await api('GET', `/api/v1/payments/${first.paymentId}/refunds`)).body.data[0].id, announced.data.refundId);
    const ledger = await verifyLedger(t.db);
    assert.ok(ledger.ok, JSON.stringify(ledger.differences.slice(0, 3)));
  });

  it('totals are bounded: a line or a total beyond 999,999,999 minor units is a 400 naming the field, on create and change; nothing is written', async () => {
    const cus = await customer();
    const before = (await api('GET', '/api/v1/billing/invoices?limit=100')).body.data.length;
    const big = { description: 'Pirogue', quantity: 1, unitPrice: 999_999_999 };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ lines: [big, big, big] }, 'lines'],
      [{ lines: [{ ...big, taxRate: 1600 }] }, 'lines'],
      [{ lines: [{ description: 'Nono', quantity: 1_000_000, unitPrice: 1_000 }] }, 'lines[0].unitPrice'],
      [{ currency: 'EUR', lines: [{ description: 'Nono', quantity: 2, unitPrice: 600_000_000 }] }, 'lines[0].unitPrice'],
    ];
    for (const [body, field] of cases) {
      const res = await api('POST', '/api/v1/billing/invoices', { customerId: cus, currency: 'XPF', ...body });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.equal(res.body.fields[0].field, field, JSON.stringify(res.body));
      assert.equal(typeof res.body.message, 'string');
    }
    assert.equal((await api('GET', '/api/v1/billing/invoices?limit=100')).body.data.length, before);
    // The bound itself is fine, and finalizes, pays and credits like any invoice.
    const edge = await draft({ customerId: cus, lines: [{ description: 'Fare', quantity: 1, unitPrice: 999_999_999 }] });
    assert.equal(edge.total, 999_999_999);
    const patched = await api('PATCH', `/api/v1/billing/invoices/${edge.id}`, { lines: [big, big] });
    assert.deepEqual([patched.status, patched.body.code, patched.body.fields?.[0]?.field], [400, 'VALIDATION_ERROR', 'lines']);
    assert.equal((await api('GET', `/api/v1/billing/invoices/${edge.id}`)).body.total, 999_999_999, 'unchanged');
    const open = await api('POST', `/api/v1/billing/invoices/${edge.id}/finalize`);
    assert.equal(open.status, 200, JSON.stringify(open.body));
    assert.equal((await api('POST', `/api/v1/billing/invoices/${edge.id}/payments`, { amount: 999_999_998, method: 'bank_transfer' })).body.amountRemaining, 1);
    assert.equal((await api('POST', `/api/v1/billing/invoices/${edge.id}/credit-notes`, { reason: 'other' })).body.amount, 1);
    // Every other amount a merchant grows keeps the same bound.
    const sub = await api('POST', '/api/v1/subscriptions', { customerId: cus, amount: 1_000_000_000, currency: 'XPF', interval: 'month' });
    assert.deepEqual([sub.status, sub.body.fields?.[0]?.field], [400, 'amount']);
    const paidByHand = await api('POST', `/api/v1/billing/invoices/${edge.id}/payments`, { amount: 1_000_000_000, method: 'cash' });
    assert.deepEqual([paidByHand.status, paidByHand.body.fields?.[0]?.field], [400, 'amount']);
  });

  it('bad input is a 400 that writes nothing; another merchant or mode gets 404', async () => {
    const cus = await customer();
    const before = (await api('GET', '/api/v1/billing/invoices?limit=100')).body.data.length;
    for (const body of [
      { customerId: cus, currency: 'USD' }, { customerId: cus, lines: [] }, { customerId: cus, lines: [{ description: 'x', quantity: 0, unitPrice: 1 }] },
      { customerId: cus, lines: [{ description: 'x', quantity: 1, unitPrice: 1, taxRate: 10_001 }] }, { customerId: cus, dueDate: 'soon' }, { customerId: cus, extra: 1 },
    ]) {
      assert.equal((await api('POST', '/api/v1/billing/invoices', { currency: 'XPF', lines: [{ description: 'L', quantity: 1, unitPrice: 1 }], ...body })).status, 400, JSON.stringify(body));
    }
    assert.equal((await api('POST', '/api/v1/billing/invoices', { customerId: 'cus_nope', currency: 'XPF', lines: [{ description: 'L', quantity: 1, unitPrice: 1 }] })).status, 404);
    assert.equal((await api('GET', '/api/v1/billing/invoices?limit=100')).body.data.length, before);
    const inv = await draft({ customerId: cus });
    const other = await createMerchant(t, 'Other invoices');
    for (const key of [other.testKey, m.liveKey]) {
      assert.equal((await api('GET', `/api/v1/billing/invoices/${inv.id}`, undefined, key)).status, 404);
      assert.equal((await api('POST', `/api/v1/billing/invoices/${inv.id}/finalize`, {}, key)).status, 404);
      assert.equal((await api('DELETE', `/api/v1/billing/invoices/${inv.id}`, undefined, key)).status, 404);
      assert.deepEqual((await api('GET', '/api/v1/billing/invoices', undefined, key)).body.data, []);
    }
    assert.equal((await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body.status, 'draft');
  });
});
