// Small things of the back-office, in Chromium on every database, in English and in French, axe clean in light and
// dark: recovery codes copied and downloaded (.txt); the role picker says what each role may do; colours, time zone
// and country picked, not typed; the registered name "set by the operator"; the event log shows an event's body;
// Resend only where a delivery exists; New payout asks for a bank account first when there is none; an invoice lists
// its credit notes.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { okApi, LEGAL_IDENTITY, signedInUser } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';


const WORDS = {
  en: {
    locale: 'en-GB', setUp: 'Set up two-factor authentication', code: 'Authentication code', turnOn: 'Turn on', recoveryCodes: 'Recovery codes',
    copyCodes: 'Copy the codes', codesCopied: 'Codes copied', downloadCodes: 'Download the codes (.txt)',
    role: 'Role', analyst: 'Analyst', analystCan: 'Reads everything but secrets; changes nothing.', support: 'Support', supportCan: 'Reads everything but secrets, and refunds payments.',
    registered: 'Registered name (set by the operator): Fare Ute.', primaryColor: 'Primary colour', timezone: 'Time zone', country: 'Country',
    frenchPolynesia: 'French Polynesia', newCaledonia: 'New Caledonia', saveBranding: 'Save branding', saveLegal: 'Save legal identity',
    show: 'Show details', body: 'Event body', resend: 'Resend', noDelivery: /^No delivery/, newPayout: 'New payout', payoutTitle: 'Pay out the available balance?',
    accountFirst: /^Add a bank account first/, back: 'Back', creditNotes: 'Credit notes issued here',
  },
  fr: {
    locale: 'fr-FR', setUp: 'Configurer la double authentification', code: "Code d'authentification", turnOn: 'Activer', recoveryCodes: 'Codes de secours',
    copyCodes: 'Copier les codes', codesCopied: 'Codes copiés', downloadCodes: 'Télécharger les codes (.txt)',
    role: 'Rôle', analyst: 'Analyste', analystCan: 'Lit tout sauf les secrets ; ne change rien.', support: 'Support', supportCan: 'Lit tout sauf les secrets, et rembourse les paiements.',
    registered: "Nom enregistré (fixé par l'opérateur) : Fare Ute.", primaryColor: 'Couleur principale', timezone: 'Fuseau horaire', country: 'Pays',
    frenchPolynesia: 'Polynésie française', newCaledonia: 'Nouvelle-Calédonie', saveBranding: "Enregistrer l'image de marque", saveLegal: "Enregistrer l'identité légale",
    show: 'Voir le détail', body: "Contenu de l'événement", resend: 'Renvoyer', noDelivery: /^Aucune livraison/, newPayout: 'Nouveau virement', payoutTitle: 'Virer le solde disponible ?',
    accountFirst: /^Ajoutez d'abord un compte bancaire/, back: 'Retour', creditNotes: 'Avoirs émis ici',
  },
} as const;

