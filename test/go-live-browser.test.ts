// Going live in Chromium, on every database: the Go live page and the home checklist in English and in French (at
// 390 px too, without scrolling sideways), axe clean in light and dark; an empty live payments list pointing to the
// Go live page; the checklist leaving the home page once every item is done; no Go live entry for a developer; the
// invoices pages saying invoicing is not open before anyone drafts, and INVOICING_NOT_ACTIVATED naming the missing
// fields in the user's language with a link to Settings.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { signedInUser, type Role, type UserClient } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { FAKE_MONEXT_CREDENTIALS } from './support/fake-monext.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';

const PHONE = { width: 390, height: 844 };
const IDENTITY = {
  legalName: 'Fare Ute SARL',
  address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' },
  registrationNumber: 'TAHITI A12345',
};

eachDatabase('going live in the back-office', (dialect) => {
  const suite = withApp(dialect, { serve: true, browser: true });
  const { t } = suite;

  async function merchant(): Promise<{ id: string; defaultContractId: string; testSecretKey: string }> {
    const res = await t.admin('POST', '/admin/v1/merchants', { name: 'Fare Ute' });
    assert.equal(res.status, 201);
    return res.body;
  }

  /** A page signed in as `user` (its cookie), in the language and size asked. */
  async function pageOf(user: UserClient, lang: 'en' | 'fr', viewport?: { width: number; height: number }): Promise<Page> {
    const { context, page } = await newPage(suite.browser, { locale: lang === 'fr' ? 'fr-FR' : 'en-GB', ...(viewport ? { viewport } : {}) });
    const eq = user.cookie.indexOf('=');
    await context.addCookies([{ name: user.cookie.slice(0, eq), value: user.cookie.slice(eq + 1), url: suite.baseUrl }]);
    return page;
  }

  async function accessible(page: Page, what: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page), [], `${what} (${colorScheme})`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  async function noSideways(page: Page, what: string): Promise<void> {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${what} scrolls sideways by ${overflow}px`);
  }

  it('in English: the home checklist, the Go live page with the operator\'s command, an empty live payments list pointing to it; gone once all is done', async () => {
    const m = await merchant();
    const owner = await signedInUser(t, m.id, 'owner');
    const page = await pageOf(owner, 'en');
    await page.goto(`${suite.baseUrl}/dashboard/`);
    await page.getByRole('heading', { name: 'Before going live' }).waitFor();
    await page.locator('section', { has: page.getByRole('heading', { name: 'Before going live' }) }).getByText('0 of 5 done').waitFor();
    const list = page.getByRole('list', { name: 'What live mode needs' });
    for (const item of ['Your legal identity', 'A bank account for payouts', 'The live contract and its acquirer', 'A live API key', 'A live webhook endpoint']) {
      await list.getByText(item).waitFor();
    }
    await accessible(page, 'home with its checklist');

    await page.getByRole('link', { name: 'All the steps' }).click();
    await page.getByRole('heading', { level: 1, name: 'Go live' }).waitFor();
    await page.getByText('Missing: the legal name, the address, the registration number.', { exact: false }).waitFor();
    await page.getByText('set by the operator of this Motu service', { exact: false }).waitFor();
    await page.locator('pre.command').first().getByText(`motu contracts update ${m.defaultContractId} --acquirer monext`, { exact: false }).waitFor();
    await page.getByText(`PATCH /admin/v1/contracts/${m.defaultContractId}`, { exact: false }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Complete it in Settings' }).getAttribute('href'), '/dashboard/settings');
    assert.equal(await page.getByRole('link', { name: 'Go live' }).getAttribute('aria-current'), 'page', 'the nav entry');
    await accessible(page, 'Go live page');

    // Live mode from the page itself; nothing yet: the payments list says what to do first.
    await page.getByRole('button', { name: 'Switch to live mode' }).click();
    await page.locator('.mode-badge').filter({ hasText: 'LIVE' }).waitFor();
    await page.getByRole('link', { name: 'Add a bank account in Payouts' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Switch to live mode' }).count(), 0);
    await page.goto(`${suite.baseUrl}/dashboard/payments`);
    await page.getByText('No live payment yet.').waitFor();
    await page.getByRole('link', { name: 'see what it still needs' }).click();
    await page.getByRole('heading', { level: 1, name: 'Go live' }).waitFor();
    await page.getByRole('link', { name: 'Make a live key in Developers' }).waitFor();
    await page.goto(`${suite.baseUrl}/dashboard/customers`);
    await page.getByText('No live customer yet.').waitFor();
    await page.getByRole('link', { name: 'see what it still needs' }).waitFor();

    // Everything done: the home page no longer shows the checklist; the Go live page says it is ready.
    assert.equal((await owner.call('PATCH', '/dashboard/api/settings', IDENTITY)).status, 200);
    assert.equal((await owner.call('POST', '/api/v1/bank-accounts', { iban: 'FR7630006000010000000000152', holderName: 'Fare Ute', currency: 'EUR' })).status, 201);
    assert.equal((await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { acquirer: 'monext', monext: { ...FAKE_MONEXT_CREDENTIALS, environment: 'production' } })).status, 200);
    assert.equal((await owner.call('POST', '/dashboard/api/keys', {})).status, 201);
    assert.equal((await owner.call('POST', '/api/v1/webhook-endpoints', { url: 'https://93.184.215.14/hook', events: ['*'] })).status, 201);
    await page.goto(`${suite.baseUrl}/dashboard/go-live`);
    await page.getByText('Everything is ready: your live mode takes real payments.').waitFor();
    assert.equal(await page.locator('.go-live-item .badge.good').count(), 5);
    await page.goto(`${suite.baseUrl}/dashboard/`);
    await page.getByRole('heading', { name: 'Recent payments' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Before going live' }).count(), 0);
    await page.goto(`${suite.baseUrl}/dashboard/payments`);
    await page.getByText('No live payment yet.').waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await page.getByRole('link', { name: 'see what it still needs' }).count(), 0, 'nothing left to do first');
    await page.context().close();
  });

  it('in French at 390 px: the home checklist and the Go live page, no sideways scroll, axe clean', async () => {
    const m = await merchant();
    const owner = await signedInUser(t, m.id, 'admin');
    // Homologation: started, not yet real money.
    assert.equal((await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { acquirer: 'monext', monext: { ...FAKE_MONEXT_CREDENTIALS, environment: 'homologation' } })).status, 200);
    const page = await pageOf(owner, 'fr', PHONE);
    await page.goto(`${suite.baseUrl}/dashboard/`);
    await page.getByRole('heading', { name: 'Avant de passer en production' }).waitFor();
    await page.getByText('0 sur 5 fait').waitFor();
    await page.getByRole('list', { name: 'Ce que le mode production demande' }).getByText('Commencé').waitFor();
    await noSideways(page, 'French home at 390 px');
    await accessible(page, 'French home at 390 px');

    await page.getByRole('link', { name: 'Toutes les étapes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Passer en production' }).waitFor();
    await page.getByText("Il manque : la raison sociale, l'adresse, le numéro d'immatriculation.", { exact: false }).waitFor();
    await page.getByText("environnement d'homologation", { exact: false }).waitFor();
    await page.locator('pre.command').first().getByText(`motu contracts update ${m.defaultContractId} --monext-environment production`, { exact: false }).waitFor();
    await noSideways(page, 'French Go live page at 390 px');
    await accessible(page, 'French Go live page at 390 px');
    // The menu at 390 px holds the entry.
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Principale' }).getByRole('link', { name: 'Passer en production' }).waitFor();
    await page.context().close();
  });

  it('a developer has no Go live entry, and an empty live list says whom to ask', async () => {
    const m = await merchant();
    const developer = await signedInUser(t, m.id, 'developer' satisfies Role);
    assert.equal((await developer.call('POST', '/dashboard/api/mode', { mode: 'live' })).status, 200);
    const page = await pageOf(developer, 'en');
    await page.goto(`${suite.baseUrl}/dashboard/payments`);
    await page.getByText('No live payment yet.').waitFor();
    await page.getByText('Ask an owner or an admin of your team', { exact: false }).waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Go live' }).count(), 0);
    await page.goto(`${suite.baseUrl}/dashboard/`);
    await page.getByRole('heading', { name: 'Recent payments' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Before going live' }).count(), 0);
    await page.context().close();
  });

  for (const lang of ['en', 'fr'] as const) {
    it(`invoices (${lang}): the activation notice before a draft, and INVOICING_NOT_ACTIVATED naming the missing fields with a link to Settings`, async () => {
      const m = await merchant();
      const owner = await signedInUser(t, m.id, 'owner');
      const words = lang === 'en'
        ? { notice: 'Invoicing is not open yet', missing: 'Missing: the legal name, the address, the registration number.', act: 'Complete it in Settings', finalize: 'Finalize', error: 'the legal name, the address, the registration number missing' }
        : { notice: "La facturation n'est pas encore ouverte", missing: "Il manque : la raison sociale, l'adresse, le numéro d'immatriculation.", act: 'La compléter dans les Paramètres', finalize: 'Finaliser', error: "il manque la raison sociale, l'adresse, le numéro d'immatriculation" };
      const page = await pageOf(owner, lang);
      for (const path of ['/invoices', '/invoices/new']) {
        await page.goto(`${suite.baseUrl}/dashboard${path}`);
        const notice = page.locator('.notice', { hasText: words.notice });
        await notice.getByText(words.missing, { exact: false }).waitFor();
        assert.equal(await notice.getByRole('link', { name: words.act }).getAttribute('href'), '/dashboard/settings');
      }
      await accessible(page, `invoices notice (${lang})`);

      const customer = await t.api(m.testSecretKey, 'POST', '/api/v1/customers', { name: 'Hina', email: 'hina@example.com' });
      const draft = await t.api(m.testSecretKey, 'POST', '/api/v1/billing/invoices', { customerId: customer.body.id, currency: 'XPF', lines: [{ description: 'Pareo', quantity: 1, unitPrice: 2500 }] });
      assert.equal(draft.status, 201, JSON.stringify(draft.body));
      await page.goto(`${suite.baseUrl}/dashboard/invoices/${draft.body.id}`);
      await page.getByRole('button', { name: words.finalize, exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: words.finalize, exact: true }).click();
      const alert = page.getByRole('dialog').getByRole('alert');
      await alert.getByText(words.error, { exact: false }).waitFor();
      assert.doesNotMatch(await alert.innerText(), /legalName|registrationNumber|Invoicing is not open:/);
      await accessible(page, `INVOICING_NOT_ACTIVATED (${lang})`);
      await alert.getByRole('link', { name: words.act }).click();
      await page.waitForURL(`${suite.baseUrl}/dashboard/settings`);
      await page.context().close();
    });
  }
});
