// A live payment on the hosted checkout in Chromium, with Monext's widget: the page asks Motu for a widget session,
// mounts the widget (a stand-in served by the fake Monext at MOTU_MONEXT_WIDGET_URL: Monext's own script cannot load
// here), the cardholder pays in it, the page sends the token, the customer is back at the shop. The page's CSP lets the
// widget load and call its origin, and nothing else (no CSP violation). Both databases.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { newPage } from './support/browser.js';
import { FAKE_MONEXT_CREDENTIALS, FakeMonext, MONEXT_CARDS } from './support/fake-monext.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

const SHOP = 'https://shop.example';

eachDatabase('a live payment in Monext’s widget, in a browser', (dialect) => {
  const fake = new FakeMonext();
  before(async () => { await fake.start(); });
  after(async () => { await fake.stop(); });
  const suite = withMerchantApp(dialect, {
    serve: true, browser: true, merchantName: 'Widget Shop',
    env: () => ({ MOTU_MONEXT_API_URL: fake.url, MOTU_MONEXT_WIDGET_URL: fake.url }),
  });
  const { t, m } = suite;

  it('pays in the widget and returns to the shop, with no CSP violation', async () => {
    const connected = await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, {
      acquirer: 'monext', monext: { ...FAKE_MONEXT_CREDENTIALS, environment: 'homologation' },
    });
    assert.equal(connected.status, 200, JSON.stringify(connected.body));
    const s = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { reference: 'CMD-9', amount: 1000, currency: 'EUR' }, captureMode: 'MANUAL', email: 'client@example.com', languageCode: 'en',
      redirectUrl: `${SHOP}/return`, notificationUrl: `${SHOP}/hook`,
    });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    const { context, page } = await newPage(suite.browser);
    const violations: string[] = [];
    page.on('console', (msg) => { if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text()); });
    await context.route(`${SHOP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Shop</h1>' }));
    const response = await page.goto(s.body.checkoutUrl);
    const csp = response!.headers()['content-security-policy']!;
    assert.match(csp, /script-src 'self' [^;]*https:\/\/payment\.cdn\.payline\.com/);
    assert.ok(csp.includes(fake.url), csp);
    assert.equal(await page.locator('#frame-number').count(), 0, "no Motu card field in live mode");
    await page.getByRole('button', { name: 'Pay €10.00' }).click();
    await page.getByLabel('Card number').fill(MONEXT_CARDS.cb);
    await page.getByRole('button', { name: 'Pay in widget' }).click();
    await page.waitForURL(`${SHOP}/**`);
    assert.equal(new URL(page.url()).searchParams.get('status'), 'success');
    const p = (await t.api(m.liveKey, 'GET', `/api/v1/payments/${s.body.paymentId}`)).body;
    assert.equal(p.status, 'transit');
    assert.equal(p.attempts[0].network, 'CB');
    assert.deepEqual(violations, []);
    await context.close();
  });
});
