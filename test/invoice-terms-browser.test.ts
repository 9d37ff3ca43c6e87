// The back-office's invoice terms (Settings: footer, late-payment penalties, early-payment discount) in Chromium, in
// English and in French at a phone's width (390 px), checked with axe-core in light and dark; and the invoice pages'
// French: "Payée" for a paid facture, "TVA" for its tax. On every database; one browser per file.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { signedInUser, type UserClient } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

const PHONE = { width: 390, height: 844 };
const IDENTITY = {
  legalName: 'Fare Ute SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' },
  registrationNumber: 'TAHITI A12345',
};

async function accessible(page: Page, what: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await axeViolations(page), [], `${what} (${colorScheme})`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

eachDatabase('the invoice terms in the back-office', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  let owner: UserClient;
  let paidInvoice: string;

  /** A page of the owner's session, in `locale`. */
  async function ownerPage(browser: Browser, locale: string, viewport?: { width: number; height: number }) {
    const { context, page } = await newPage(browser, { locale, ...(viewport ? { viewport } : {}) });
    const eq = owner.cookie.indexOf('=');
    await context.addCookies([{ name: owner.cookie.slice(0, eq), value: owner.cookie.slice(eq + 1), url: suite.baseUrl }]);
    return { context, page };
  }

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, IDENTITY)).status, 200);
    owner = await signedInUser(t, m.id, 'owner');
    const customerId = (await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Hina', email: 'hina@example.pf' })).body.id;
    const draft = await t.api(m.testKey, 'POST', '/api/v1/billing/invoices', {
      customerId, currency: 'XPF', lines: [{ description: 'Pāreu', quantity: 1, unitPrice: 10_000, taxRate: 1_600 }],
    });
    paidInvoice = draft.body.id;
    assert.equal((await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${paidInvoice}/finalize`)).status, 200);
    assert.equal((await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${paidInvoice}/payments`, { amount: 11_600, method: 'cash' })).status, 200);
  });

  it('in English: the invoice terms are filled and saved from Settings, and the API reads them back', async () => {
    const { context, page } = await ownerPage(suite.browser, 'en-GB');
    await page.goto(`${suite.baseUrl}/dashboard/settings`);
    await page.getByRole('heading', { name: 'Invoice terms' }).waitFor();
    await page.getByLabel('Footer').fill('IBAN FR76 3000 6000 0112 3456 7890 189');
    await page.getByLabel('Late-payment penalties').fill('three times the legal interest rate');
    assert.equal(await page.getByLabel('Footer').getAttribute('maxlength'), '600');
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'PATCH' && new URL(r.url()).pathname === '/dashboard/api/settings' && r.ok()),
      page.getByRole('button', { name: 'Save invoice terms' }).click(),
    ]);
    const merchant = (await t.admin('GET', `/admin/v1/merchants/${m.id}`)).body;
    assert.equal(merchant.invoiceFooter, 'IBAN FR76 3000 6000 0112 3456 7890 189');
    assert.equal(merchant.latePaymentTerms, 'three times the legal interest rate');
    assert.equal(merchant.earlyPaymentDiscount, null, 'left empty: not set');
    await accessible(page, 'settings with the invoice terms');
    await context.close();
  });

  it('in French at 390 px: the terms read back into the form, a discount is added; the paid facture is "Payée", its tax "TVA"', async () => {
    const { context, page } = await ownerPage(suite.browser, 'fr-FR', PHONE);
    await page.goto(`${suite.baseUrl}/dashboard/settings`);
    await page.getByRole('heading', { name: 'Mentions des factures' }).waitFor();
    assert.equal(await page.getByLabel('Pied de page').inputValue(), 'IBAN FR76 3000 6000 0112 3456 7890 189');
    await page.getByLabel('Escompte pour paiement anticipé').fill('2 % sous 8 jours');
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'PATCH' && new URL(r.url()).pathname === '/dashboard/api/settings' && r.ok()),
      page.getByRole('button', { name: 'Enregistrer les mentions' }).click(),
    ]);
    assert.equal((await t.admin('GET', `/admin/v1/merchants/${m.id}`)).body.earlyPaymentDiscount, '2 % sous 8 jours');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no horizontal scroll at 390 px (${overflow} px)`);
    await accessible(page, 'paramètres à 390 px');

    await page.goto(`${suite.baseUrl}/dashboard/invoices`);
    await page.getByRole('heading', { name: 'Factures', level: 1 }).waitFor();
    await page.locator('.badge', { hasText: /^Payée$/ }).first().waitFor();
    await page.goto(`${suite.baseUrl}/dashboard/invoices/${paidInvoice}`);
    await page.locator('.badge', { hasText: /^Payée$/ }).waitFor();
    await page.getByText('TVA 16', { exact: false }).first().waitFor();
    assert.equal(await page.getByText(/Taxe/).count(), 0, 'no "Taxe" on a French invoice page');
    await context.close();
  });
});
