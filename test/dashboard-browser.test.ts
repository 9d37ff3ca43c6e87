// The merchant back-office (/dashboard) in Chromium, on every database: a user set up from the operator's link signs
// in, goes through every page, and acts from the pages (refund, event resend, CSV export, test/live switch); axe-core's
// WCAG A/AA rules on every page in light and dark; the pages at a phone's width (390 px). One browser per file.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';

const PASSWORD = 'correct horse battery staple';
const EMAIL = 'owner@fare-ute.example';
const PHONE = { width: 390, height: 844 };

eachDatabase('the merchant back-office', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  const api = (method: string, url: string, body?: unknown) => t.api(m.testKey, method, url, body);

  /** A signed-in page: the user's session cookie is the context's, so a second page of the same context is signed in too. */
  let signedIn: { context: BrowserContext; page: Page } | undefined;

  async function dashboard(path: string): Promise<Page> {
    assert.ok(signedIn, 'signed in by the first test');
    await signedIn.page.goto(`${suite.baseUrl}/dashboard${path}`);
    return signedIn.page;
  }

  /** The answer to the page's request (the toasts of two saves in a row read the same). */
  function answered(page: Page, method: string, path: string) {
    return page.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname === path && r.ok());
  }

  /** axe in light and dark on the page as it is now (the colour scheme is emulated in place). */
  async function accessible(page: Page, what: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page), [], `${what} (${colorScheme})`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  it('the shell: one HTML page for every path under /dashboard with a strict CSP, immutable versioned assets, JSON 404 under /dashboard/api', async () => {
    const shell = await fetch(`${suite.baseUrl}/dashboard/payments/pay_x?status=captured`, { headers: { 'accept-language': 'fr-PF,fr;q=0.9' } });
    assert.equal(shell.status, 200);
    const csp = shell.headers.get('content-security-policy')!;
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
      assert.ok(csp.includes(directive), `${directive} in ${csp}`);
    }
    const html = await shell.text();
    assert.match(html, /<html lang="fr">/);
    assert.match(html, /<meta name="viewport"/);
    const js = /src="(\/dashboard\/assets\/app-[0-9a-f]{16}\.js)"/.exec(html)![1]!;
    const css = /href="(\/dashboard\/assets\/app-[0-9a-f]{16}\.css)"/.exec(html)![1]!;
    for (const [path, type] of [[js, 'text/javascript'], [css, 'text/css']] as const) {
      const asset = await fetch(`${suite.baseUrl}${path}`);
      assert.equal(asset.status, 200);
      assert.match(asset.headers.get('content-type')!, new RegExp(type));
      assert.match(asset.headers.get('cache-control')!, /immutable/);
    }
    assert.equal((await fetch(`${suite.baseUrl}/dashboard/assets/app-0000000000000000.js`)).status, 404);
    const api404 = await fetch(`${suite.baseUrl}/dashboard/api/no-such-route`);
    assert.equal(api404.status, 404);
    assert.equal((await api404.json()).code, 'NOT_FOUND');
  });

  it('the set-up link asks the password twice and signs the user in (the sign-in page then leads in); sign-out, then sign-in with Email and Password', async () => {
    const created = await t.admin('POST', `/admin/v1/merchants/${m.id}/users`, { email: EMAIL, role: 'owner' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { context, page } = await newPage(suite.browser, { locale: 'en-GB' });
    signedIn = { context, page };
    await page.goto(created.body.setupUrl);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await accessible(page, 'set-up page');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD + 'x');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.getByText('The two passwords differ.').waitFor();
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    assert.equal(await page.locator('.merchant-name').innerText(), 'Fare Ute');
    assert.equal(await page.locator('.mode-badge').innerText(), 'TEST');
    await page.goto(`${suite.baseUrl}/dashboard/sign-in`);
    await page.waitForURL((url) => !url.pathname.endsWith('/sign-in'));
    await page.getByRole('navigation', { name: 'Main' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Motu' }).waitFor();
    await accessible(page, 'sign-in page');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('wrong password!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  });

  it('payments: the list with its filters, each row linking to its detail, and the CSV of every matching row', async () => {
    const xpf = await paidPayment(t, m.testKey, { amount: 2500, currency: 'XPF' });
    await paidPayment(t, m.testKey, { amount: 1999, currency: 'EUR' });
    const payment = (await api('GET', `/api/v1/payments/${xpf}`)).body;
    const page = await dashboard('/payments');
    const table = page.getByRole('table', { name: 'Payments, newest first' });
    await table.waitFor();
    assert.equal(await table.locator('tbody tr').count(), 2);
    await accessible(page, 'payments');
    // 2,500 XPF is 20.95 EUR (2500 × 838 / 1000 = 2095 cents).
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: payment.orderReference }) });
    assert.match(await row.innerText(), /XPF\s2,500.*€20\.95/s);

    await page.getByLabel('Search').fill(payment.orderReference);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/q=/);
    // The search finds the one payment (the list before it stays on screen until the answer comes).
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
    await table.getByRole('link', { name: payment.orderReference }).waitFor();
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.waitForURL((url) => !url.search.includes('q='));
    await page.getByLabel('Currency').selectOption('XPF');
    await page.getByLabel('Minimum amount').fill('2000');
    await page.getByLabel('Status').selectOption('captured');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/amountMin=2000/);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = await (await download.createReadStream()).toArray();
    const text = Buffer.concat(csv as Buffer[]).toString('utf8');
    assert.match(text, new RegExp(xpf));

    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByRole('link', { name: payment.orderReference }).click();
    await page.waitForURL(new RegExp(`/dashboard/payments/${xpf}$`));
  });

  it('payment detail: amounts, fees and timeline; Refund behind its confirmation; Resend of an event adds a delivery', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 5000, currency: 'XPF' });
    const page = await dashboard(`/payments/${id}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    assert.match(await page.locator('.amount-hero').innerText(), /XPF\s5,000.*€41\.90/s);
    await page.getByRole('table', { name: 'Motu fees on this payment' }).waitFor();
    await accessible(page, 'payment detail');

    const event = (await api('GET', `/api/v1/events?paymentId=${id}`)).body.data[0];
    const before = (await api('GET', `/api/v1/events/${event.id}/deliveries`)).body.data.length;
    await page.getByRole('listitem').filter({ has: page.locator(`[id="event-${event.id}"]`) }).getByRole('button', { name: 'Resend' }).click();
    await page.getByRole('status').filter({ hasText: 'The event is being delivered again.' }).waitFor();
    assert.equal((await api('GET', `/api/v1/events/${event.id}/deliveries`)).body.data.length, before + 1);

    await page.getByRole('button', { name: 'Refund' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this payment?' });
    await dialog.waitFor();
    await accessible(page, 'refund dialog');
    await dialog.getByLabel(/Amount to refund/).fill('1000');
    await dialog.getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('status').filter({ hasText: 'Refund requested.' }).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    const refunded = (await api('GET', `/api/v1/payments/${id}`)).body;
    assert.deepEqual([refunded.status, refunded.refundedAmount], ['partially_refunded', 1000]);
    await page.getByText('Refund', { exact: true }).first().waitFor();
  });

  it('developers: API key shown once then revoked; webhook endpoint added, disabled, enabled, deleted; signing secret; event log; test clocks', async () => {
    await paidPayment(t, m.testKey, { amount: 1500, currency: 'XPF' });
    const page = await dashboard('/developers');
    await page.getByRole('heading', { name: 'Developers', level: 1 }).waitFor();
    await page.getByLabel('Permission').selectOption('read');
    await page.getByRole('button', { name: 'Create a test key' }).click();
    const secret = await page.locator('.secret-box code').innerText();
    assert.match(secret, /^sk_test_/);
    const keys = page.getByRole('table', { name: 'API keys of this mode' });
    await keys.getByText(`sk_test_…${secret.slice(-4)}`).waitFor();
    assert.equal((await t.api(secret, 'GET', '/api/v1/payments')).status, 200, 'the key shown works');
    await accessible(page, 'developers: API keys');
    await page.getByRole('button', { name: `Revoke the key ending ${secret.slice(-4)}` }).click();
    await page.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('status').filter({ hasText: 'Key revoked.' }).waitFor();
    assert.equal((await t.api(secret, 'GET', '/api/v1/payments')).status, 401, 'the revoked key is refused');

    await page.getByRole('link', { name: 'Webhooks' }).click();
    const url = 'https://hooks.fare-ute.example/motu';
    await page.getByLabel('URL').fill(url);
    await page.getByLabel('Events', { exact: true }).fill('payment.*');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const endpoints = page.getByRole('table', { name: 'Webhook endpoints' });
    await endpoints.getByText(url).waitFor();
    await page.getByRole('button', { name: `Disable ${url}` }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint disabled.' }).waitFor();
    await endpoints.getByText('Disabled').waitFor();
    await page.getByRole('button', { name: `Re-enable ${url}` }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint enabled.' }).waitFor();
    await endpoints.getByText('Enabled').waitFor();
    const stored = (await api('GET', '/api/v1/webhook-endpoints')).body.data;
    assert.deepEqual(stored.map((e: { url: string; events: string[]; enabled: boolean }) => [e.url, e.events, e.enabled]), [[url, ['payment.*'], true]]);
    await page.getByRole('button', { name: 'Reveal' }).click();
    assert.equal(await page.locator('.secret-box code').innerText(), m.testWebhookSecret);
    await accessible(page, 'developers: webhooks');
    await page.getByRole('button', { name: `Delete ${url}` }).click();
    await page.getByRole('dialog', { name: 'Delete this endpoint?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No endpoint yet', { exact: false }).waitFor();

    await page.getByRole('link', { name: 'Event log' }).click();
    const events = page.getByRole('table', { name: 'Events, newest first' });
    await events.waitFor();
    await accessible(page, 'developers: event log');
    const first = (await api('GET', '/api/v1/events?limit=1')).body.data[0];
    const before = (await api('GET', `/api/v1/events/${first.id}/deliveries`)).body.data.length;
    const row = events.getByRole('row').filter({ has: page.locator(`[id="event-${first.id}"]`) });
    await row.getByRole('button', { name: 'Show deliveries' }).click();
    await row.getByRole('button', { name: 'Resend' }).click();
    await page.getByRole('status').filter({ hasText: 'The event is being delivered again.' }).waitFor();
    assert.equal((await api('GET', `/api/v1/events/${first.id}/deliveries`)).body.data.length, before + 1);

    await page.getByRole('link', { name: 'Test clocks' }).click();
    await page.getByLabel('Name').fill('Renewals');
    await page.getByLabel('Frozen time').fill('2027-01-31T12:00');
    await page.getByRole('button', { name: 'Create test clock' }).click();
    const clocks = page.getByRole('table', { name: 'Test clocks' });
    await clocks.getByRole('cell', { name: 'Renewals', exact: true }).waitFor();
    await accessible(page, 'developers: test clocks');
    await page.getByLabel('Advance Renewals to').fill('2027-03-01T12:00');
    await page.getByRole('button', { name: 'Advance' }).click();
    await page.getByRole('status').filter({ hasText: 'The clock is advancing.' }).waitFor();
    const clock = (await api('GET', '/api/v1/test-helpers/test-clocks')).body.data[0];
    // The merchant's time zone (Pacific/Tahiti by default, UTC−10) is the one typed in.
    assert.equal(clock.advancingTo ?? clock.frozenTime, '2027-03-01T22:00:00.000Z');
  });

  it('settings: branding and legal identity, payout schedule, team (invite with its link, role, removal), team activity', async () => {
    const page = await dashboard('/settings');
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.getByLabel('Display name').fill('Fare Ute Papeete');
    await page.getByRole('button', { name: 'Save branding' }).click();
    await page.locator('.merchant-name').filter({ hasText: 'Fare Ute Papeete' }).waitFor();
    await page.getByLabel('Legal name').fill('Fare Ute SARL');
    await page.getByLabel('Address', { exact: true }).fill('Rue du Commandant Destremau');
    await page.getByLabel('Postal code').fill('98713');
    await page.getByLabel('City').fill('Papeete');
    await page.getByLabel('Country').fill('PF');
    await Promise.all([answered(page, 'PATCH', '/dashboard/api/settings'), page.getByRole('button', { name: 'Save legal identity' }).click()]);
    const merchant = (await t.admin('GET', `/admin/v1/merchants/${m.id}`)).body;
    assert.equal(merchant.displayName, 'Fare Ute Papeete');
    assert.equal(merchant.legalName, 'Fare Ute SARL');
    assert.equal(merchant.address.city, 'Papeete');
    await accessible(page, 'settings: business');

    await page.getByRole('link', { name: 'Payout schedule' }).click();
    await page.getByLabel('Automatic payouts').selectOption('weekly');
    await page.getByLabel('Day of the week').selectOption('friday');
    await Promise.all([answered(page, 'PATCH', '/api/v1/payout-schedule'), page.getByRole('button', { name: 'Save' }).click()]);
    const schedule = (await api('GET', '/api/v1/payout-schedule')).body;
    assert.deepEqual([schedule.interval, schedule.weeklyAnchor], ['weekly', 'friday']);
    await accessible(page, 'settings: payout schedule');

    await page.getByRole('link', { name: 'Team', exact: true }).click();
    await page.getByLabel('Email').fill('dev@fare-ute.example');
    await page.getByLabel('Role', { exact: true }).selectOption('developer');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = await page.locator('.secret-box code').innerText();
    assert.match(link, new RegExp(`^${suite.baseUrl}/dashboard/setup/`));
    const team = page.getByRole('table', { name: 'Team members' });
    await team.getByRole('cell', { name: 'dev@fare-ute.example', exact: true }).waitFor();
    await accessible(page, 'settings: team');
    await page.getByLabel('Role of dev@fare-ute.example').selectOption('analyst');
    await page.getByRole('status').filter({ hasText: 'dev@fare-ute.example is now Analyst.' }).waitFor();
    await page.getByRole('button', { name: 'Remove dev@fare-ute.example' }).click();
    await page.getByRole('dialog', { name: 'Remove this team member?' }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('status').filter({ hasText: 'Team member removed.' }).waitFor();
    assert.deepEqual((await t.admin('GET', `/admin/v1/merchants/${m.id}/users`)).body.data.map((u: { email: string }) => u.email), [EMAIL]);

    await page.getByRole('link', { name: 'Team activity' }).click();
    const activity = page.getByRole('table', { name: /Changes made from the back-office/ });
    await activity.waitFor();
    assert.ok(await activity.getByRole('cell', { name: EMAIL }).count() > 3, 'every change above is in the audit log, with its author');
    await accessible(page, 'settings: team activity');
  });

  it('the TEST/LIVE switch changes the mode of every page (live data apart), and back', async () => {
    await paidPayment(t, m.testKey, { amount: 700, currency: 'XPF' });
    const page = await dashboard('/payments');
    await page.getByRole('table', { name: 'Payments, newest first' }).waitFor();
    await page.getByRole('switch', { name: 'Live mode' }).click();
    await page.locator('.mode-badge').filter({ hasText: 'LIVE' }).waitFor();
    await page.getByText('No live payment yet.').waitFor();
    assert.equal(await page.getByRole('switch', { name: 'Live mode' }).getAttribute('aria-checked'), 'true');
    await accessible(page, 'payments in live mode');
    await page.reload();
    await page.locator('.mode-badge').filter({ hasText: 'LIVE' }).waitFor();
    await page.getByRole('switch', { name: 'Live mode' }).click();
    await page.locator('.mode-badge').filter({ hasText: 'TEST' }).waitFor();
    await page.getByRole('table', { name: 'Payments, newest first' }).waitFor();
  });

  it('two-factor: enrolled from the QR code and a first code, recovery codes shown once; sign-in then asks a code (a recovery code works)', async () => {
    const page = await dashboard('/settings/two-factor');
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await page.getByRole('img', { name: 'QR code of your two-factor secret' }).waitFor();
    await accessible(page, 'settings: two-factor enrolment');
    const secret = await page.locator('.totp-secret').innerText();
    const totp = () => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate();
    await page.getByLabel('Authentication code').fill(totp());
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await codes.first().waitFor();
    assert.equal(await codes.count(), 10);
    const recovery = await codes.first().innerText();
    await page.getByText('Two-factor authentication is on: signing in asks', { exact: false }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The code just used to enrol may not sign in again (its time step is spent): a recovery code does, once.
    await page.getByLabel('Authentication code').fill(recovery);
    await accessible(page, 'sign-in asking the code');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  });

  it('the language switch: French labels, remembered in this browser', async () => {
    const page = await dashboard('/payments');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('fr');
    await page.getByRole('heading', { name: 'Paiements', level: 1 }).waitFor();
    assert.equal(await page.getAttribute('html', 'lang'), 'fr');
    await page.reload();
    await page.getByRole('link', { name: 'Paramètres' }).waitFor();
    await accessible(page, 'payments in French');
    await page.getByRole('combobox', { name: 'Langue' }).selectOption('en');
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
  });

  it('ten wrong passwords lock the account: the page says for how many minutes, even with the right password', async () => {
    const created = await t.admin('POST', `/admin/v1/merchants/${m.id}/users`, { email: 'support@fare-ute.example', role: 'support' });
    const token = new URL(created.body.setupUrl).pathname.split('/').pop();
    const setup = await fetch(`${suite.baseUrl}/dashboard/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password: PASSWORD }) });
    assert.equal(setup.status, 200);
    const signIn = (password: string) => fetch(`${suite.baseUrl}/dashboard/api/sign-in`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'support@fare-ute.example', password }),
    });
    // The tenth wrong password is refused as such or already as a lock, as the service counts it.
    for (let i = 0; i < 10; i++) assert.ok([401, 429].includes((await signIn(`wrong password ${i}`)).status));
    const { context, page } = await newPage(suite.browser, { locale: 'en-US' });
    try {
      await page.goto(`${suite.baseUrl}/dashboard/sign-in`);
      await page.getByLabel('Email').fill('support@fare-ute.example');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: /this account is locked\. Try again in 15 minutes/ }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('at 390 px: the navigation is a menu button, no page scrolls sideways, and the skip link leads to the page', async () => {
    assert.ok(signedIn);
    const paymentId = await paidPayment(t, m.testKey, { amount: 900, currency: 'XPF' });
    const page = await signedIn.context.newPage();
    try {
      await page.setViewportSize(PHONE);
      await page.goto(`${suite.baseUrl}/dashboard/payments`);
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'main', 'the skip link moves focus to the page');
      assert.equal(await page.getByRole('link', { name: 'Settings' }).isVisible(), false);
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Payments' }).isVisible(), false, 'the menu closes on navigation');
      await accessible(page, 'settings at 390 px');
      const paths = ['/payments', `/payments/${paymentId}`, '/developers', '/developers/webhooks', '/developers/events', '/developers/test-clocks',
        '/settings', '/settings/payouts', '/settings/team', '/settings/two-factor', '/settings/activity'];
      for (const path of paths) {
        // Inside the application, as its links do (a full load of each page would only measure the bundle's parsing).
        await page.evaluate((to) => {
          history.pushState(null, '', to);
          dispatchEvent(new PopStateEvent('popstate'));
        }, `/dashboard${path}`);
        await page.locator('h1').waitFor();
        await page.waitForFunction(() => !document.querySelector('.loading'));
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow} px at 390 px`);
      }
      await accessible(page, 'team activity at 390 px');
    } finally {
      await page.close();
    }
  });
});
