// What the back-office says, in Chromium on every database: every text in the user's language, the API's refusals
// written from their code and details (never the English message), and amounts as the hosted pages write them.
// A French payment page with a refund and its 3-D Secure attempt; a refused IBAN; a credit note beyond what can be
// credited; the same invoice amount in the back-office and on its hosted page. axe in light and dark.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { okApi, LEGAL_IDENTITY, signedInUser } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';


eachDatabase('the words of the back-office', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  const api = okApi(t, () => m.testKey);
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, LEGAL_IDENTITY)).status, 200);
    const user = await signedInUser(t, m.id, 'owner');
    const eq = user.cookie.indexOf('=');
    ({ context, page } = await newPage(suite.browser, { locale: 'fr-FR' }));
    await context.addCookies([{ name: user.cookie.slice(0, eq), value: user.cookie.slice(eq + 1), url: suite.baseUrl }]);
  });

  async function accessible(what: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page), [], `${what} (${colorScheme})`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  /** No English from the server, no amount in raw minor units, no untranslated enumeration. */
  async function noLeak(what: string, words: RegExp[]): Promise<void> {
    const text = await page.locator('main').innerText();
    for (const word of words) assert.doesNotMatch(text, word, what);
  }

  it('a French payment page: its refund fee line and its 3-D Secure attempt in French, amounts as "12,50 €"', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 10_000, currency: 'EUR' });
    await api('POST', `/api/v1/payments/${id}/refund`, { amount: 1250 });
    await page.goto(`${suite.baseUrl}/dashboard/payments/${id}`);
    const fees = page.getByRole('table', { name: 'Frais Motu sur ce paiement' });
    await fees.getByText(/^Remboursement de 12,50\s€ : les frais déjà pris ne sont pas rendus$/).waitFor();
    await page.locator('.amount-hero').getByText(/^100,00\s€$/).waitFor();
    await page.locator('.timeline').getByText(/3-D Secure validé sans défi/).waitFor();
    await page.locator('.facts').getByText('Automatique', { exact: true }).waitFor();
    await noLeak('payment page', [/Refund re_/, /1250/, /\bEUR\b/, /frictionless/, /fees already taken/, /\bAUTO\b/]);
    await accessible('French payment page');
  });

  it('a refused IBAN is said in French from its field, not with the English reason', async () => {
    await page.goto(`${suite.baseUrl}/dashboard/payouts`);
    await page.getByRole('button', { name: 'Ajouter un compte bancaire' }).click();
    const add = page.getByRole('dialog', { name: 'Ajouter un compte bancaire' });
    // A French IBAN with its last digit changed: the check digits no longer match.
    await add.getByLabel('IBAN').fill('FR7630006000010000000000153');
    await add.getByLabel('Titulaire').fill('Fare Ute SARL');
    await add.getByRole('button', { name: 'Ajouter' }).click();
    const alert = add.getByRole('alert');
    await alert.getByText("Cet IBAN n'est pas valide : vérifiez-le, ses chiffres de contrôle ne correspondent pas.").waitFor();
    assert.doesNotMatch(await alert.innerText(), /iban:|fails|check digits/);
    await accessible('refused IBAN');
    await add.getByRole('button', { name: 'Retour' }).click();
  });

  it('a credit note beyond what can be credited: the refusal names the amount as "50,00 €", from its details', async () => {
    const customer = await api('POST', '/api/v1/customers', { name: 'Hina Teriitahi', email: 'hina@example.pf' });
    const invoice = await api('POST', '/api/v1/billing/invoices', { customerId: customer.id, currency: 'EUR', lines: [{ description: 'Cours', quantity: 1, unitPrice: 5000 }] });
    await api('POST', `/api/v1/billing/invoices/${invoice.id}/finalize`, {});
    await page.goto(`${suite.baseUrl}/dashboard/invoices/${invoice.id}`);
    await page.getByRole('heading', { name: /^Facture F-/, level: 1 }).waitFor();
    await page.locator('.amount-hero').getByText(/^50,00\s€$/).waitFor();
    await page.getByRole('button', { name: 'Avoir' }).click();
    const credit = page.getByRole('dialog', { name: 'Émettre un avoir ?' });
    await credit.getByLabel(/^Montant de l’avoir/).fill('60');
    await credit.getByRole('button', { name: 'Avoir' }).click();
    const alert = credit.getByRole('alert');
    await alert.getByText(/Seuls 50,00\s€ peuvent être crédités sur cette facture\./).waitFor();
    assert.doesNotMatch(await alert.innerText(), /Invoice|left to credit|5000/);
    await accessible('refused credit note');
    await credit.getByRole('button', { name: 'Retour' }).click();

    // The customer's page for the same invoice writes its amount the same way.
    const sent = await api('POST', `/api/v1/billing/invoices/${invoice.id}/send`, {});
    const hosted = await context.newPage();
    await hosted.goto(`${sent.url}${sent.url.includes('?') ? '&' : '?'}lang=fr`);
    assert.match(await hosted.locator('body').innerText(), /50,00\s€/);
    await hosted.close();
  });
});
