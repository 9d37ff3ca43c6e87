// A live payment on the hosted checkout in Chromium, with Monext's widget: the page asks Motu for a widget session,
// mounts the widget (a stand-in served by the fake Monext under Monext's own homologation hosts, routed to the fake:
// Monext's script cannot load here), the cardholder pays in it, the page sends the token, the customer is back at the
// shop. The stand-in loads its script and style from Monext's CDN, a font and an image from its payment host, and
// calls its second payment host, with an inline stylesheet, as Monext's widget does: a page whose CSP forgets one of
// them reports a violation and the test fails. Both databases.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { newPage } from './support/browser.js';
import { cspWithWidget } from '../src/http/csp.js';
import { monextCsp } from '../src/acquirer/monext/monext.config.js';
import { FAKE_MONEXT_CREDENTIALS, FakeMonext, MONEXT_CARDS } from './support/fake-monext.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createCustomer } from './support/factories.js';

const SHOP = 'https://shop.example';

eachDatabase('a live payment in Monext’s widget, in a browser', (dialect) => {
  const fake = new FakeMonext();
  before(async () => { await fake.start(); });
  after(async () => { await fake.stop(); });
  const suite = withMerchantApp(dialect, {
    serve: true, browser: true, merchantName: 'Widget Shop',
    env: () => ({ MOTU_MONEXT_API_URL: fake.url }),
  });
  const { t, m } = suite;

  /** What the stand-in widget fetched from Monext's hosts since `from` (its requests as the fake saw them). */
  const widgetLoads = (from: number) => fake.requests.slice(from).map((r) => `${r.method} ${r.path}`)
    .filter((x) => /^(GET \/(cdn|fonts|images)\/|POST \/_widget\/)/.test(x)).sort();
  const ALL_LOADS = ['GET /cdn/scripts/widget-min.js', 'GET /cdn/styles/widget-min.css', 'GET /fonts/widget.woff2', 'GET /images/cards.png', 'POST /_widget/pay'].sort();

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
    await fake.standInHosts(context);
    const from = fake.requests.length;
    const response = await page.goto(s.body.checkoutUrl);
    const csp = response!.headers()['content-security-policy']!;
    assert.match(csp, /script-src 'self' [^;]*https:\/\/payment\.cdn\.payline\.com/);
    assert.match(csp, /font-src [^;]*https:\/\/payment-2\.payline\.com/);
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
    assert.deepEqual(widgetLoads(from), ALL_LOADS, 'script, style, font, image and call from Monext\'s hosts');
    await context.close();
  });

  it("the SDK component mounts Monext's widget on the merchant's page, under the documented CSP", async () => {
    const s = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { reference: 'CMD-10', amount: 1500, currency: 'EUR' }, captureMode: 'AUTO', email: 'client@example.com', languageCode: 'en',
      redirectUrl: `${SHOP}/return`, notificationUrl: `${SHOP}/hook`,
    });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    const { context, page } = await newPage(suite.browser);
    const violations: string[] = [];
    page.on('console', (msg) => { if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text()); });
    // docs/sdk.md, section 4: Motu's origin and Monext's homologation origins, a nonce for the page's own script.
    const csp = cspWithWidget([
      ['default-src', "'none'"], ['script-src', "'nonce-abc123'", suite.baseUrl], ['style-src', "'self'", suite.baseUrl],
      ['connect-src', "'self'", suite.baseUrl], ['frame-src', suite.baseUrl], ['img-src', "'self'", 'data:', suite.baseUrl],
    ], monextCsp(['homologation']));
    const html = `<!doctype html><html><body><div id="pay"></div><script nonce="abc123" src="${suite.baseUrl}/sdk/v1/motu.js"></script>
<script nonce="abc123">Service.mount({ session: '${s.body.sessionId}', container: '#pay', defi3ds: 'embarque',
  onReady: function () { window.ready = true; }, onError: function (e) { window.failed = e.code; },
  onSuccess: function (info) { window.paid = info.paymentId; } });</script></body></html>`;
    // The merchant's page, on its own loopback server (Chromium lets a loopback page call Motu's loopback origin).
    const shop = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': csp }); res.end(html); });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    const shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    await context.route(`${SHOP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Shop</h1>' }));
    await fake.standInHosts(context);
    const from = fake.requests.length;
    await page.goto(`${shopUrl}/checkout`);
    await page.waitForFunction(() => (window as any).ready === true);
    await page.getByLabel('Card number').fill(MONEXT_CARDS.visa);
    await page.getByRole('button', { name: 'Pay in widget' }).click();
    await page.waitForURL(`${SHOP}/**`);
    const p = (await t.api(m.liveKey, 'GET', `/api/v1/payments/${s.body.paymentId}`)).body;
    assert.equal(p.status, 'captured');
    assert.deepEqual(violations, []);
    assert.deepEqual(widgetLoads(from), ALL_LOADS);
    await context.close();
    shop.closeAllConnections();
    await new Promise<void>((resolve) => shop.close(() => resolve()));
  });

  it('registers a card on the hosted wallet page through the widget (zero amount), with no CSP violation', async () => {
    const customerId = await createCustomer(t, m.liveKey);
    const ws = await t.api(m.liveKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: `${SHOP}/wallet` });
    assert.equal(ws.status, 201, JSON.stringify(ws.body));
    const { context, page } = await newPage(suite.browser, { locale: 'en-US' });
    const violations: string[] = [];
    page.on('console', (msg) => { if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text()); });
    await context.route(`${SHOP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Shop</h1>' }));
    await fake.standInHosts(context);
    const from = fake.requests.length;
    await page.goto(ws.body.redirectUrl);
    await page.getByLabel('Card number').fill(MONEXT_CARDS.visa);
    await page.getByRole('button', { name: 'Pay in widget' }).click();
    await page.waitForURL(`${SHOP}/**`);
    const saved = (await t.api(m.liveKey, 'GET', `/api/v1/customers/${customerId}/payment-methods`)).body.data;
    assert.equal(saved.length, 1);
    const started = fake.requests.filter((r) => r.path === '/v1/checkout/payments/sessions').at(-1)!;
    assert.equal(started.body.order.amount, 0);
    assert.equal(started.body.payment.paymentType, 'ACCOUNT_VERIFICATION');
    assert.deepEqual(violations, []);
    assert.deepEqual(widgetLoads(from), ALL_LOADS);
    await context.close();
  });
});
