// The wallet pages and the web SDK in a real browser (Debian's Chromium via playwright-core). The merchant's
// page is served by a second server on another 127.0.0.1 port: a foreign origin, as in production.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { fillCard, newPage } from './support/browser.js';
import { freePort } from './support/ports.js';
import { createCustomer } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { CARDS } from './support/cards.js';

/** The merchant's own page: the SDK mounted in #pay, the merchant's own button calling submit(). */
function merchantPage(base: string, sessionId: string, defi3ds: string, appearance = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
<script src="${base}/sdk/v1/motu.js"></script></head>
<body style="background:#ffffff;color:#000000"><h1>Checkout</h1><div id="pay"></div><button id="merchant-pay">Buy now</button>
<script>
  function note(entry) { var all = JSON.parse(sessionStorage.getItem('log') || '[]'); all.push(entry); sessionStorage.setItem('log', JSON.stringify(all)); }
  Service.mount({
    session: ${JSON.stringify(sessionId)}, container: '#pay', defi3ds: ${JSON.stringify(defi3ds)}, title: 'Your card', ${appearance}
    onReady: function (info) { note(['ready', info.intent, info.amount]); },
    onError: function (err) { note(['error', err.code, err.message]); },
    onSuccess: function (info) { note(['success', info.intent, window.controller.cardNetwork(), info.paymentId || info.paymentMethodId || null]); }
  }).then(function (c) {
    window.controller = c;
    note(['mounted', c.intent, c.amount]);
    document.getElementById('merchant-pay').addEventListener('click', function () { c.submit(); });
  }, function (e) { note(['rejected', e.code]); });
</script></body></html>`;
}

eachDatabase('wallet and SDK in a browser', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  let shop: Server;
  let shopUrl: string;
  const pages = new Map<string, string>();

  // The merchant's site, on another port: its pages are set by each test.
  before(async () => {
    const port = await freePort();
    shopUrl = `http://127.0.0.1:${port}`;
    shop = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      const body = pages.get(path) ?? '<!doctype html><title>Back at the shop</title><h1>Back at the shop</h1>';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    });
    await new Promise<void>((resolve) => shop.listen(port, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise((resolve) => shop?.close(resolve));
  });

  async function paymentSession(extra: Record<string, unknown> = {}) {
    const res = await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', {
      order: { reference: 'CMD-9', amount: 2500, currency: 'EUR' }, redirectUrl: `${shopUrl}/return?cart=3`,
      notificationUrl: 'https://merchant.example/hooks', email: 'client@example.com', ...extra,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { sessionId: string; paymentId: string };
  }

  async function openMerchant(sessionId: string, defi3ds: string, options: { colorScheme?: 'light' | 'dark'; appearance?: string } = {}) {
    const path = `/pay-${sessionId}`;
    pages.set(path, merchantPage(suite.baseUrl, sessionId, defi3ds, options.appearance ?? ''));
    const { context, page } = await newPage(suite.browser, { colorScheme: options.colorScheme });
    await page.goto(`${shopUrl}${path}`);
    await page.waitForFunction(() => (sessionStorage.getItem('log') ?? '').includes('mounted'));
    return { context, page };
  }

  const log = async (page: Page): Promise<unknown[][]> => JSON.parse((await page.evaluate(() => sessionStorage.getItem('log'))) ?? '[]');

  async function close(context: BrowserContext) {
    await context.close();
  }

  it('wallet session end to end: the hosted page saves the card, back with status=success and paymentMethodId', async () => {
    const customerId = await createCustomer(t, m.testKey);
    const res = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: `${shopUrl}/cards?from=wallet`, locale: 'fr' });
    const { context, page } = await newPage(suite.browser);
    await page.goto(res.body.redirectUrl);
    await page.getByRole('button', { name: 'Enregistrer la carte' }).waitFor();
    await fillCard(page, CARDS.visa, 'fr');
    await page.getByRole('button', { name: 'Enregistrer la carte' }).click();
    await page.waitForURL(/\/cards\?/);
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('from'), 'wallet');
    assert.equal(url.searchParams.get('status'), 'success');
    const pm = url.searchParams.get('paymentMethodId');
    assert.match(pm ?? '', /^pm_/);
    const read = await t.api(m.testKey, 'GET', `/api/v1/payment-methods/${pm}`);
    assert.equal(read.body.customerId, customerId);
    assert.equal(read.body.last4, '4242');
    // the completed session: the page is gone for good
    await page.goto(res.body.redirectUrl);
    assert.match(page.url(), /\/expired/);
    await close(context);
  });

  it('wallet session in English: a refused verification returns status=failed without paymentMethodId', async () => {
    const customerId = await createCustomer(t, m.testKey);
    const res = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: `${shopUrl}/cards`, locale: 'en' });
    const { context, page } = await newPage(suite.browser);
    await page.goto(res.body.redirectUrl);
    await page.getByRole('button', { name: 'Save card' }).waitFor();
    await fillCard(page, CARDS.declined, 'en');
    await page.getByRole('button', { name: 'Save card' }).click();
    await page.waitForURL(/\/cards\?/);
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('status'), 'failed');
    assert.equal(url.searchParams.get('paymentMethodId'), null);
    await close(context);
  });

  it('a card link: the same page, then our own result page when the link has no returnUrl', async () => {
    const customerId = await createCustomer(t, m.testKey);
    const link = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/card-links`, {});
    assert.equal(link.status, 201);
    const { context, page } = await newPage(suite.browser);
    await page.goto(link.body.url);
    await fillCard(page, CARDS.mastercard, 'fr');
    await page.getByRole('button', { name: 'Enregistrer la carte' }).click();
    await page.getByText('Votre carte est enregistrée.').waitFor();
    const read = await t.api(m.testKey, 'GET', `/api/v1/card-links/${link.body.id}`);
    assert.equal(read.body.status, 'completed');
    assert.match(read.body.paymentMethodId, /^pm_/);
    await close(context);
  });

  it('the component on a foreign origin, defi3ds embarque: 3-D Secure in a frame inside the component, submit() from the merchant button', async () => {
    const s = await paymentSession();
    const { context, page } = await openMerchant(s.sessionId, 'embarque');
    assert.deepEqual((await log(page)).find((e) => e[0] === 'ready'), ['ready', 'payment', 2500]);
    // no button of our own; the three secure frames, the terms and the footer
    const component = page.locator('.motu-component');
    assert.equal(await component.locator('button').count(), 0);
    assert.equal(await component.locator('iframe.field').count(), 3);
    assert.match(await component.locator('.terms').innerText(), /Fare Ute/);
    assert.match(await component.locator('footer').innerText(), /Motu/);
    assert.equal(await component.locator('.title').innerText(), 'Your card');
    await fillCard(page, CARDS.challenge, 'fr');
    await page.click('#merchant-pay');
    const bank = page.frameLocator('.motu-component iframe[title="Authentification 3-D Secure"]');
    await bank.getByRole('button', { name: 'Authentifier' }).click();
    await page.waitForURL(/\/return\?/);
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('status'), 'success');
    assert.equal(url.searchParams.get('paymentId'), s.paymentId);
    assert.equal(url.searchParams.get('cart'), '3');
    const entries = await log(page);
    assert.ok(entries.some((e) => e[0] === 'success' && e[1] === 'payment' && e[3] === s.paymentId), JSON.stringify(entries));
    const payment = await t.api(m.testKey, 'GET', `/api/v1/payments/${s.paymentId}`);
    assert.equal(payment.body.status, 'captured');
    // the session is complete: the browser is refused now
    const again = await t.api(undefined, 'GET', `/api/v1/sdk/sessions/${s.sessionId}`);
    assert.equal(again.status, 410);
    await close(context);
  });

  it('embarque: a failed authentication is onError PAIEMENT_REFUSE, the page stays and another card can pay', async () => {
    const s = await paymentSession();
    const { context, page } = await openMerchant(s.sessionId, 'embarque');
    await fillCard(page, CARDS.challenge, 'fr');
    await page.click('#merchant-pay');
    await page.frameLocator('.motu-component iframe[title="Authentification 3-D Secure"]').getByRole('button', { name: "Faire échouer l'authentification" }).click();
    await page.waitForFunction(() => (sessionStorage.getItem('log') ?? '').includes('PAIEMENT_REFUSE'));
    assert.match(new URL(page.url()).pathname, /^\/pay-/);
    assert.equal(await page.locator('.motu-component .challenge').isHidden(), true);
    const failed = await t.api(m.testKey, 'GET', `/api/v1/payments/${s.paymentId}`);
    assert.equal(failed.body.status, 'failed');
    assert.equal(failed.body.refusalCode, 'authentication_failed');
    await fillCard(page, CARDS.visa, 'fr');
    await page.click('#merchant-pay');
    await page.waitForURL(/\/return\?/);
    assert.equal((await t.api(m.testKey, 'GET', `/api/v1/payments/${s.paymentId}`)).body.status, 'captured');
    await close(context);
  });

  it('defi3ds redirection: the whole page goes to the bank and comes back to redirectUrl through /checkout/success', async () => {
    const s = await paymentSession();
    const { context, page } = await openMerchant(s.sessionId, 'redirection');
    const visited: string[] = [];
    page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname); });
    await fillCard(page, CARDS.challenge, 'fr');
    await page.click('#merchant-pay');
    await page.waitForURL(/\/acquirer\/v1\/3ds\//);
    await page.getByRole('button', { name: 'Authentifier' }).click();
    await page.waitForURL(/\/return\?/);
    assert.equal(new URL(page.url()).searchParams.get('status'), 'success');
    // The path a mobile app's web view watches comes before the merchant's page.
    assert.ok(visited.indexOf('/checkout/success') >= 0 && visited.indexOf('/checkout/success') < visited.indexOf('/return'), visited.join(' → '));
    assert.equal((await t.api(m.testKey, 'GET', `/api/v1/payments/${s.paymentId}`)).body.status, 'captured');
    await close(context);
  });

  it('cardNetwork() is CB for a co-badged card as soon as the number shows it, before submit()', async () => {
    const s = await paymentSession();
    const { context, page } = await openMerchant(s.sessionId, 'embarque');
    const network = () => page.evaluate(() => (window as any).controller.cardNetwork() as string | null);
    const numberFrame = page.frameLocator('iframe[title="Numéro de carte"]');
    const numberInput = numberFrame.getByLabel('Numéro de carte');
    assert.equal(await network(), null, 'nothing typed yet');
    // The brand alone is known from the first digit; the co-badged BIN needs six.
    await numberInput.fill('4970');
    await page.waitForFunction(() => (window as any).controller.cardNetwork() === 'VISA');
    await numberInput.fill('497010');
    await page.waitForFunction(() => (window as any).controller.cardNetwork() === 'CB');
    assert.equal(await numberFrame.locator('#brand').textContent(), 'CB · VISA');
    // A co-badged Mastercard, then a plain Visa: CB only for the co-badged ranges.
    await numberInput.fill('5131000000000001');
    await page.waitForFunction(() => (window as any).controller.cardNetwork() === 'CB');
    assert.equal(await numberFrame.locator('#brand').textContent(), 'CB · MASTERCARD');
    await numberInput.fill(CARDS.visa);
    await page.waitForFunction(() => (window as any).controller.cardNetwork() === 'VISA');
    assert.equal(await network(), 'VISA');
    await fillCard(page, CARDS.cbVisa, 'fr');
    await page.waitForFunction(() => (window as any).controller.cardNetwork() === 'CB');
    assert.equal(await network(), 'CB', 'CB before submit()');
    const badge = await page.evaluate(() => document.querySelector('.motu-component')!.shadowRoot!.querySelector('.badge')!.textContent);
    assert.equal(badge, 'CB', 'the component shows the network it will use');
    await page.click('#merchant-pay');
    await page.waitForURL(/\/return\?/);
    const success = (await log(page)).find((e) => e[0] === 'success');
    assert.equal(success?.[2], 'CB');
    assert.equal((await t.api(m.testKey, 'GET', `/api/v1/payments/${s.paymentId}`)).body.cardNetwork ?? 'CB', 'CB');
    await close(context);
  });

  it('a wallet session through the component: intent tokenization, amount null', async () => {
    const customerId = await createCustomer(t, m.testKey);
    const res = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: `${shopUrl}/saved` });
    const { context, page } = await openMerchant(res.body.sessionId, 'embarque');
    assert.deepEqual((await log(page)).find((e) => e[0] === 'mounted'), ['mounted', 'tokenization', null]);
    await fillCard(page, CARDS.visa, 'fr');
    await page.click('#merchant-pay');
    await page.waitForURL(/\/saved\?/);
    assert.equal(new URL(page.url()).searchParams.get('status'), 'success');
    await close(context);
  });

  it('error codes: NAVIGATEUR_INCOMPATIBLE, AUTHENTIFICATION_NON_DEMARREE after 90 s, invalid card, expired session', async () => {
    // the acquirer judges the browser unfit
    const s1 = await paymentSession();
    const a = await openMerchant(s1.sessionId, 'embarque');
    await fillCard(a.page, CARDS.browserUnfit, 'fr');
    await a.page.click('#merchant-pay');
    await a.page.waitForFunction(() => (sessionStorage.getItem('log') ?? '').includes('NAVIGATEUR_INCOMPATIBLE'));
    assert.match(await a.page.locator('.motu-component .error').innerText(), /page de paiement hébergée/);
    // an invalid card never leaves the fields
    await a.page.frameLocator('iframe[title="Numéro de carte"]').getByLabel('Numéro de carte').fill('4242 4242 4242 4241');
    await a.page.click('#merchant-pay');
    await a.page.waitForFunction(() => (sessionStorage.getItem('log') ?? '').includes('CARTE_INVALIDE'));
    await close(a.context);

    // redirection that never starts: the bank page answers 204, the page stays; 90 s later the error
    const s2 = await paymentSession();
    const path = `/pay-${s2.sessionId}`;
    pages.set(path, merchantPage(suite.baseUrl, s2.sessionId, 'redirection'));
    const { context, page } = await newPage(suite.browser);
    await page.clock.install();
    await context.route(`${suite.baseUrl}/acquirer/v1/3ds/**`, (route) => route.fulfill({ status: 204, body: '' }));
    await page.goto(`${shopUrl}${path}`);
    await page.waitForFunction(() => (sessionStorage.getItem('log') ?? '').includes('mounted'));
    await fillCard(page, CARDS.challenge, 'fr');
    await page.click('#merchant-pay');
    await page.waitForTimeout(1500);
    assert.equal(new URL(page.url()).pathname, path);
    assert.ok(!(await log(page)).some((e) => e[1] === 'AUTHENTIFICATION_NON_DEMARREE'));
    await page.clock.fastForward(91_000);
    await page.waitForFunction(() => (sessionStorage.getItem('log') ?? '').includes('AUTHENTIFICATION_NON_DEMARREE'));
    await close(context);

    // a completed session cannot be mounted
    const s3 = await paymentSession();
    await t.api(m.testKey, 'POST', `/api/v1/payments/${s3.paymentId}/cancel`);
    pages.set(`/pay-${s3.sessionId}`, merchantPage(suite.baseUrl, s3.sessionId, 'embarque'));
    const c = await newPage(suite.browser);
    await c.page.goto(`${shopUrl}/pay-${s3.sessionId}`);
    await c.page.waitForFunction(() => (sessionStorage.getItem('log') ?? '').includes('rejected'));
    const entries = await log(c.page);
    // onError once, with the session's own code, and mount() rejects with that code (never a network error after it).
    assert.deepEqual(entries.filter((e) => e[0] === 'error').map((e) => e[1]), ['SESSION_EXPIREE'], JSON.stringify(entries));
    assert.deepEqual(entries.find((e) => e[0] === 'rejected'), ['rejected', 'SESSION_EXPIREE']);
    // an unknown session likewise
    const unknown = 'ses_0000000000unknown000';
    pages.set(`/pay-${unknown}`, merchantPage(suite.baseUrl, unknown, 'embarque'));
    await c.page.evaluate(() => sessionStorage.clear());
    await c.page.goto(`${shopUrl}/pay-${unknown}`);
    await c.page.waitForFunction(() => (sessionStorage.getItem('log') ?? '').includes('rejected'));
    const unknownEntries = await log(c.page);
    assert.deepEqual(unknownEntries.filter((e) => e[0] === 'error').map((e) => e[1]), ['SESSION_INCONNUE'], JSON.stringify(unknownEntries));
    assert.deepEqual(unknownEntries.find((e) => e[0] === 'rejected'), ['rejected', 'SESSION_INCONNUE']);
    await close(c.context);
  });

  it('dark mode inside the component only; merchant colours applied', async () => {
    const s = await paymentSession();
    const { context, page } = await openMerchant(s.sessionId, 'embarque', { colorScheme: 'dark' });
    const bg = await page.locator('.motu-component .motu').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(bg, 'rgb(17, 24, 39)');
    const pageBg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(pageBg, 'rgb(255, 255, 255)');
    await close(context);

    const light = await openMerchant((await paymentSession()).sessionId, 'embarque', { colorScheme: 'light' });
    assert.equal(await light.page.locator('.motu-component .motu').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 255, 255)');
    await close(light.context);

    const themed = await openMerchant((await paymentSession()).sessionId, 'embarque', { colorScheme: 'dark', appearance: "appearance: { colorBackground: '#fef3c7', colorPrimary: '#b45309' }," });
    assert.equal(await themed.page.locator('.motu-component .motu').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(254, 243, 199)');
    await close(themed.context);
  });
});
