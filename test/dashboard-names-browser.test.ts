// Names where people expect names, in Chromium on every database: the invoice and subscription lists show the
// customer's name and email (not its id), a customer is found by name, email or external id wherever one is picked
// (even among more customers than a list shows), balance sources keep their ids whole, and the team's activity reads
// as sentences naming the invoice by its number. axe in light and dark, and 390 px.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { okApi, LEGAL_IDENTITY, PHONE, signedInUser, type UserClient } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';


eachDatabase('names in the back-office', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  const api = okApi(t, () => m.testKey);
  let owner: UserClient;
  let context: BrowserContext;
  let page: Page;
  /** The first customer made, so among the oldest of the many below. */
  let hina: { id: string };
  let hinaInvoice: string;
  let otherInvoice: string;

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, LEGAL_IDENTITY)).status, 200);
    owner = await signedInUser(t, m.id, 'owner');
    const eq = owner.cookie.indexOf('=');
    ({ context, page } = await newPage(suite.browser, { locale: 'en-GB' }));
    await context.addCookies([{ name: owner.cookie.slice(0, eq), value: owner.cookie.slice(eq + 1), url: suite.baseUrl }]);

    hina = await api('POST', '/api/v1/customers', { name: 'Hina Teriitahi', email: 'hina@example.pf', externalId: 'crm-42' });
    // More customers than any list of the back-office shows at once.
    for (let i = 0; i < 105; i += 1) await api('POST', '/api/v1/customers', { name: `Client ${i}`, email: `client${i}@example.pf` });
    const other = (await api('GET', '/api/v1/customers?limit=1')).data[0];
    hinaInvoice = (await api('POST', '/api/v1/billing/invoices', { customerId: hina.id, currency: 'XPF', lines: [{ description: 'Loyer', quantity: 1, unitPrice: 85_000 }] })).id;
    otherInvoice = (await api('POST', '/api/v1/billing/invoices', { customerId: other.id, currency: 'XPF', lines: [{ description: 'Cours', quantity: 1, unitPrice: 2000 }] })).id;
  });

  async function accessible(what: string, target: Page = page): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await target.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(target), [], `${what} (${colorScheme})`);
    }
    await target.emulateMedia({ colorScheme: 'light' });
  }

  it('the invoice list names the customer and its email; the filter finds the customer by name, not by id', async () => {
    await page.goto(`${suite.baseUrl}/dashboard/invoices`);
    const table = page.getByRole('table', { name: 'Invoices, newest first' });
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'Hina Teriitahi' }) });
    await row.getByText('hina@example.pf').waitFor();
    assert.doesNotMatch(await table.innerText(), /cus_/);
    await accessible('invoices with customer names');

    await page.getByLabel('Find a customer').fill('teriit');
    const select = page.getByLabel('Customer', { exact: true });
    await select.locator('option', { hasText: 'Hina Teriitahi · hina@example.pf' }).waitFor({ state: 'attached' });
    await select.selectOption({ label: 'Hina Teriitahi · hina@example.pf' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(new RegExp(`customerId=${hina.id}`));
    await table.locator(`a[href$="/invoices/${otherInvoice}"]`).waitFor({ state: 'detached' });
    await table.locator(`a[href$="/invoices/${hinaInvoice}"]`).waitFor();
  });

  it('a new invoice finds its customer by external id among more than a hundred', async () => {
    await page.goto(`${suite.baseUrl}/dashboard/invoices/new`);
    await page.getByRole('heading', { name: 'New invoice', level: 1 }).waitFor();
    const select = page.getByLabel('Customer', { exact: true });
    // The newest twenty are offered before any search; Hina, the oldest, is not among them.
    await select.locator('option', { hasText: 'Client 104' }).waitFor({ state: 'attached' });
    assert.equal(await select.locator('option', { hasText: 'Hina' }).count(), 0);
    await page.getByLabel('Find a customer').fill('CRM-42');
    await select.locator('option', { hasText: 'Hina Teriitahi · hina@example.pf' }).waitFor({ state: 'attached' });
    await select.selectOption({ label: 'Hina Teriitahi · hina@example.pf' });
    assert.equal(await select.inputValue(), hina.id);
    await page.getByLabel('Find a customer').fill('nobody at all');
    await page.getByText('No customer matches this search.').waitFor();
    // The customer chosen stays chosen whatever the search shows.
    assert.equal(await select.inputValue(), hina.id);
    await accessible('customer picker');
  });

  it('balance sources name their kind and keep the payment id whole', async () => {
    const payment = await paidPayment(t, m.testKey, { amount: 2500, currency: 'XPF' });
    await page.goto(`${suite.baseUrl}/dashboard/balance`);
    const table = page.getByRole('table', { name: 'Balance transactions, newest first' });
    const source = table.locator(`a[href$="/payments/${payment}"]`).first();
    assert.equal(await source.innerText(), 'Payment');
    const id = table.locator('code.id', { hasText: payment }).first();
    assert.equal(await id.evaluate((e) => getComputedStyle(e).whiteSpace), 'nowrap');
    assert.equal(await id.evaluate((e) => e.textContent), payment);
    await accessible('balance sources');
  });

  it('the team activity reads as sentences: who finalized which invoice, by its number, in English and French', async () => {
    const finalized = await owner.call('POST', `/api/v1/billing/invoices/${hinaInvoice}/finalize`, {});
    assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
    const number = finalized.body.number as string;
    await page.goto(`${suite.baseUrl}/dashboard/settings/activity`);
    const table = page.getByRole('table', { name: /Changes made from the back-office/ });
    await table.getByText(`${owner.email} finalized invoice ${number}`).waitFor();
    await table.getByRole('link', { name: number }).waitFor();
    assert.doesNotMatch(await table.innerText(), /POST \/api|\b200\b/);
    await accessible('activity');

    const { context: french, page: fr } = await newPage(suite.browser, { locale: 'fr-FR', viewport: PHONE });
    try {
      await french.addCookies(await context.cookies(suite.baseUrl));
      await fr.goto(`${suite.baseUrl}/dashboard/settings/activity`);
      await fr.getByText(`${owner.email} a finalisé la facture ${number}`).waitFor();
      const overflow = await fr.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the activity scrolls sideways by ${overflow} px at 390 px`);
      await fr.goto(`${suite.baseUrl}/dashboard/invoices`);
      await fr.getByRole('table', { name: 'Factures, de la plus récente à la plus ancienne' }).getByRole('link', { name: 'Hina Teriitahi' }).waitFor();
      await fr.waitForFunction(() => document.querySelector('.loading') === null);
      const listOverflow = await fr.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(listOverflow <= 0, `the invoice list scrolls sideways by ${listOverflow} px at 390 px`);
      await accessible('invoices at 390 px in French', fr);
    } finally {
      await french.close();
    }
  });
});
