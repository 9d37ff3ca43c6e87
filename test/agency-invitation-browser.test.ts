// The hosted page of an agency's invitation in Chromium, at a phone's width (390 px), in French and English, light
// and dark: it names the agency (its branding) and each scope in words; a back-office owner signs in on the page and
// accepts (the mandate exists after, through the API); a user of another role is refused; axe finds nothing.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { axeViolations } from './support/axe.js';
import { createUser, PASSWORD, PHONE, signedInUser } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { makeAgency } from './support/platforms.js';

const WORDS = {
  en: { title: 'Agence Moana asks to manage your account', refund: 'Refund payments', accept: 'Sign in and accept', done: 'Mandate given', email: 'Email', password: 'Password' },
  fr: { title: 'Agence Moana demande à gérer votre compte', refund: 'Rembourser des paiements', accept: 'Se connecter et accepter', done: 'Mandat donné', email: 'E-mail', password: 'Mot de passe' },
} as const;

eachDatabase('the agency invitation page', (dialect) => {
  const suite = withApp(dialect, { serve: true, browser: true });
  const { t } = suite;

  async function invitation() {
    const agency = await makeAgency(t, 'Agence Moana');
    await t.admin('PATCH', `/admin/v1/merchants/${agency.id}`, { primaryColor: '#0f766e' });
    const res = await t.api(agency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'owner@client.example', scopes: ['payments.read', 'refunds.write'] });
    assert.equal(res.status, 201);
    return { agency, url: `${suite.baseUrl}/agency-invitations/${String(res.body.url).split('/').at(-1)}`, id: res.body.id as string };
  }

  for (const lang of ['fr', 'en'] as const) {
    it(`${lang}: names the agency and each scope in words, axe clean light and dark at 390 px; an owner signs in and accepts`, async () => {
      const { agency, url, id } = await invitation();
      const client = await createMerchant(t, `Pension ${lang}`);
      const email = `owner-${lang}@client.example`;
      const { token } = await createUser(t, client.id, email, 'owner');
      assert.equal((await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD })).status, 200);
      for (const colorScheme of ['light', 'dark'] as const) {
        const { context, page } = await newPage(suite.browser, { viewport: PHONE, colorScheme, locale: lang === 'fr' ? 'fr-FR' : 'en-US' });
        try {
          await page.goto(`${url}?lang=${lang}`);
          assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), WORDS[lang].title);
          assert.ok(await page.getByText(WORDS[lang].refund).isVisible(), 'the scope in words');
          assert.ok(await page.getByText('Agence Moana', { exact: true }).first().isVisible(), "the agency's header");
          assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), PHONE.width, 'no sideways scroll');
          assert.deepEqual(await axeViolations(page), [], `${colorScheme}: axe clean`);
        } finally {
          await context.close();
        }
      }
      const { context, page } = await newPage(suite.browser, { viewport: PHONE, locale: lang === 'fr' ? 'fr-FR' : 'en-US' });
      try {
        await page.goto(`${url}?lang=${lang}`);
        await page.getByLabel(WORDS[lang].email, { exact: true }).fill(email);
        await page.getByLabel(WORDS[lang].password, { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: WORDS[lang].accept }).click();
        await page.getByRole('heading', { name: WORDS[lang].done }).waitFor();
        assert.deepEqual(await axeViolations(page), [], 'the confirmation: axe clean');
        // The browser is now signed in to the back-office, as after its own sign-in.
        const cookies = await context.cookies();
        assert.ok(cookies.some((c) => c.httpOnly), 'the back-office session cookie');
      } finally {
        await context.close();
      }
      const mandates = await t.api(client.testKey, 'GET', '/api/v1/agency-mandates');
      assert.deepEqual(mandates.body.data.map((m: any) => [m.agencyId, m.scopes]), [[agency.id, ['payments.read', 'refunds.write']]]);
      assert.equal((await t.api(agency.testKey, 'GET', `/api/v1/agency/invitations/${id}`)).body.status, 'accepted');
    });
  }

  for (const lang of ['fr', 'en'] as const) {
    it(`${lang}: "no Motu account yet" opens the onboarding form (the same one, clicked again), axe clean light and dark at 390 px`, async () => {
      const { url } = await invitation();
      const words = lang === 'fr'
        ? { section: "Mon entreprise n'a pas encore de compte Motu", start: 'Ouvrir mon compte' }
        : { section: 'My business has no Motu account yet', start: 'Open my account' };
      for (const colorScheme of ['light', 'dark'] as const) {
        const { context, page } = await newPage(suite.browser, { viewport: PHONE, colorScheme, locale: lang === 'fr' ? 'fr-FR' : 'en-US' });
        try {
          await page.goto(`${url}?lang=${lang}`);
          assert.ok(await page.getByRole('heading', { name: words.section }).isVisible());
          await page.getByRole('button', { name: words.start }).click();
          await page.waitForURL(/\/onboarding\/obs_/);
          assert.ok(await page.locator('form input[name="legalName"]').isVisible(), 'the onboarding form');
          assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), PHONE.width, 'no sideways scroll');
          assert.deepEqual(await axeViolations(page), [], `${colorScheme}: the form axe clean`);
        } finally {
          await context.close();
        }
      }
    });
  }

  it('an admin signed in already is told only an owner may accept; a wrong password says so and accepts nothing', async () => {
    const { url, id, agency } = await invitation();
    const client = await createMerchant(t, 'Roulotte');
    const admin = await signedInUser(t, client.id, 'admin');
    const { context, page } = await newPage(suite.browser, { viewport: PHONE, locale: 'en-US' });
    try {
      const [name, value] = admin.cookie.split('=');
      await context.addCookies([{ name: name!, value: value!, url: suite.baseUrl }]);
      await page.goto(`${url}?lang=en`);
      assert.ok(await page.getByText('Only an owner of the account may accept').isVisible());
      assert.equal(await page.getByRole('button', { name: 'Accept' }).count(), 0);
      await context.clearCookies();
      await page.goto(`${url}?lang=en`);
      await page.getByLabel('Email', { exact: true }).fill(admin.email);
      await page.getByLabel('Password', { exact: true }).fill('not the password');
      await page.getByRole('button', { name: 'Sign in and accept' }).click();
      assert.equal(await page.getByRole('alert').textContent(), 'The email or the password is wrong.');
      assert.deepEqual(await axeViolations(page), [], 'the error: axe clean');
    } finally {
      await context.close();
    }
    assert.equal((await t.api(agency.testKey, 'GET', `/api/v1/agency/invitations/${id}`)).body.status, 'pending');
    assert.equal((await t.api(agency.testKey, 'GET', '/api/v1/agency/mandates')).body.data.length, 0);
  });
});
