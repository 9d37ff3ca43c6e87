// Amounts typed in the back-office, in Chromium on every database: in the currency's units ("25,50" in French,
// "25.50" in English, francs CFP without decimals), the amount shown before it is confirmed, more decimals than the
// currency has refused and never sent. What the API received is asked afterwards. axe in light and dark, and 390 px.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { okApi, LEGAL_IDENTITY, PHONE, signedInUser } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';


eachDatabase('amounts typed in the back-office', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  const api = okApi(t, () => m.testKey);
  let cookie: { name: string; value: string };
  let customerId: string;

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, LEGAL_IDENTITY)).status, 200);
    const user = await signedInUser(t, m.id, 'owner');
    const eq = user.cookie.indexOf('=');
    cookie = { name: user.cookie.slice(0, eq), value: user.cookie.slice(eq + 1) };
    customerId = (await api('POST', '/api/v1/customers', { name: 'Hina Teriitahi', email: 'hina@example.pf' })).id;
  });

  /** A page of the back-office in `lang` (the browser's language), signed in. */
  async function open(browser: Browser, lang: 'fr' | 'en', path: string, viewport?: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
    const opened = await newPage(browser, { locale: lang === 'fr' ? 'fr-FR' : 'en-GB', ...(viewport ? { viewport } : {}) });
    await opened.context.addCookies([{ ...cookie, url: suite.baseUrl }]);
    await opened.page.goto(`${suite.baseUrl}/dashboard${path}`);
    return opened;
  }

  async function accessible(page: Page, what: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page), [], `${what} (${colorScheme})`);
    }
  }

  it('a refund in French: "0,001" is refused and nothing sent; "25,50" shows 25,50 € and what is left, and sends 2550', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 10_000, currency: 'EUR' });
    const { context, page } = await open(suite.browser, 'fr', `/payments/${id}`);
    try {
      await page.getByRole('button', { name: 'Rembourser' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rembourser ce paiement ?' });
      const field = dialog.getByLabel('Montant à rembourser (vide : tout)');
      await dialog.getByText('En euros : 25 ou 25,50.').waitFor();
      await dialog.getByText(/^Rembourse tout ce qui reste : 100,00\s€\.$/).waitFor();

      await field.fill('0,001');
      await dialog.getByText('Deux décimales au plus en euros.').waitFor();
      assert.equal(await field.getAttribute('aria-invalid'), 'true');
      await accessible(page, 'refund dialog with a refused amount');
      await dialog.getByRole('button', { name: 'Rembourser' }).click();
      await dialog.getByRole('alert').filter({ hasText: 'Deux décimales au plus en euros.' }).waitFor();
      assert.equal((await api('GET', `/api/v1/payments/${id}`)).refundedAmount, 0);

      await field.fill('150');
      await dialog.getByText(/^Au plus 100,00\s€\.$/).waitFor();

      await field.fill('25,50');
      await dialog.getByText(/^Rembourse 25,50\s€ ; reste remboursable ensuite : 74,50\s€\.$/).waitFor();
      assert.equal(await field.getAttribute('aria-invalid'), null);
      await accessible(page, 'refund dialog with its amount');
      await dialog.getByRole('button', { name: 'Rembourser' }).click();
      await page.getByRole('status').filter({ hasText: 'Remboursement demandé.' }).waitFor();
      const refunded = await api('GET', `/api/v1/payments/${id}`);
      assert.deepEqual([refunded.status, refunded.refundedAmount], ['partially_refunded', 2550]);
      await page.locator('.facts').getByText(/^25,50\s€$/).waitFor();
    } finally {
      await context.close();
    }
  });

  it('an invoice in English: a unit price of "25.50" euros is 2550 cents; "25.505" is refused and no draft is made', async () => {
    const { context, page } = await open(suite.browser, 'en', `/invoices/new?customerId=${customerId}`);
    try {
      await page.getByRole('heading', { name: 'New invoice', level: 1 }).waitFor();
      await page.getByLabel('Currency').selectOption('EUR');
      await page.getByLabel('Description').fill('Pareu');
      await page.getByLabel('Quantity').fill('2');
      const price = page.getByLabel('Unit price before tax');
      await price.fill('25.505');
      await page.getByText('Two decimals at most in euros.').waitFor();
      await page.getByRole('button', { name: 'Create the draft' }).click();
      await page.getByRole('alert').filter({ hasText: 'Two decimals at most in euros.' }).waitFor();
      assert.equal((await api('GET', `/api/v1/billing/invoices?customerId=${customerId}`)).data.length, 0);

      await price.fill('25.50');
      await page.locator('.money-preview').getByText('€25.50').waitFor();
      await page.getByText(/^Subtotal before tax:\s*€51\.00$/).waitFor();
      await accessible(page, 'new invoice in EUR');
      await page.getByRole('button', { name: 'Create the draft' }).click();
      await page.getByRole('heading', { name: 'Draft invoice', level: 1 }).waitFor();
      const invoice = await api('GET', `/api/v1/billing/invoices/${page.url().split('/').at(-1)}`);
      assert.deepEqual([invoice.currency, invoice.lines[0].unitPrice, invoice.lines[0].quantity, invoice.subtotal], ['EUR', 2550, 2, 5100]);
    } finally {
      await context.close();
    }
  });

  it('a subscription in French francs CFP: "25,5" is refused (no decimals), "2 500" is 2500 XPF', async () => {
    const { context, page } = await open(suite.browser, 'fr', `/subscriptions/new?customerId=${customerId}`);
    try {
      await page.getByRole('heading', { name: 'Nouvel abonnement', level: 1 }).waitFor();
      const amount = page.getByLabel('Montant', { exact: true });
      await page.getByText('En francs CFP, sans décimales : 2500.').waitFor();
      await amount.fill('25,5');
      await page.getByText('Pas de décimales en francs CFP.').waitFor();
      await amount.fill('2 500');
      await page.locator('.subscription-preview').filter({ hasText: /^2\s500\sXPF \(20,95\s€\) chaque mois$/ }).waitFor();
      await accessible(page, 'new subscription in XPF');
      await page.getByRole('button', { name: 'Nouvel abonnement' }).click();
      await page.getByRole('heading', { name: /^Abonnement /, level: 1 }).waitFor();
      const made = await api('GET', `/api/v1/subscriptions/${page.url().split('/').at(-1)}`);
      assert.deepEqual([made.amount, made.currency], [2500, 'XPF']);
    } finally {
      await context.close();
    }
  });

  it('the payments filter in French: "25,50" euros at least is amountMin=2550, and reads back as typed', async () => {
    const small = await paidPayment(t, m.testKey, { amount: 2000, currency: 'EUR' });
    const large = await paidPayment(t, m.testKey, { amount: 2600, currency: 'EUR' });
    const { context, page } = await open(suite.browser, 'fr', '/payments');
    try {
      const min = page.getByLabel('Montant minimum');
      await min.waitFor();
      // No currency, no amount: its units would be unknown.
      assert.equal(await min.isDisabled(), true);
      await page.getByLabel('Devise').selectOption('EUR');
      await min.fill('25,50');
      await page.getByRole('button', { name: 'Filtrer' }).click();
      await page.waitForURL(/amountMin=2550/);
      const table = page.getByRole('table', { name: 'Paiements, du plus récent au plus ancien' });
      const references = async (id: string) => (await api('GET', `/api/v1/payments/${id}`)).orderReference as string;
      // The list before the filter stays on screen until the answer comes.
      await table.getByRole('link', { name: await references(small) }).waitFor({ state: 'detached' });
      await table.getByRole('link', { name: await references(large) }).waitFor();
      await page.reload();
      assert.equal(await page.getByLabel('Montant minimum').inputValue(), '25,50');
    } finally {
      await context.close();
    }
  });

  it('at 390 px in French the refund dialog with its amount does not scroll sideways', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 4200, currency: 'EUR' });
    const { context, page } = await open(suite.browser, 'fr', `/payments/${id}`, PHONE);
    try {
      await page.getByRole('button', { name: 'Rembourser' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rembourser ce paiement ?' });
      await dialog.getByLabel('Montant à rembourser (vide : tout)').fill('12,34');
      await dialog.getByText(/^Rembourse 12,34\s€ ; reste remboursable ensuite : 29,66\s€\.$/).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the refund dialog scrolls sideways by ${overflow} px`);
      await accessible(page, 'refund dialog at 390 px');
    } finally {
      await context.close();
    }
  });
});
