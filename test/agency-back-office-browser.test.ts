// An agency in the back-office, in Chromium, on every database: an invitation made with scopes chosen in words, its
// link shown with Copy; the client accepting (through the API); the portfolio; acting for the client (its name in
// the header on every page, only the pages its scopes open, a 403 with details.scope said in words, the way back);
// the client's Settings → Agencies revoking the mandate and the agency losing access. Axe clean in light and dark,
// in English and in French at 390 px.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PHONE, signedInUser, type UserClient } from './support/back-office.js';
import { accessible, noSideways, signedInPage } from './support/back-office-pages.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';
import { makeAgency } from './support/platforms.js';

eachDatabase('an agency in the back-office', (dialect) => {
  const suite = withApp(dialect, { serve: true, browser: true });
  const { t } = suite;

  const pageOf = (user: UserClient, lang: 'en' | 'fr', viewport?: { width: number; height: number }) => signedInPage(suite, user, lang, viewport);

  it('invite with scopes in words, accept, act for the client within its scopes, lose access once the client revokes', async () => {
    const agency = await makeAgency(t, 'Agence Moana');
    const client = await createMerchant(t, 'Client SARL');
    const paymentId = await paidPayment(t, client.testKey, { amount: 4200 });
    const reference = (await t.api(client.testKey, 'GET', `/api/v1/payments/${paymentId}`)).body.orderReference as string;
    const owner = await signedInUser(t, agency.id, 'owner');
    const page = await pageOf(owner, 'en');

    // The agency's own navigation: Portfolio and Invitations.
    await page.goto(`${suite.baseUrl}/dashboard/agency/invitations`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Portfolio' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Invitations' }).waitFor();
    await page.getByText('No invitation yet.').waitFor();
    await page.getByRole('button', { name: 'New invitation' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite a client' });
    await dialog.getByLabel('Email').fill('owner@client.example');
    assert.equal(await dialog.getByLabel('See payments, sessions and refunds').isChecked(), true, 'reading payments is offered first');
    await dialog.getByLabel('See the balance and its transactions').check();
    await accessible(page, 'the invitation dialog');
    await dialog.getByRole('button', { name: 'Create the invitation' }).click();
    const link = page.getByRole('region', { name: 'Invitation link' });
    const url = (await link.locator('code').textContent())!;
    assert.match(url, /\/agency-invitations\/[^/]+$/);
    await link.getByRole('button', { name: 'Copy' }).click();
    await link.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
    const row = page.getByRole('row').filter({ hasText: 'owner@client.example' });
    await row.getByText('Pending').waitFor();
    await row.getByText('See the balance and its transactions').waitFor();
    await accessible(page, 'Invitations');

    // The client accepts with its own key.
    const accepted = await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${url.split('/').at(-1)}/accept`, {});
    assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
    await page.reload();
    await page.getByRole('row').filter({ hasText: 'owner@client.example' }).getByText('Accepted').waitFor();

    // The portfolio: the client by name, its scopes in words.
    await nav.getByRole('link', { name: 'Portfolio' }).click();
    const client_row = page.getByRole('row').filter({ hasText: 'Client SARL' });
    await client_row.getByText('See payments, sessions and refunds').waitFor();
    await client_row.getByText('Active').waitFor();
    await accessible(page, 'Portfolio');

    // Acting: the client's name in the header, only the pages its scopes open.
    await client_row.getByRole('button', { name: 'Act for Client SARL' }).click();
    const banner = page.getByRole('banner').getByText('Acting for Client SARL');
    await banner.waitFor();
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    await page.getByRole('link', { name: reference }).waitFor();
    const shown = await nav.getByRole('link').allTextContents();
    assert.deepEqual(shown, ['Payments', 'Subscriptions', 'Balance', 'Disputes'], 'the pages the scopes open, no more');
    await accessible(page, 'acting: the payments list');
    await page.getByRole('link', { name: reference }).click();
    await page.getByRole('heading', { level: 1, name: `Payment ${reference}` }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Refund' }).count(), 0, 'refunds.write is not in the mandate');
    await page.getByRole('banner').getByText('Acting for Client SARL').waitFor();
    // A page outside the mandate says why, in words.
    await page.goto(`${suite.baseUrl}/dashboard/customers`);
    await page.getByText('The mandate of Client SARL does not include this page: it needs “See customers and their cards”.').waitFor();
    await page.goto(`${suite.baseUrl}/dashboard/settings`);
    await page.getByText('This page is your own account’s', { exact: false }).waitFor();

    // The client narrows the scopes meanwhile: the server's 403 names the missing scope in words.
    const mandateId = accepted.body.id as string;
    assert.equal((await t.api(client.testKey, 'PATCH', `/api/v1/agency-mandates/${mandateId}`, { scopes: ['payments.read'] })).status, 200);
    await page.goto(`${suite.baseUrl}/dashboard/balance`);
    await page.getByText('The mandate does not allow this: it needs “See the balance and its transactions”.').first().waitFor();

    // Back to the agency's own account.
    await page.getByRole('button', { name: 'Back to Agence Moana' }).click();
    await page.getByRole('heading', { level: 1, name: 'Portfolio' }).waitFor();
    assert.equal(await page.getByText('Acting for Client SARL').count(), 0);
    await nav.getByRole('link', { name: 'Invitations' }).waitFor();

    // The client revokes from Settings → Agencies; acting again is refused.
    const clientOwner = await signedInUser(t, client.id, 'owner');
    const clientPage = await pageOf(clientOwner, 'en');
    await clientPage.goto(`${suite.baseUrl}/dashboard/settings/agencies`);
    const agencyRow = clientPage.getByRole('row').filter({ hasText: 'Agence Moana' });
    await agencyRow.getByText('See payments, sessions and refunds').waitFor();
    await accessible(clientPage, 'Settings → Agencies');
    await agencyRow.getByRole('button', { name: 'Revoke the mandate of Agence Moana' }).click();
    const confirm = clientPage.getByRole('dialog', { name: 'Revoke this mandate?' });
    await confirm.getByText('Agence Moana loses access to your account at once.').waitFor();
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await agencyRow.getByText('Revoked').waitFor();
    assert.equal(await agencyRow.getByRole('button').count(), 0);
    await clientPage.context().close();

    await page.reload();
    await page.getByRole('row').filter({ hasText: 'Client SARL' }).getByText('Revoked').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Act for Client SARL' }).count(), 0);
    const refused = await owner.call('GET', '/api/v1/payments', undefined, { headers: { 'motu-account': client.id } });
    assert.deepEqual([refused.status, refused.body.code], [403, 'MANDATE_REVOKED']);
    await page.context().close();
  });

  it('in French at 390 px: the portfolio, acting with the client named in the header, Settings → Agencies; an analyst changes nothing', async () => {
    const agency = await makeAgency(t, 'Agence Moana');
    const client = await createMerchant(t, 'Client SARL');
    const invited = await t.api(agency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'owner@client.example', scopes: ['payments.read', 'customers.read'] });
    assert.equal(invited.status, 201);
    assert.equal((await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${String(invited.body.url).split('/').at(-1)}/accept`, {})).status, 201);
    const admin = await signedInUser(t, agency.id, 'admin');
    const page = await pageOf(admin, 'fr', PHONE);
    await page.goto(`${suite.baseUrl}/dashboard/agency/portfolio`);
    await page.getByRole('heading', { level: 1, name: 'Portefeuille' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Client SARL' });
    await row.getByText('Voir les clients et leurs cartes').waitFor();
    await noSideways(page, 'the portfolio at 390 px');
    await accessible(page, 'the portfolio in French at 390 px');
    await row.getByRole('button', { name: 'Agir pour Client SARL' }).click();
    await page.getByRole('banner').getByText('Vous agissez pour Client SARL').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Paiements' }).waitFor();
    await noSideways(page, 'acting at 390 px');
    await accessible(page, 'acting in French at 390 px');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Principale' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('heading', { level: 1, name: 'Clients' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Nouveau client' }).count(), 0, 'customers.write is not in the mandate');
    await page.getByRole('banner').getByText('Vous agissez pour Client SARL').waitFor();
    await page.getByRole('button', { name: 'Revenir à Agence Moana' }).click();
    await page.getByRole('heading', { level: 1, name: 'Portefeuille' }).waitFor();
    await page.context().close();

    // The client's analyst reads its agencies and changes nothing.
    const analyst = await signedInUser(t, client.id, 'analyst');
    const clientPage = await pageOf(analyst, 'fr', PHONE);
    await clientPage.goto(`${suite.baseUrl}/dashboard/settings/agencies`);
    const agencyRow = clientPage.getByRole('row').filter({ hasText: 'Agence Moana' });
    await agencyRow.getByText('Voir les paiements, les sessions et les remboursements').waitFor();
    await clientPage.getByText('Seuls les propriétaires et les administrateurs modifient les mandats.').waitFor();
    assert.equal(await agencyRow.getByRole('button').count(), 0);
    await noSideways(clientPage, 'Settings → Agencies at 390 px');
    await accessible(clientPage, 'Settings → Agencies in French at 390 px');
    await clientPage.context().close();
  });
});
