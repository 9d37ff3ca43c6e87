// The back-office on a phone (390 px wide), in Chromium on every database, in English and in French: on every page
// nothing scrolls sideways (the document is no wider than the window, and no part of a table is), every action is
// on screen and can be clicked (the header's tools behind the menu button, a disclosure), and axe finds nothing in
// light and dark. Lists are cards that lead with the reference, the amount, the status and the date.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { createUser, signedInUser } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paidPayment, paySession } from './support/payments.js';
import { saveCard } from './support/wallet.js';

const PHONE = { width: 390, height: 844 };
const IDENTITY = {
  legalName: 'Fare Ute SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' },
  registrationNumber: 'TAHITI A12345', taxId: '123456',
};

const WORDS = {
  en: {
    locale: 'en-GB', menu: 'Menu', signOut: 'Sign out', payments: 'Payments', refund: 'Refund', capture: 'Capture', cancel: 'Cancel payment',
    remove: /^Remove /, newCustomer: 'New customer', newSubscription: 'New subscription', newInvoice: 'New invoice', newPayout: 'New payout',
    addBankAccount: 'Add a bank account', addEndpoint: 'Add endpoint', createKey: /^Create a test key$/, exportCsv: 'Export CSV',
    reference: 'Reference', amount: 'Amount', status: 'Status', created: 'Created',
  },
  fr: {
    locale: 'fr-FR', menu: 'Menu', signOut: 'Se déconnecter', payments: 'Paiements', refund: 'Rembourser', capture: 'Encaisser', cancel: 'Annuler le paiement',
    remove: /^Retirer /, newCustomer: 'Nouveau client', newSubscription: 'Nouvel abonnement', newInvoice: 'Nouvelle facture', newPayout: 'Nouveau virement',
    addBankAccount: 'Ajouter un compte bancaire', addEndpoint: 'Ajouter', createKey: /^Créer une clé (de )?test$/, exportCsv: 'Exporter en CSV',
    reference: 'Référence', amount: 'Montant', status: 'Statut', created: 'Créé le',
  },
} as const;

type Words = (typeof WORDS)[keyof typeof WORDS];

