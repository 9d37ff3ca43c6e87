// Every page people open, in Chromium: the start page (/), the back-office, /docs, the hosted checkout, the wallet
// page and the hosted invoice page load with no console error and no answer of 400 or more, and each names an icon
// that is served. The start page is checked with axe-core (WCAG A/AA) at a phone's width, light and dark.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { signedInUser } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession } from './support/payments.js';

const PHONE = { width: 390, height: 844 };
const IDENTITY = {
  legalName: 'Fare Ute SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' },
  registrationNumber: 'TAHITI A12345',
};

/** Console errors and failed answers while the page loads, whatever their origin. */
function watch(page: Page): { problems: string[] } {
  const problems: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`); });
  page.on('requestfailed', (r) => problems.push(`failed ${r.url()}: ${r.failure()?.errorText}`));
  return { problems };
}

/** The icon the page names, asked for as the browser does (the page's CSP may forbid a fetch from its scripts): 200, an image. */
async function iconServed(page: Page): Promise<void> {
  const href = await page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel~="icon"]')?.href ?? null);
  assert.ok(href, `an icon is named on ${page.url()}`);
  const res = await page.context().request.get(href);
  assert.equal(res.status(), 200, href);
  assert.match(String(res.headers()['content-type']), /^image\//);
}

eachDatabase('the pages in the browser: no console error, no 404, an icon', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  const pages: Array<{ name: string; path: string; ready: (page: Page) => Promise<unknown> }> = [];
  let cookie = '';

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, IDENTITY)).status, 200);
    cookie = (await signedInUser(t, m.id, 'owner')).cookie;
    const session = await createSession(t, m.testKey, { amount: 2500, currency: 'XPF' });
    const customerId = (await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Hina', email: 'hina@example.pf' })).body.id;
    const wallet = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/account' });
    assert.equal(wallet.status, 201, JSON.stringify(wallet.body));
    const draft = await t.api(m.testKey, 'POST', '/api/v1/billing/invoices', { customerId, currency: 'XPF', lines: [{ description: 'Pāreu', quantity: 1, unitPrice: 4_500 }] });
    await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${draft.body.id}/finalize`);
    const sent = await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${draft.body.id}/send`);
    pages.push(
      { name: 'the start page', path: '/', ready: (p) => p.getByRole('link', { name: 'Back-office' }).waitFor() },
      { name: 'the back-office', path: '/dashboard', ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
      { name: 'the back-office settings', path: '/dashboard/settings', ready: (p) => p.getByRole('heading', { name: 'Settings', level: 1 }).waitFor() },
      { name: '/docs', path: '/docs', ready: (p) => p.locator('.swagger-ui .info').waitFor() },
      { name: 'the hosted checkout', path: `/checkout/${session.sessionId}`, ready: (p) => p.getByRole('heading', { level: 1 }).first().waitFor() },
      { name: 'the wallet page', path: new URL(wallet.body.redirectUrl).pathname, ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
      { name: 'the hosted invoice page', path: new URL(sent.body.url).pathname, ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
    );
  });

  it('each page loads with no console error and no answer of 400 or more, and its icon is served', async () => {
    const { context, page } = await newPage(suite.browser, { locale: 'en-GB' });
    const eq = cookie.indexOf('=');
    await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: suite.baseUrl }]);
    const { problems } = watch(page);
    for (const p of pages) {
      problems.length = 0;
      await page.goto(`${suite.baseUrl}${p.path}`);
      await p.ready(page);
      await page.waitForLoadState('networkidle');
      await iconServed(page);
      assert.deepEqual(problems, [], p.name);
    }
    await context.close();
  });

  it('the start page in French at 390 px: both links, axe clean in light and dark', async () => {
    const { context, page } = await newPage(suite.browser, { locale: 'fr-FR', viewport: PHONE });
    await page.goto(`${suite.baseUrl}/`);
    await page.getByRole('link', { name: 'Back-office' }).waitFor();
    await page.getByRole('link', { name: "Référence de l'API" }).click();
    await page.waitForURL(/\/docs/);
    await page.goBack();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page), [], `start page (${colorScheme})`);
    }
    await context.close();
  });
});