eachDatabase('the back-office: small things', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  const api = okApi(t, () => m.testKey);
  let invoiceId: string;
  let paymentId: string;

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, LEGAL_IDENTITY)).status, 200);
    paymentId = await paidPayment(t, m.testKey, { amount: 2500, currency: 'EUR' });
    const customer = await api('POST', '/api/v1/customers', { name: 'Hina Teriitahi', email: 'hina@example.pf' });
    const invoice = await api('POST', '/api/v1/billing/invoices', { customerId: customer.id, currency: 'EUR', lines: [{ description: 'Cours', quantity: 1, unitPrice: 5000 }] });
    await api('POST', `/api/v1/billing/invoices/${invoice.id}/finalize`, {});
    await api('POST', `/api/v1/billing/invoices/${invoice.id}/credit-notes`, { reason: 'order_change', amount: 1000, refund: false });
    invoiceId = invoice.id;
  });

  async function signedIn(lang: 'en' | 'fr'): Promise<{ context: BrowserContext; page: Page }> {
    const user = await signedInUser(t, m.id, 'owner');
    const eq = user.cookie.indexOf('=');
    const opened = await newPage(suite.browser, { locale: WORDS[lang].locale });
    await opened.context.addCookies([{ name: user.cookie.slice(0, eq), value: user.cookie.slice(eq + 1), url: suite.baseUrl }]);
    await opened.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.baseUrl });
    return opened;
  }

  async function accessible(page: Page, what: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page), [], `${what} (${colorScheme})`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  /** The text of the elements that describe `element` (aria-describedby). */
  function description(page: Page, selector: string): Promise<string> {
    return page.locator(selector).evaluate((element) => (element.getAttribute('aria-describedby') ?? '').split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim());
  }

  for (const lang of ['en', 'fr'] as const) {
    const words = WORDS[lang];

    it(`${lang}: the recovery codes are copied at once and downloaded as a .txt, one a line`, async () => {
      const { context, page } = await signedIn(lang);
      try {
        await page.goto(`${suite.baseUrl}/dashboard/settings/two-factor`);
        await page.getByRole('button', { name: words.setUp }).click();
        const secret = await page.locator('.totp-secret').innerText();
        await page.getByLabel(words.code).fill(new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate());
        await page.getByRole('button', { name: words.turnOn }).click();
        const items = page.getByRole('list', { name: words.recoveryCodes }).getByRole('listitem');
        await items.first().waitFor();
        const codes = await items.allInnerTexts();
        assert.equal(codes.length, 10);

        await page.getByRole('button', { name: words.copyCodes }).click();
        await page.getByRole('button', { name: words.codesCopied }).waitFor();
        assert.equal(await page.evaluate('navigator.clipboard.readText()'), `${codes.join('\n')}\n`);

        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: words.downloadCodes }).click()]);
        assert.match(download.suggestedFilename(), /\.txt$/);
        assert.equal(await readFile((await download.path())!, 'utf8'), `${codes.join('\n')}\n`);
        await accessible(page, `${lang} recovery codes`);
      } finally {
        await context.close();
      }
    });

    it(`${lang}: the role picker says what the chosen role may do, and the team page what each may`, async () => {
      const { context, page } = await signedIn(lang);
      try {
        await page.goto(`${suite.baseUrl}/dashboard/settings/team`);
        const picker = page.locator('form').getByLabel(words.role, { exact: true });
        await picker.selectOption({ label: words.analyst });
        assert.equal(await description(page, `#${await picker.getAttribute('id')}`.replace(/:/g, '\\:')), words.analystCan);
        await picker.selectOption({ label: words.support });
        assert.equal(await description(page, `#${await picker.getAttribute('id')}`.replace(/:/g, '\\:')), words.supportCan);
        const roles = page.locator('dl.facts');
        await roles.getByText(words.analystCan, { exact: true }).waitFor();
        assert.equal(await roles.locator('dt').count(), 5);
        await accessible(page, `${lang} team roles`);
      } finally {
        await context.close();
      }
    });

    it(`${lang}: colours, time zone and country are picked; the registered name is set by the operator`, async () => {
      const { context, page } = await signedIn(lang);
      try {
        await page.goto(`${suite.baseUrl}/dashboard/settings`);
        await page.getByText(words.registered, { exact: true }).waitFor();
        const color = page.getByLabel(words.primaryColor, { exact: true });
        assert.equal(await color.getAttribute('type'), 'color');
        await color.fill('#0a7f5a');
        const zone = page.getByLabel(words.timezone, { exact: true });
        assert.equal(await zone.evaluate((element) => element.tagName), 'SELECT');
        assert.ok(await zone.locator('option').count() > 300, 'every IANA zone');
        await zone.selectOption('Pacific/Noumea');
        await page.getByRole('button', { name: words.saveBranding }).click();
        await page.locator('.toast').first().waitFor();

        const country = page.getByLabel(words.country, { exact: true });
        assert.equal(await country.evaluate((element) => element.tagName), 'SELECT');
        assert.equal(await country.locator('option:checked').innerText(), words.frenchPolynesia);
        await country.selectOption({ label: words.newCaledonia });
        const saved = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith('/dashboard/api/settings') && r.ok());
        await page.getByRole('button', { name: words.saveLegal }).click();
        await saved;
        const settings = await page.evaluate(async () => (await fetch('/dashboard/api/settings')).json());
        assert.equal(settings.primaryColor, '#0a7f5a');
        assert.equal(settings.timezone, 'Pacific/Noumea');
        assert.equal(settings.address.country, 'NC');
        await accessible(page, `${lang} business settings`);
        // Back as it was for the other language.
        await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { address: LEGAL_IDENTITY.address });
      } finally {
        await context.close();
      }
    });

    it(`${lang}: the event log shows an event's body; Resend only where the event has a delivery`, async () => {
      const { context, page } = await signedIn(lang);
      try {
        await page.goto(`${suite.baseUrl}/dashboard/developers/events`);
        // A payment's event is delivered to its notification URL; an invoice's has no target (no endpoint).
        const paymentRow = page.getByRole('row').filter({ hasText: 'payment.authorized' }).first();
        await paymentRow.getByRole('button', { name: words.show }).click();
        const body = paymentRow.getByLabel(words.body);
        const json = JSON.parse(await body.innerText());
        assert.equal(json.type, 'payment.authorized');
        assert.equal(json.data.id ?? json.data.paymentId, paymentId);
        await paymentRow.getByRole('button', { name: words.resend }).waitFor();

        const invoiceRow = page.getByRole('row').filter({ hasText: 'invoice.issued' }).first();
        await invoiceRow.getByRole('button', { name: words.show }).click();
        await invoiceRow.getByText(words.noDelivery).waitFor();
        assert.match(await invoiceRow.getByLabel(words.body).innerText(), new RegExp(invoiceId));
        assert.equal(await invoiceRow.getByRole('button', { name: words.resend }).count(), 0);
        await accessible(page, `${lang} event log`);
      } finally {
        await context.close();
      }
    });

    it(`${lang}: New payout asks for a bank account first when there is none; an invoice lists its credit notes`, async () => {
      const { context, page } = await signedIn(lang);
      try {
        await page.goto(`${suite.baseUrl}/dashboard/payouts`);
        await page.getByRole('button', { name: words.newPayout }).click();
        const dialog = page.getByRole('dialog', { name: words.payoutTitle });
        const notice = dialog.getByText(words.accountFirst);
        await notice.waitFor();
        // Before the form: the notice comes before the first field.
        assert.ok(await notice.evaluate((element) => {
          const field = element.closest('dialog')!.querySelector('select, input');
          return field !== null && (element.compareDocumentPosition(field) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
        }));
        await accessible(page, `${lang} new payout without a bank account`);
        await dialog.getByRole('button', { name: words.back }).click();

        await page.goto(`${suite.baseUrl}/dashboard/invoices/${invoiceId}`);
        const creditNotes = page.locator('section').filter({ has: page.getByRole('heading', { name: words.creditNotes }) });
        await creditNotes.getByRole('listitem').first().waitFor();
        assert.equal(await creditNotes.getByRole('listitem').count(), 1);
        await creditNotes.getByRole('link', { name: /PDF/ }).waitFor();
      } finally {
        await context.close();
      }
    });
  }
});
