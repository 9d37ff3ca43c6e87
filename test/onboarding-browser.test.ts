// The hosted onboarding form in Chromium, at a phone's width (390 px), in French and English, light and dark: a
// business fills it in by the fields' labels, is told what to fix, sends it, reads the confirmation and goes back
// to the platform; a used or cancelled link shows the refresh link. Every page axe clean, no sideways scroll.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { newPage } from './support/browser.js';
import { PHONE } from './support/back-office.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createOnboardingSession, makePlatform, SELLER_IBAN } from './support/platforms.js';

const LABELS = {
  fr: {
    legalName: 'Raison sociale', registrationNumber: "Numéro d'immatriculation (TAHITI, RIDET, SIREN…)", line1: 'Adresse',
    postalCode: 'Code postal', city: 'Ville', country: 'Pays (code à deux lettres : PF, FR, NC…)', firstName: 'Prénom', lastName: 'Nom',
    birthDate: 'Date de naissance', iban: 'IBAN', currency: 'Devise des virements', submit: 'Envoyer mon dossier',
    title: 'Devenir vendeur sur Fenua Market', errors: /Le formulaire contient 1 erreur/, ibanError: "Cet IBAN n'est pas valide : vérifiez-le.",
    done: 'Votre compte de vendeur est ouvert.', back: 'Retour sur Fenua Market', closed: "Ce lien d'inscription n'est plus valable", refresh: 'Obtenir un nouveau lien',
  },
  en: {
    legalName: 'Legal name', registrationNumber: 'Registration number (TAHITI, RIDET, SIREN…)', line1: 'Address',
    postalCode: 'Postal code', city: 'City', country: 'Country (two-letter code: PF, FR, NC…)', firstName: 'First name', lastName: 'Last name',
    birthDate: 'Date of birth', iban: 'IBAN', currency: 'Payout currency', submit: 'Send my application',
    title: 'Become a seller on Fenua Market', errors: /The form has 1 error/, ibanError: 'This IBAN is not valid: check it.',
    done: 'Your seller account is open.', back: 'Back to Fenua Market', closed: 'This onboarding link is no longer valid', refresh: 'Get a new link',
  },
} as const;

eachDatabase('the hosted onboarding form', (dialect) => {
  const suite = withApp(dialect, { serve: true, browser: true });
  const { t } = suite;

  async function fits(page: Page, what: string) {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `${what}: no sideways scroll at 390 px (${width} px)`);
    assert.deepEqual(await axeViolations(page), [], `${what}: axe clean`);
  }

  for (const lang of ['fr', 'en'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`${lang}, ${scheme}: fill in the form, fix the IBAN, send it, go back to the platform; the used link then shows the refresh link`, async () => {
        const L = LABELS[lang];
        const platform = await makePlatform(t, `Fenua ${lang} ${scheme}`);
        assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${platform.id}`, { displayName: 'Fenua Market', primaryColor: '#7c2d12' })).status, 200);
        const session = await createOnboardingSession(t, platform.testKey, {
          businessName: 'Vanille de Tahaa', returnUrl: `${suite.baseUrl}/healthz`, refreshUrl: 'https://marketplace.example/refresh',
        });
        const { context, page } = await newPage(suite.browser, { viewport: PHONE, colorScheme: scheme, locale: lang === 'fr' ? 'fr-FR' : 'en-GB' });
        try {
          await page.goto(`${suite.baseUrl}${new URL(session.url).pathname}`);
          assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), L.title);
          assert.equal(await page.getByLabel(L.legalName, { exact: true }).inputValue(), 'Vanille de Tahaa', 'the business name given by the platform');
          await fits(page, 'the form');

          await page.getByLabel(L.legalName, { exact: true }).fill('Vanille de Tahaa SARL');
          await page.getByLabel(L.registrationNumber, { exact: true }).fill('TAHITI C45678');
          await page.getByLabel(L.line1, { exact: true }).fill('PK 12, côté mer');
          await page.getByLabel(L.postalCode, { exact: true }).fill('98733');
          await page.getByLabel(L.city, { exact: true }).fill('Patio');
          await page.getByLabel(L.firstName, { exact: true }).fill('Teva');
          await page.getByLabel(L.lastName, { exact: true }).fill('Tehei');
          await page.getByLabel(L.birthDate, { exact: true }).fill('1979-02-03');
          await page.getByLabel(L.iban, { exact: true }).fill('FR76 3000 6000 0112 3456 7890 188');
          await page.getByLabel(L.currency, { exact: true }).selectOption('XPF');
          await page.getByRole('button', { name: L.submit }).click();

          // One error, said at the top and beside the IBAN; the other answers kept, the IBAN not written back.
          await page.getByText(L.errors).waitFor();
          assert.equal(await page.getByLabel(L.iban, { exact: true }).getAttribute('aria-invalid'), 'true');
          assert.equal(await page.getByLabel(L.iban, { exact: true }).inputValue(), '');
          assert.ok((await page.locator('#iban-error').innerText()).includes(L.ibanError));
          assert.equal(await page.getByLabel(L.city, { exact: true }).inputValue(), 'Patio');
          await fits(page, 'the form with an error');

          await page.getByLabel(L.iban, { exact: true }).fill(SELLER_IBAN);
          await page.getByRole('button', { name: L.submit }).click();
          await page.getByText(L.done).waitFor();
          await fits(page, 'the confirmation');
          const back = page.getByRole('link', { name: L.back });
          assert.equal(await back.getAttribute('href'), `${suite.baseUrl}/healthz`);

          const kase = (await t.api(platform.testKey, 'GET', `/api/v1/platform/onboarding-sessions/${session.id}`)).body;
          const created = (await t.api(platform.testKey, 'GET', `/api/v1/platform/onboarding-cases/${kase.caseId}`)).body;
          assert.deepEqual([created.enrollmentStatus, created.legalName, created.address.city, created.bankAccount.currency], ['APPROVED', 'Vanille de Tahaa SARL', 'Patio', 'XPF']);

          await back.click();
          await page.waitForURL(`${suite.baseUrl}/healthz`);

          // The link again: used, with the way to a new one.
          await page.goto(`${suite.baseUrl}${new URL(session.url).pathname}`);
          assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), L.closed);
          assert.equal(await page.getByRole('link', { name: L.refresh }).getAttribute('href'), 'https://marketplace.example/refresh');
          await fits(page, 'the used link');
        } finally {
          await context.close();
        }
      });
    }
  }

  it('the language link switches the page between French and English', async () => {
    const platform = await makePlatform(t, 'Langues');
    const session = await createOnboardingSession(t, platform.testKey);
    const { context, page } = await newPage(suite.browser, { viewport: PHONE, locale: 'fr-FR' });
    try {
      await page.goto(`${suite.baseUrl}${new URL(session.url).pathname}`);
      assert.equal(await page.locator('html').getAttribute('lang'), 'fr');
      await page.getByRole('link', { name: 'Read this page in English' }).click();
      await page.getByRole('heading', { name: 'Become a seller on Langues' }).waitFor();
      assert.equal(await page.locator('html').getAttribute('lang'), 'en');
      await page.getByRole('link', { name: 'Lire cette page en français' }).click();
      await page.getByRole('heading', { name: 'Devenir vendeur sur Langues' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
