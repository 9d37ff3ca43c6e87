// What invoices and credit notes say besides their figures (docs/billing.md, PDFs): the mentions of a French
// business invoice (payment terms, no discount for early payment unless the merchant sets one, late-payment
// penalties, the 40 € recovery indemnity), the merchant's country by name, a credit note's VAT breakdown, each
// language's punctuation, and the merchant's own footer and terms, set by the operator's API and the back-office
// (bounded, blank meaning "not set"), which redraw a kept PDF when they change.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { signedInUser } from './support/back-office.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { pdfText } from './support/pdf.js';
import { creditTaxes } from '../src/pages/invoices/invoice-pdf.js';

const IDENTITY = {
  legalName: 'Fare Ute SARL', registrationNumber: 'TAHITI A12345',
  address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' },
};
/** PDF text with its no-break spaces made plain, so that figures and French punctuation read simply. */
const plain = (text: string) => text.replace(/\u202f|\u00a0/g, ' ');

eachDatabase('invoice mentions', (dialect) => {
  const { t, m } = withMerchantApp(dialect, {});
  const api = (method: string, url: string, body?: unknown) => t.api(m.testKey, method, url, body);
  const pdf = async (url: string, lang: 'fr' | 'en') => {
    const res = await t.app.inject({ method: 'GET', url: `${url}/pdf?lang=${lang}`, headers: { authorization: `Bearer ${m.testKey}` } });
    assert.equal(res.statusCode, 200);
    return plain(pdfText(res.rawPayload).lines.join('\n'));
  };
  let invoiceId: string;
  let invoiceNumber: string;

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, IDENTITY)).status, 200);
    const customerId = (await api('POST', '/api/v1/customers', { name: 'Hina', email: 'hina@example.pf' })).body.id;
    // 10,000 at 16 % and 5,000 at 5 %: 11,600 + 5,250 = 16,850.
    const draft = await api('POST', '/api/v1/billing/invoices', {
      customerId, currency: 'XPF', daysUntilDue: 30,
      lines: [{ description: 'Pāreu', quantity: 1, unitPrice: 10_000, taxRate: 1_600 }, { description: 'Livre', quantity: 1, unitPrice: 5_000, taxRate: 500 }],
    });
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    const open = await api('POST', `/api/v1/billing/invoices/${draft.body.id}/finalize`);
    assert.equal(open.status, 200, JSON.stringify(open.body));
    invoiceId = open.body.id;
    invoiceNumber = open.body.number;
  });

  it('an invoice in French carries the terms, no early-payment discount, the penalties, the 40 € indemnity, the country by name, "TVA" and French punctuation', async () => {
    const text = await pdf(`/api/v1/billing/invoices/${invoiceId}`, 'fr');
    for (const expected of [
      `Facture ${invoiceNumber}`, 'Polynésie française', 'TVA 16 %', 'TVA 5 %', 'Total TTC', "N° d'immatriculation : TAHITI A12345",
      'Conditions de paiement : à 30 jours, au plus tard le', "Pas d'escompte pour paiement anticipé.",
      'Pénalités de retard : taux de refinancement de la Banque centrale européenne majoré de 10 points',
      'indemnité forfaitaire pour frais de recouvrement de 40 €',
    ]) assert.ok(text.includes(expected), `${expected} in:\n${text}`);
    assert.match(text, /Date : \d/);
    assert.doesNotMatch(text, /· PF|\bPF$/m, 'the country by its name, not its code');
  });

  it('in English: the same mentions, "Date:" without a space before the colon, VAT 16%, the country by name', async () => {
    const text = await pdf(`/api/v1/billing/invoices/${invoiceId}`, 'en');
    for (const expected of [
      `Invoice ${invoiceNumber}`, 'French Polynesia', 'VAT 16%', 'Payment terms: 30 days, by', 'No discount for early payment.',
      "Late-payment penalties: the European Central Bank's main refinancing rate plus 10 percentage points",
      'fixed compensation for recovery costs of €40', 'Registration number: TAHITI A12345',
    ]) assert.ok(text.includes(expected), `${expected} in:\n${text}`);
    assert.match(text, /Date: \d/);
    assert.doesNotMatch(text, / :/, 'no space before a colon in English');
  });

  it('the hosted invoice page says "TVA 16 %" in French and "VAT 16%" in English', async () => {
    const sent = await api('POST', `/api/v1/billing/invoices/${invoiceId}/send`);
    const page = new URL(sent.body.url).pathname;
    const fr = plain((await t.app.inject({ method: 'GET', url: page })).body);
    const en = plain((await t.app.inject({ method: 'GET', url: `${page}?lang=en` })).body);
    assert.ok(fr.includes('TVA 16 %') && fr.includes('TVA 5 %'), fr);
    assert.ok(en.includes('VAT 16%') && en.includes('VAT 5%'), en);
  });

  it("a credit note splits its amount by VAT rate as its invoice's total was, and its rates and total add up", async () => {
    // 8,425 is half of 16,850: 5,800 at 16 % (5,000 + 800) and 2,625 at 5 % (2,500 + 125).
    const note = await api('POST', `/api/v1/billing/invoices/${invoiceId}/credit-notes`, { amount: 8_425, reason: 'order_change' });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    const fr = await pdf(`/api/v1/billing/credit-notes/${note.body.id}`, 'fr');
    for (const expected of ['Total HT 7 500 XPF', 'TVA 16 % sur 5 000 XPF 800 XPF', 'TVA 5 % sur 2 500 XPF 125 XPF', 'Total TTC 8 425 XPF', 'Motif : Modification de commande']) {
      assert.ok(fr.includes(expected), `${expected} in:\n${fr}`);
    }
    const en = await pdf(`/api/v1/billing/credit-notes/${note.body.id}`, 'en');
    for (const expected of ['VAT 16% on XPF 5,000 XPF 800', 'VAT 5% on XPF 2,500 XPF 125', 'Reason: Order change', 'French Polynesia']) {
      assert.ok(en.includes(expected), `${expected} in:\n${en}`);
    }
  });

  it("the merchant's footer, late-payment terms and discount, set by the operator's API, are printed and redraw a kept PDF; blank restores the defaults", async () => {
    const url = `/api/v1/billing/invoices/${invoiceId}`;
    await pdf(url, 'fr');
    const terms = {
      invoiceFooter: 'IBAN FR76 3000 6000 0112 3456 7890 189 · Mauruuru roa ʻoe !',
      latePaymentTerms: "trois fois le taux d'intérêt légal",
      earlyPaymentDiscount: '2 % pour un paiement sous 8 jours',
    };
    const set = await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, terms);
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual({ invoiceFooter: set.body.invoiceFooter, latePaymentTerms: set.body.latePaymentTerms, earlyPaymentDiscount: set.body.earlyPaymentDiscount }, terms);
    const text = await pdf(url, 'fr');
    for (const expected of [terms.invoiceFooter, "Pénalités de retard : trois fois le taux d'intérêt légal", 'Escompte pour paiement anticipé : 2 % pour un paiement sous 8 jours']) {
      assert.ok(text.includes(expected), `${expected} in:\n${text}`);
    }
    assert.ok(!text.includes("Pas d'escompte"), 'the discount set replaces "no discount"');
    const notes = (await api('GET', `/api/v1/billing/credit-notes?invoiceId=${invoiceId}`)).body.data;
    assert.ok((await pdf(`/api/v1/billing/credit-notes/${notes[0].id}`, 'en')).includes(terms.invoiceFooter), "the credit note's footer too");

    const cleared = await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { invoiceFooter: '  ', latePaymentTerms: null, earlyPaymentDiscount: '' });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.invoiceFooter, null, 'blank is not set');
    assert.equal(cleared.body.earlyPaymentDiscount, null);
    const again = await pdf(url, 'fr');
    assert.ok(!again.includes(terms.invoiceFooter) && again.includes("Pas d'escompte pour paiement anticipé."), again);
  });

  it('the terms are bounded (footer 600, penalties 300, discount 200 characters), by the admin API and the back-office alike; support may not set them', async () => {
    for (const [field, max] of [['invoiceFooter', 600], ['latePaymentTerms', 300], ['earlyPaymentDiscount', 200]] as const) {
      const refused = await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { [field]: 'x'.repeat(max + 1) });
      assert.equal(refused.status, 400, field);
      assert.equal(refused.body.code, 'VALIDATION_ERROR');
      assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { [field]: 'x'.repeat(max) })).status, 200, `${field} at its bound`);
    }
    const owner = await signedInUser(t, m.id, 'owner');
    const saved = await owner.call('PATCH', '/dashboard/api/settings', { invoiceFooter: 'Merci !', latePaymentTerms: null, earlyPaymentDiscount: null });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal(saved.body.invoiceFooter, 'Merci !');
    assert.equal((await owner.call('GET', '/dashboard/api/settings')).body.latePaymentTerms, null);
    assert.equal((await owner.call('PATCH', '/dashboard/api/settings', { invoiceFooter: 'x'.repeat(601) })).status, 400);
    const support = await signedInUser(t, m.id, 'support');
    assert.equal((await support.call('PATCH', '/dashboard/api/settings', { invoiceFooter: 'No' })).status, 403);
  });
});

it("a credit note's shares by rate never go negative and add up to its amount, whatever the rounding", () => {
  // Four rates holding 30 %, 30 %, 30 % and 10 % of the total: 5 split naively (half up each) would be 2, 2, 2 and -1.
  const taxes = [0, 500, 1_000, 1_600].map((rate, i) => ({ rate, base: i === 3 ? 100 : 300, amount: 0 }));
  for (const amount of [1, 2, 3, 5, 7, 999, 1_000]) {
    const split = creditTaxes(amount, { taxes: JSON.stringify(taxes), total: 1_000 });
    assert.ok(split.every((s) => s.base >= 0 && s.amount >= 0), JSON.stringify(split));
    assert.equal(split.reduce((sum, s) => sum + s.base + s.amount, 0), amount);
  }
});
