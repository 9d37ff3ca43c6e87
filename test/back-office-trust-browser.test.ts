// The keys' makers in Chromium, on every database: the Developers list names who made each key and the most it may
// do; the team activity names the key a change was made with; removing a member who made keys asks, in the dialog, whether they are revoked or handed over; in English and
// French, at 390 px, axe clean in light and dark.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { PASSWORD, signedInUser, signIn } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

const PHONE = { width: 390, height: 844 };

eachDatabase('back-office keys and their makers in a browser', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;

  async function accessible(page: Page, what: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page), [], `${what} (${colorScheme})`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  async function ownerPage(locale: string): Promise<Page> {
    const email = `owner-${Math.random().toString(36).slice(2, 8)}@fare-ute.example`;
    const created = await t.admin('POST', `/admin/v1/merchants/${m.id}/users`, { email, role: 'owner' });
    const token = String(created.body.setupUrl).split('/').at(-1);
    assert.equal((await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD })).status, 200);
    const { page } = await newPage(suite.browser, { locale, viewport: PHONE });
    await page.goto(`${suite.baseUrl}/dashboard/sign-in`);
    await page.locator('input[type=email]').fill(email);
    await page.locator('input[type=password]').fill(PASSWORD);
    await page.locator('button[type=submit]').click();
    await page.waitForURL((url) => !url.pathname.includes('sign-in'));
    return page;
  }

  async function sideways(page: Page): Promise<number> {
    return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  }

  it('the keys list names their makers; removing a maker asks what becomes of their keys, and hands them over when chosen', async () => {
    const developer = await signedInUser(t, m.id, 'developer');
    const key = (await developer.call('POST', '/dashboard/api/keys', {})).body;
    const page = await ownerPage('en-GB');
    await page.goto(`${suite.baseUrl}/dashboard/developers`);
    const row = page.getByRole('row').filter({ hasText: key.last4 });
    await row.getByText(`${developer.email} (at most Developer)`).waitFor();
    assert.equal(await page.getByRole('row').filter({ hasText: m.testKey.slice(-4) }).getByText('The operator').count(), 1);
    assert.ok((await sideways(page)) <= 0, 'no sideways scroll at 390 px');
    await accessible(page, 'API keys at 390 px');

    // What the key changes is in the team's activity, under its maker, naming the key.
    assert.equal((await t.api(key.secretKey, 'POST', '/api/v1/customers', { name: 'Made with a key' })).status, 201);
    await page.goto(`${suite.baseUrl}/dashboard/settings/activity`);
    const keyRow = page.getByRole('row').filter({ hasText: `with the key ${key.id}` });
    await keyRow.waitFor();
    assert.match(await keyRow.innerText(), new RegExp(`${developer.email.replace(/[.+]/g, '\\$&')} created customer`));
    await accessible(page, 'team activity with a key’s change at 390 px');

    await page.goto(`${suite.baseUrl}/dashboard/settings/team`);
    await page.getByRole('button', { name: `Remove ${developer.email}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('API keys they made that still work: 1').waitFor();
    assert.equal(await dialog.getByRole('radio', { name: 'Revoke them now' }).isChecked(), true, 'revoking is the default');
    await dialog.getByRole('radio', { name: /Hand them over to me/ }).check();
    assert.ok((await sideways(page)) <= 0);
    await accessible(page, 'the removal dialog at 390 px');
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Team member removed.').waitFor();
    assert.equal((await t.api(key.secretKey, 'GET', '/api/v1/customers')).status, 200, 'the handed-over key still works');
    assert.equal((await developer.call('GET', '/dashboard/api/me')).status, 401);
    await page.context().close();
  });

  it('en français : la liste dit qui a créé chaque clé, et la boîte de dialogue du retrait propose de les révoquer', async () => {
    const developer = await signedInUser(t, m.id, 'developer');
    const key = (await developer.call('POST', '/dashboard/api/keys', {})).body;
    const page = await ownerPage('fr-FR');
    await page.goto(`${suite.baseUrl}/dashboard/developers`);
    await page.getByRole('row').filter({ hasText: key.last4 }).getByText(new RegExp(`${developer.email.replace(/[.+]/g, '\\$&')} \\(au plus `)).waitFor();
    await page.goto(`${suite.baseUrl}/dashboard/settings/team`);
    await page.getByRole('button', { name: `Retirer ${developer.email}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Clés API créées par ce membre et encore valides : 1').waitFor();
    await dialog.getByRole('button', { name: 'Retirer' }).click();
    await page.getByText('Membre retiré.').waitFor();
    assert.equal((await t.api(key.secretKey, 'GET', '/api/v1/customers')).status, 401, 'revoked with its maker');
    await page.context().close();
  });

  it('invited to a second team, the set-up page asks for a password of its own, and says why at 390 px', async () => {
    const other = await createMerchant(t, 'Elsewhere');
    const theirs = await signedInUser(t, other.id, 'developer');
    const owner = await signedInUser(t, m.id, 'owner');
    const invited = await owner.call('POST', '/dashboard/api/users', { email: theirs.email, role: 'analyst' });
    assert.equal(invited.status, 201);
    const { page } = await newPage(suite.browser, { locale: 'en-GB', viewport: PHONE });
    await page.goto(invited.body.setupUrl.replace('http://localhost:3000', suite.baseUrl));
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.getByText('This password already opens your account in another team').waitFor();
    assert.ok((await sideways(page)) <= 0);
    await accessible(page, 'the set-up page refusing another team’s password');
    const own = 'a password for this team only';
    await page.getByLabel('Password', { exact: true }).fill(own);
    await page.getByLabel('Confirm password').fill(own);
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.waitForURL((url) => !url.pathname.includes('setup'));
    assert.equal((await signIn(t, theirs.email, own)).body.merchant.id, m.id);
    await page.context().close();
  });
});