eachDatabase('the back-office at 390 px', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute Boutique de Papeete' });
  const { t, m } = suite;
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await t.api(m.testKey, method, url, body);
    assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  let cookie: { name: string; value: string };
  const ids = { paid: '', authorized: '', customer: '', subscription: '', invoice: '', dispute: '', payout: '' };

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, IDENTITY)).status, 200);
    const user = await signedInUser(t, m.id, 'owner');
    const eq = user.cookie.indexOf('=');
    cookie = { name: user.cookie.slice(0, eq), value: user.cookie.slice(eq + 1) };
    await createUser(t, m.id, 'a-teammate-with-a-long-address@fare-ute-boutique.example', 'support');

    ids.customer = (await api('POST', '/api/v1/customers', { name: 'Hina Teriitahi', email: 'hina.teriitahi@fare-ute-boutique.example' })).id;
    await saveCard(t, m.testKey, ids.customer);
    const card = (await api('GET', `/api/v1/customers/${ids.customer}/payment-methods`)).data[0];
    ids.subscription = (await api('POST', '/api/v1/subscriptions', {
      customerId: ids.customer, paymentMethodId: card.id, amount: 1500, currency: 'XPF', interval: 'month', description: 'Paniers de fruits',
    })).id;
    const invoice = await api('POST', '/api/v1/billing/invoices', { customerId: ids.customer, currency: 'EUR', lines: [{ description: 'Cours de va’a', quantity: 2, unitPrice: 4550 }] });
    await api('POST', `/api/v1/billing/invoices/${invoice.id}/finalize`, {});
    ids.invoice = invoice.id;
    ids.paid = await paidPayment(t, m.testKey, { amount: 12_345, currency: 'EUR' });
    await api('POST', `/api/v1/payments/${ids.paid}/refund`, { amount: 1250 });
    const manual = await createSession(t, m.testKey, { amount: 4200, currency: 'XPF', captureMode: 'MANUAL', extra: { customerId: ids.customer } });
    await paySession(t, manual.sessionId);
    ids.authorized = manual.paymentId;
    ids.dispute = (await api('POST', `/api/v1/test-helpers/payments/${await paidPayment(t, m.testKey, { amount: 3000, currency: 'EUR' })}/dispute`, {})).id;
    await api('POST', '/api/v1/bank-accounts', { iban: 'FR7630006000010000000000249', holderName: 'Fare Ute SARL', currency: 'EUR' });
  });

  async function phone(words: Words): Promise<Page> {
    const { context, page } = await newPage(suite.browser, { locale: words.locale, viewport: PHONE });
    await context.addCookies([{ ...cookie, url: suite.baseUrl }]);
    return page;
  }

  /**
   * What is wider than the window: the document (with the innermost elements sticking out), or anything inside a
   * table's box. A string, run as it is in the page (tsx would wrap a named function in a helper the page lacks).
   */
  async function overflow(page: Page): Promise<string[]> {
    return page.evaluate(`(() => {
      const width = window.innerWidth;
      const out = (element) => element.getBoundingClientRect().right > width + 0.5 || element.getBoundingClientRect().width > width;
      const wide = [...document.querySelectorAll('.table-wrap, .table-wrap *')].filter(out);
      const scrolls = document.documentElement.scrollWidth > width;
      const sticking = scrolls ? [...document.querySelectorAll('body *')].filter(out) : [];
      const innermost = sticking.filter((element) => !sticking.some((other) => other !== element && element.contains(other))).slice(0, 5);
      return [
        ...(scrolls ? ['the document (' + document.documentElement.scrollWidth + ' px)'] : []),
        ...[...wide, ...innermost].map((element) => {
          const box = element.getBoundingClientRect();
          return '<' + element.tagName.toLowerCase() + ' class="' + element.className + '"> "' + (element.textContent ?? '').slice(0, 40) + '" (' + Math.round(box.left) + '–' + Math.round(box.right) + ' px)';
        }),
      ];
    })()`);
  }

  /** On screen, inside the window's width, and clickable (nothing on top of it). */
  async function reachable(action: Locator, what: string): Promise<void> {
    await action.first().scrollIntoViewIfNeeded();
    const box = await action.first().boundingBox();
    assert.ok(box, `${what}: not visible`);
    assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `${what}: ${box.x}–${box.x + box.width} px at 390 px`);
    await action.first().click({ trial: true });
  }

  async function accessible(page: Page, what: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page), [], `${what} (${colorScheme})`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  for (const lang of ['en', 'fr'] as const) {
    const words = WORDS[lang];

    it(`${lang}: the header is one row; the menu button opens the navigation and the tools, and says so`, async () => {
      const page = await phone(words);
      try {
        await page.goto(`${suite.baseUrl}/dashboard/payments`);
        await page.getByRole('heading', { name: words.payments, level: 1 }).waitFor();
        const menu = page.getByRole('button', { name: words.menu });
        assert.equal(await menu.getAttribute('aria-expanded'), 'false');
        assert.equal(await page.getByRole('button', { name: words.signOut }).isVisible(), false);
        const header = await page.locator('header').boundingBox();
        assert.ok(header && header.height < 70, `the header is ${header?.height} px high`);
        await menu.click();
        assert.equal(await menu.getAttribute('aria-expanded'), 'true');
        await reachable(page.getByRole('button', { name: words.signOut }), 'sign-out');
        await reachable(page.getByRole('navigation').getByRole('link', { name: words.payments }), 'navigation');
        assert.deepEqual(await overflow(page), [], 'menu open');
        await accessible(page, `${lang} menu open`);
        await menu.click();
        assert.equal(await menu.getAttribute('aria-expanded'), 'false');

        // A payment's card: its reference, amount, status and date first, each under its column's name.
        const card = page.locator('.table-wrap tbody tr').first();
        const labels = await card.locator('td').evaluateAll((cells) => cells
          .map((cell) => ({ label: cell.getAttribute('data-label'), top: cell.getBoundingClientRect().top }))
          .sort((a, b) => a.top - b.top).map((cell) => cell.label));
        assert.deepEqual(labels.slice(0, 4), [words.reference, words.amount, words.status, words.created]);
      } finally {
        await page.context().close();
      }
    });

    it(`${lang}: no page scrolls sideways, every action is on screen and clickable, axe clean in light and dark`, async () => {
      const page = await phone(words);
      const pages: Array<{ path: string; actions: Array<string | RegExp> }> = [
        { path: '/', actions: [] },
        { path: '/payments', actions: [words.exportCsv] },
        { path: `/payments/${ids.paid}`, actions: [words.refund] },
        { path: `/payments/${ids.authorized}`, actions: [words.capture, words.cancel] },
        { path: '/customers', actions: [words.newCustomer] },
        { path: `/customers/${ids.customer}`, actions: [] },
        { path: '/subscriptions', actions: [words.newSubscription] },
        { path: '/subscriptions/new', actions: [] },
        { path: `/subscriptions/${ids.subscription}`, actions: [] },
        { path: '/invoices', actions: [words.newInvoice] },
        { path: '/invoices/new', actions: [] },
        { path: `/invoices/${ids.invoice}`, actions: [] },
        { path: '/balance', actions: [] },
        { path: '/payouts', actions: [words.newPayout, words.addBankAccount] },
        { path: '/disputes', actions: [] },
        { path: `/disputes/${ids.dispute}`, actions: [] },
        { path: '/developers', actions: [words.createKey] },
        { path: '/developers/webhooks', actions: [words.addEndpoint] },
        { path: '/developers/events', actions: [] },
        { path: '/developers/test-clocks', actions: [] },
        { path: '/settings', actions: [] },
        { path: '/settings/payouts', actions: [] },
        { path: '/settings/team', actions: [words.remove] },
        { path: '/settings/two-factor', actions: [] },
        { path: '/settings/activity', actions: [] },
      ];
      try {
        for (const { path, actions } of pages) {
          await page.goto(`${suite.baseUrl}/dashboard${path}`);
          await page.getByRole('heading', { level: 1 }).waitFor();
          await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0); // every part of the page loaded
          for (const name of actions) await reachable(page.getByRole('button', { name }).or(page.getByRole('link', { name })), `${lang} ${path}: ${name}`);
          assert.deepEqual(await overflow(page), [], `${lang} ${path}`);
          await accessible(page, `${lang} ${path} at 390 px`);
        }
      } finally {
        await page.context().close();
      }
    });
  }
});
