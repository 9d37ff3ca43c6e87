// The back-office in Chromium for each role, on every database: the session cookie as the browser holds it
// (HttpOnly, SameSite=Lax, not readable by script), a forged cross-origin form and fetch refused for want of the CSRF
// token (nothing created), and each role's pages offering only the actions it may take.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { PASSWORD, type Role } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paidPayment, paySession } from './support/payments.js';

eachDatabase('back-office roles and sessions in a browser', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;

  /** A user of `role` signed in through the sign-in page, in a context of its own. */
  async function signedInPage(role: Role): Promise<Page> {
    const email = `${role}-${Math.random().toString(36).slice(2, 8)}@fare-ute.example`;
    const created = await t.admin('POST', `/admin/v1/merchants/${m.id}/users`, { email, role });
    const token = String(created.body.setupUrl).split('/').at(-1);
    assert.equal((await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD })).status, 200);
    const { page } = await newPage(suite.browser, { locale: 'en-GB' });
    await page.goto(`${suite.baseUrl}/dashboard/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    return page;
  }

  async function buttons(page: Page, path: string, heading: RegExp): Promise<string[]> {
    await page.goto(`${suite.baseUrl}/dashboard${path}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    await page.getByRole('heading', { name: 'Timeline' }).or(page.getByRole('heading', { name: 'Webhook endpoints' })).first().waitFor();
    return (await page.getByRole('button').allInnerTexts()).map((s) => s.trim());
  }

  it('the session cookie is HttpOnly and SameSite=Lax; a forged cross-origin form or fetch is refused for want of the CSRF token', async () => {
    const page = await signedInPage('owner');
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'motu_dashboard');
    assert.ok(session, 'the session cookie is set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');
    assert.equal(session.secure, false, 'an http public URL: not Secure (https would be)');
    assert.equal(await page.evaluate(() => document.cookie.includes('motu_dashboard')), false, 'no script reads it');

    const before = (await t.api(m.testKey, 'GET', '/api/v1/payments?limit=100')).body.data.length;
    const body = JSON.stringify({ order: { reference: 'FORGED', amount: 100, currency: 'XPF' }, redirectUrl: 'https://evil.example', notificationUrl: 'https://evil.example' });
    // Another origin (another port) of the same host: the browser sends the cookie along, so only the token stops it.
    const evil = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><title>Win a prize</title><form id="f" method="POST" action="${suite.baseUrl}/api/v1/payments/sessions" enctype="text/plain">
<input type="hidden" name='${body.slice(0, -1)},"x":"' value='"}'></form>
<script>fetch(${JSON.stringify(`${suite.baseUrl}/api/v1/payments/sessions`)}, {method: 'POST', credentials: 'include', mode: 'no-cors', headers: {'content-type': 'text/plain'}, body: ${JSON.stringify(body)}})
  .finally(() => document.getElementById('f').submit());</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      await page.waitForURL(`${suite.baseUrl}/api/v1/payments/sessions`);
      const answer = JSON.parse(await page.locator('body').innerText());
      assert.equal(answer.code, 'CSRF_TOKEN_INVALID');
    } finally {
      evil.close();
    }
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/payments?limit=100')).body.data.length, before, 'nothing was created');
    await page.context().close();
  });

  it('each role sees only the actions it may take on a payment and in Developers', async () => {
    const manual = await createSession(t, m.testKey, { captureMode: 'MANUAL' });
    await paySession(t, manual.sessionId);
    const captured = await paidPayment(t, m.testKey);
    const owner = await signedInPage('owner');
    const support = await signedInPage('support');
    const analyst = await signedInPage('analyst');
    const developer = await signedInPage('developer');

    const ownerOnManual = await buttons(owner, `/payments/${manual.paymentId}`, /^Payment/);
    assert.ok(ownerOnManual.includes('Capture') && ownerOnManual.includes('Cancel payment'), ownerOnManual.join());
    const supportOnManual = await buttons(support, `/payments/${manual.paymentId}`, /^Payment/);
    assert.ok(!supportOnManual.includes('Capture') && !supportOnManual.includes('Cancel payment'), supportOnManual.join());

    const supportOnCaptured = await buttons(support, `/payments/${captured}`, /^Payment/);
    assert.ok(supportOnCaptured.includes('Refund'), 'support refunds');
    assert.ok(!supportOnCaptured.includes('Resend'), 'support resends no event');
    const analystOnCaptured = await buttons(analyst, `/payments/${captured}`, /^Payment/);
    assert.ok(!analystOnCaptured.includes('Refund') && !analystOnCaptured.includes('Resend'), analystOnCaptured.join());
    const developerOnCaptured = await buttons(developer, `/payments/${captured}`, /^Payment/);
    assert.ok(developerOnCaptured.includes('Refund') && developerOnCaptured.includes('Resend'), developerOnCaptured.join());

    // Developers: the analyst reads the endpoints but has no API keys, no endpoint form, no signing secret.
    await analyst.goto(`${suite.baseUrl}/dashboard/developers`);
    await analyst.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    assert.equal(await analyst.getByRole('link', { name: 'API keys' }).count(), 0);
    assert.equal(await analyst.getByRole('button', { name: 'Add endpoint' }).count(), 0);
    assert.equal(await analyst.getByRole('heading', { name: 'Signing secret' }).count(), 0);
    await developer.goto(`${suite.baseUrl}/dashboard/developers/webhooks`);
    await developer.getByRole('heading', { name: 'Signing secret' }).waitFor();
    assert.equal(await developer.getByRole('button', { name: 'Add endpoint' }).count(), 1);
    // Customers: a developer creates them, an analyst only reads.
    for (const page of [developer, analyst]) {
      await page.goto(`${suite.baseUrl}/dashboard/customers`);
      await page.getByRole('search', { name: 'Find customers' }).waitFor();
    }
    await developer.getByRole('button', { name: 'New customer' }).waitFor();
    assert.equal(await analyst.getByRole('button', { name: 'New customer' }).count(), 0);
    for (const page of [owner, support, analyst, developer]) await page.context().close();
  });
});
