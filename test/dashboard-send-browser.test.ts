// Sending an invoice from the back-office says what happened, in Chromium on every database, with a mail server set
// up (a fake SMTP relay; test-mode mail allowed to example.pf only): mailed to whom, or why no mail left (no address,
// an address test mode does not mail), and always the invoice page's address with a Copy button that copies it. The
// case with no mail server at all is in dashboard-money-browser.test.ts. axe in light and dark, French at 390 px.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { signedInUser, type UserClient } from './support/back-office.js';
import { createMerchant } from './support/factories.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { fakeSmtp, type FakeSmtp } from './support/smtp.js';

const PHONE = { width: 390, height: 844 };
const IDENTITY = {
  legalName: 'Fare Ute SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' },
  registrationNumber: 'TAHITI A12345', taxId: '123456',
};

eachDatabase('sending an invoice from the back-office', (dialect) => {
  let smtp: FakeSmtp;
  before(async () => {
    smtp = await fakeSmtp();
  });
  after(async () => {
    await smtp.stop();
  });
  const suite = withMerchantApp(dialect, {
    serve: true, browser: true, merchantName: 'Fare Ute',
    env: () => ({ MOTU_SMTP_URL: smtp.url, MOTU_MAIL_FROM: 'factures@fare-ute.example', MOTU_TEST_MAIL_ALLOWLIST: 'example.pf' }),
  });
  const { t, m } = suite;
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await t.api(m.testKey, method, url, body);
    assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  let cookie: { name: string; value: string };
  let owner: UserClient;

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, IDENTITY)).status, 200);
    owner = await signedInUser(t, m.id, 'owner');
    const eq = owner.cookie.indexOf('=');
    cookie = { name: owner.cookie.slice(0, eq), value: owner.cookie.slice(eq + 1) };
  });

  /** A finalized invoice of a new customer with these details. */
  async function invoiceFor(customer: Record<string, string>): Promise<string> {
    const cus = await api('POST', '/api/v1/customers', customer);
    const invoice = await api('POST', '/api/v1/billing/invoices', { customerId: cus.id, currency: 'XPF', lines: [{ description: 'Loyer', quantity: 1, unitPrice: 85_000 }] });
    await api('POST', `/api/v1/billing/invoices/${invoice.id}/finalize`, {});
    return invoice.id;
  }

  async function open(lang: 'en' | 'fr', invoiceId: string, viewport?: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
    const opened = await newPage(suite.browser, { locale: lang === 'fr' ? 'fr-FR' : 'en-GB', ...(viewport ? { viewport } : {}) });
    await opened.context.addCookies([{ ...cookie, url: suite.baseUrl }]);
    await opened.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.baseUrl });
    await opened.page.goto(`${suite.baseUrl}/dashboard/invoices/${invoiceId}`);
    return opened;
  }

  async function accessible(page: Page, what: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page), [], `${what} (${colorScheme})`);
    }
  }

  it('mailed: the page says to whom, and Copy copies the invoice page address', async () => {
    const id = await invoiceFor({ name: 'Hina Teriitahi', email: 'hina@example.pf' });
    const { context, page } = await open('en', id);
    try {
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('dialog', { name: 'Send this invoice?' }).getByRole('button', { name: 'Send' }).click();
      const region = page.getByRole('region', { name: "The invoice's page for the customer" });
      await region.getByText('Invoice sent: a mail with the link to its page is on its way to hina@example.pf.').waitFor();
      const url = await region.locator('.invoice-url').innerText();
      assert.match(url, /\/invoices\/[0-9A-Za-z]{32}$/);
      await region.getByRole('button', { name: 'Copy' }).click();
      await region.getByRole('button', { name: 'Copied' }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
      await accessible(page, 'invoice sent and mailed');
    } finally {
      await context.close();
    }
  });

  it('GET /dashboard/api/mails answers the mails queued about one object of the merchant, and nobody else\'s', async () => {
    const id = await invoiceFor({ name: 'Tiare', email: 'tiare@example.pf' });
    await api('POST', `/api/v1/billing/invoices/${id}/send`, {});
    const mine = await owner.call('GET', `/dashboard/api/mails?kind=invoice&subjectId=${id}`);
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.equal(mine.body.mailer, true);
    assert.deepEqual(mine.body.data.map((d: { kind: string; recipient: string }) => [d.kind, d.recipient]), [['invoice', 'tiare@example.pf']]);
    const stranger = await signedInUser(t, (await createMerchant(t)).id, 'owner');
    assert.deepEqual((await stranger.call('GET', `/dashboard/api/mails?kind=invoice&subjectId=${id}`)).body.data, []);
    assert.equal((await owner.call('GET', `/dashboard/api/mails?kind=invitation&subjectId=${id}`)).status, 400);
  });

  it('in French, a customer without an email: not mailed, and the link to share', async () => {
    const id = await invoiceFor({ name: 'Teva Mahana' });
    const { context, page } = await open('fr', id, PHONE);
    try {
      await page.getByRole('button', { name: 'Envoyer' }).click();
      await page.getByRole('dialog', { name: 'Envoyer cette facture ?' }).getByRole('button', { name: 'Envoyer' }).click();
      const region = page.getByRole('region', { name: 'La page de la facture pour le client' });
      await region.getByText("Facture envoyée, sans e-mail : le client n'a pas d'adresse e-mail. Partagez le lien ci-dessous avec le client.").waitFor();
      await region.getByRole('button', { name: 'Copier' }).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the sent invoice scrolls sideways by ${overflow} px at 390 px`);
      await accessible(page, 'invoice sent without mail, French, 390 px');
    } finally {
      await context.close();
    }
  });

  it('a card link asked to be mailed says to whom it was mailed', async () => {
    const cus = await api('POST', '/api/v1/customers', { name: 'Vaite', email: 'vaite@example.pf' });
    const sub = await api('POST', '/api/v1/subscriptions', { customerId: cus.id, amount: 1500, currency: 'XPF', interval: 'month', description: 'Paniers' });
    const { context, page } = await open('en', 'none');
    try {
      await page.goto(`${suite.baseUrl}/dashboard/subscriptions/${sub.id}`);
      await page.getByRole('button', { name: 'Send a card link' }).click();
      const dialog = page.getByRole('dialog', { name: 'Ask the customer for a card' });
      await dialog.getByLabel('Also email the link to the customer').check();
      await dialog.getByRole('button', { name: 'Create the link' }).click();
      await page.getByRole('region', { name: 'Card link' }).getByText('Card link created and mailed to vaite@example.pf.').waitFor();
    } finally {
      await context.close();
    }
  });

  it('test mode mails only the allowed addresses: the page says so rather than "sent"', async () => {
    const id = await invoiceFor({ name: 'Moana', email: 'moana@elsewhere.example' });
    const { context, page } = await open('en', id);
    try {
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('dialog', { name: 'Send this invoice?' }).getByRole('button', { name: 'Send' }).click();
      await page.getByRole('region', { name: "The invoice's page for the customer" })
        .getByText(/^Invoice sent, not mailed: in test mode, mail goes only to the addresses allowed for tests, and moana@elsewhere\.example is not one\./).waitFor();
    } finally {
      await context.close();
    }
  });
});
