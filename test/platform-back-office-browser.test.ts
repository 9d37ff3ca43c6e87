// A platform (marketplace) in the back-office, in Chromium, on every database: a split payment's distribution on its
// page (each seller by name with its amount, discount, commission lines and net; the platform's line; refunds'
// shares), the sellers with their balances after the payment, a seller's page and Unlink behind its confirmation; the
// Sellers and Onboarding entries only for a platform. Axe clean in light and dark, in English and in French at 390 px.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PHONE, signedInUser, type UserClient } from './support/back-office.js';
import { accessible, noSideways, signedInPage } from './support/back-office-pages.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createOnboardingSession, makePlatform, onboardSeller, postOnboardingForm, sellerForm } from './support/platforms.js';
import { paidSplit } from './support/splits.js';

eachDatabase('a platform in the back-office', (dialect) => {
  const suite = withApp(dialect, { serve: true, browser: true });
  const { t } = suite;

  const pageOf = (user: UserClient, lang: 'en' | 'fr', viewport?: { width: number; height: number }) => signedInPage(suite, user, lang, viewport);

  /** A platform, two sellers, and a split payment of 100.00 EUR (the card pays 80.00: 20.00 financed). */
  async function splitPayment() {
    const platform = await makePlatform(t, 'Fenua Market');
    const a = await onboardSeller(t, platform.testKey, { legalName: 'Vanille Tahaa' });
    const b = await onboardSeller(t, platform.testKey, { legalName: 'Perles Rikitea' });
    const paymentId = await paidSplit(t, platform.testKey, {
      amount: 10_000,
      distribution: [
        { merchantId: a.merchantId, amount: 6000, commission: { rate: 1000, fixed: 50 } },
        { merchantId: b.merchantId, amount: 5000, commission: { rate: 500 }, discount: 1000 },
      ],
      financing: 2000,
    });
    const payment = (await t.api(platform.testKey, 'GET', `/api/v1/payments/${paymentId}`)).body;
    return { platform, a, b, paymentId, reference: payment.orderReference as string };
  }

  it("a split payment's distribution, the sellers with their balances, a seller's page and Unlink", async () => {
    const { platform, a, b, paymentId, reference } = await splitPayment();
    // A refund of 10.00 shared in proportion to the sellers' amounts (6000 : 5000).
    assert.equal((await t.api(platform.testKey, 'POST', `/api/v1/payments/${paymentId}/refund`, { amount: 1100 })).status, 201);
    const owner = await signedInUser(t, platform.id, 'owner');
    const page = await pageOf(owner, 'en');

    await page.goto(`${suite.baseUrl}/dashboard/payments/${paymentId}`);
    await page.getByRole('heading', { level: 1, name: `Payment ${reference}` }).waitFor();
    const table = page.getByRole('table', { name: 'Each seller’s share of this payment' });
    const rowA = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'Vanille Tahaa' }) });
    const rowB = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'Perles Rikitea' }) });
    // A: 60.00, commission 10 % = 6.00 + 0.50 fixed = 6.50, net 53.50. B: 50.00, discount 10.00, 5 % = 2.50, net 47.50.
    assert.deepEqual(await rowA.getByRole('cell').allInnerTexts(), ['€60.00', '€0.00', '€6.50\nCommission (10%) · €6.00\nFixed fee · €0.50', '€53.50']);
    assert.deepEqual(await rowB.getByRole('cell').allInnerTexts(), ['€50.00', '€10.00', '€2.50\nCommission (5%) · €2.50\nFixed fee · €0.00', '€47.50']);
    const platformLine = page.locator('dl.distribution-platform');
    await platformLine.getByText('Commissions').waitFor();
    assert.equal(await platformLine.locator('dd').first().innerText(), '€9.00');
    const refunds = page.getByRole('table', { name: 'What refunds took from each seller' });
    assert.deepEqual(await refunds.getByRole('row').filter({ hasText: 'Vanille Tahaa' }).getByRole('cell').allInnerTexts(), ['€6.00', '€0.65']);
    assert.deepEqual(await refunds.getByRole('row').filter({ hasText: 'Perles Rikitea' }).getByRole('cell').allInnerTexts(), ['€5.00', '€0.25']);
    await accessible(page, "a split payment's page");

    // The seller's link leads to its page; the list shows each seller's balance after the payment.
    await rowA.getByRole('link', { name: 'Vanille Tahaa' }).click();
    await page.getByRole('heading', { level: 1, name: 'Vanille Tahaa' }).waitFor();
    await accessible(page, "a seller's page");
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Sellers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sellers' }).waitFor();
    const listA = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Vanille Tahaa' }) });
    const balanceA = (await t.api(a.secretKey, 'GET', '/api/v1/balance')).body;
    const pendingA = balanceA.pending.find((x: { currency: string }) => x.currency === 'EUR').amount as number;
    assert.ok(pendingA > 0, 'the seller has its share pending');
    await listA.getByRole('cell').filter({ hasText: `€${(pendingA / 100).toFixed(2)}` }).waitFor();
    await listA.getByText('Open').waitFor();
    await accessible(page, 'Sellers');

    // Unlink behind its confirmation.
    await page.getByRole('link', { name: 'Perles Rikitea' }).click();
    await page.getByRole('button', { name: 'Unlink' }).click();
    const dialog = page.getByRole('dialog', { name: 'Unlink this seller?' });
    await dialog.getByText('Perles Rikitea can no longer be paid through your payments.', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Unlink' }).click();
    await page.getByText('Unlinked', { exact: true }).first().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Unlink' }).count(), 0);
    const again = await t.api(platform.testKey, 'POST', `/api/v1/platform/merchants/${b.merchantId}/unlink`, {});
    assert.equal(again.status, 404, 'no longer linked');
    await page.context().close();
  });

  it('in French at 390 px, and only for a platform: the Sellers and Onboarding entries; an analyst unlinks nothing', async () => {
    const { platform, paymentId } = await splitPayment();
    const analyst = await signedInUser(t, platform.id, 'analyst');
    const page = await pageOf(analyst, 'fr', PHONE);
    await page.goto(`${suite.baseUrl}/dashboard/payments/${paymentId}`);
    await page.getByRole('table', { name: 'La part de chaque vendeur dans ce paiement' }).getByRole('link', { name: 'Vanille Tahaa' }).waitFor();
    await noSideways(page, "a split payment's page at 390 px");
    await accessible(page, "a split payment's page in French at 390 px");
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Principale' }).getByRole('link', { name: 'Vendeurs' }).click();
    await page.getByRole('heading', { level: 1, name: 'Vendeurs' }).waitFor();
    await page.getByRole('link', { name: 'Vanille Tahaa' }).waitFor();
    await noSideways(page, 'Sellers at 390 px');
    await accessible(page, 'Sellers in French at 390 px');
    await page.getByRole('link', { name: 'Vanille Tahaa' }).click();
    await page.getByRole('heading', { level: 1, name: 'Vanille Tahaa' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Détacher' }).count(), 0, 'an analyst changes nothing');
    await page.context().close();

    const other = await createMerchant(t, 'Not a platform');
    const owner = await signedInUser(t, other.id, 'owner');
    const plain = await pageOf(owner, 'en');
    await plain.goto(`${suite.baseUrl}/dashboard/payments`);
    await plain.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    const nav = plain.getByRole('navigation', { name: 'Main' });
    for (const name of ['Sellers', 'Onboarding', 'Portfolio', 'Invitations']) assert.equal(await nav.getByRole('link', { name }).count(), 0, name);
    await plain.context().close();
  });
  it('Onboarding: a session created with its link and Copy, cancelled; a case whose correction is requested gets a correction link', async () => {
    const platform = await makePlatform(t, 'Fenua Market');
    // A business sends a case the test mode asks to correct (its legal name says so).
    const first = await createOnboardingSession(t, platform.testKey, { email: 'perles@example.pf', businessName: 'Perles correction SARL' });
    assert.equal((await postOnboardingForm(t, first.token, sellerForm({ legalName: 'Perles correction SARL' }))).status, 303);
    const owner = await signedInUser(t, platform.id, 'owner');
    const page = await pageOf(owner, 'en');
    await page.goto(`${suite.baseUrl}/dashboard/platform/onboarding`);
    await page.getByRole('heading', { level: 1, name: 'Onboarding' }).waitFor();
    const kase = page.getByRole('table', { name: 'Onboarding cases, newest first' }).getByRole('row').filter({ hasText: 'Perles correction SARL' });
    await kase.getByText('Correction requested').waitFor();
    await accessible(page, 'Onboarding');

    await page.getByRole('button', { name: 'New onboarding session' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an onboarding session' });
    await dialog.getByLabel('Email').fill('vanille@example.pf');
    await dialog.getByLabel('Business name').fill('Vanille Tahaa');
    await dialog.getByLabel('Return URL').fill('https://fenua-market.example/onboarded');
    await dialog.getByRole('button', { name: 'Create the session' }).click();
    const link = page.getByRole('region', { name: 'Onboarding link' });
    const url = (await link.locator('code').textContent())!;
    assert.match(url, /\/onboarding\/[^/]+$/);
    await link.getByRole('button', { name: 'Copy' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
    const sessions = page.getByRole('table', { name: 'Onboarding sessions, newest first' });
    const row = sessions.getByRole('row').filter({ hasText: 'vanille@example.pf' });
    await row.getByText('Open').waitFor();
    await row.getByRole('button', { name: 'Cancel the session of vanille@example.pf' }).click();
    await page.getByRole('dialog', { name: 'Cancel this onboarding session?' }).getByRole('button', { name: 'Cancel' }).click();
    await row.getByText('Cancelled').waitFor();

    await kase.getByRole('button', { name: 'Send a correction link for Perles correction SARL' }).click();
    const correction = page.getByRole('dialog', { name: 'Send a correction link' });
    assert.equal(await correction.getByLabel('Email').inputValue(), 'perles@example.pf');
    await correction.getByLabel('Return URL').fill('https://fenua-market.example/onboarded');
    await correction.getByRole('button', { name: 'Create the session' }).click();
    await page.getByRole('region', { name: 'Onboarding link' }).waitFor();
    const listed = (await t.api(platform.testKey, 'GET', '/api/v1/platform/onboarding-sessions')).body.data as Array<{ email: string; caseId: string | null; status: string }>;
    const caseId = (await t.api(platform.testKey, 'GET', '/api/v1/platform/onboarding-cases')).body.data[0].id as string;
    assert.ok(listed.some((s) => s.email === 'perles@example.pf' && s.caseId === caseId && s.status === 'open'), 'a session correcting the case');
    await page.context().close();
  });
});
