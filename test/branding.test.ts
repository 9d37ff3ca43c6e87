// Merchant branding: the admin route (and its #rrggbb validation), the checkout page's server-rendered theme
// (CSP hash, text colour by luminance), and, in a real browser, the Pay button and the SDK component painted in
// the merchant's colour, while a merchant without colours keeps the default theme.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, it, test } from 'node:test';
import { contrast, textOn } from '../src/modules/merchants/branding.js';
import { newPage } from './support/browser.js';
import { freePort } from './support/ports.js';
import { createMerchant, createCustomer } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createSession } from './support/payments.js';

test('text on the primary colour: white or dark, whichever reads better (WCAG luminance)', () => {
  assert.equal(textOn('#0f766e'), '#ffffff');
  assert.equal(textOn('#1d4ed8'), '#ffffff');
  assert.equal(textOn('#fde047'), '#111827');
  assert.equal(textOn('#ffffff'), '#111827');
  assert.equal(textOn('#000000'), '#ffffff');
  // Worked by hand: #777777 has luminance 0.1845; against white (1.05/0.2345) 4.48, against #111827 (0.0129) 3.73:
  // neither reaches AA, pure black does (0.2345/0.05 = 4.69).
  assert.equal(textOn('#777777'), '#000000');
  assert.ok(Math.abs(contrast('#777777', '#ffffff') - 4.48) < 0.01);
  for (const c of ['#0f766e', '#fde047', '#ff0000', '#00ff00', '#808080', '#7c3aed']) assert.ok(contrast(c, textOn(c)) >= 4.5, c);
});

test('the text on any merchant colour reads at 4.5:1 at least (WCAG AA): every grey and a grid of colours', () => {
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  const colours: string[] = [];
  for (let v = 0; v < 256; v += 1) colours.push(`#${hex(v)}${hex(v)}${hex(v)}`);
  for (let r = 0; r < 256; r += 17) for (let g = 0; g < 256; g += 17) for (let b = 0; b < 256; b += 17) colours.push(`#${hex(r)}${hex(g)}${hex(b)}`);
  const unreadable = colours.filter((c) => contrast(c, textOn(c)) < 4.5);
  assert.deepEqual(unreadable, []);
});

eachDatabase('merchant branding', (dialect) => {
  const { t } = withApp(dialect);

  it('PATCH /admin/v1/merchants/{id} validates and stores name, display name and #rrggbb colours', async () => {
    const m = await createMerchant(t, 'Fare Ute SARL');
    for (const [body, field] of [
      [{ primaryColor: 'red' }, 'primaryColor'], [{ primaryColor: '#12345' }, 'primaryColor'], [{ accentColor: '#1234567' }, 'accentColor'],
      [{ accentColor: '0f766e' }, 'accentColor'], [{ primaryColor: '#gg0000' }, 'primaryColor'], [{ name: '' }, 'name'],
      [{ displayName: 'x'.repeat(101) }, 'displayName'], [{ logo: 'x' }, 'logo'], [{}, null],
    ] as const) {
      const res = await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      if (field) assert.ok(JSON.stringify(res.body).includes(field), JSON.stringify(res.body));
    }
    const ok = await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { displayName: 'Fare Ute', primaryColor: '#0F766E', accentColor: '#b45309' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.name, 'Fare Ute SARL');
    assert.equal(ok.body.displayName, 'Fare Ute');
    assert.equal(ok.body.primaryColor, '#0f766e');
    assert.equal(ok.body.accentColor, '#b45309');
    assert.equal(ok.body.onPrimaryColor, '#ffffff');
    const read = await t.admin('GET', `/admin/v1/merchants/${m.id}`);
    assert.equal(read.body.primaryColor, '#0f766e');
    const cleared = await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { primaryColor: null, accentColor: null, displayName: null });
    assert.equal(cleared.body.primaryColor, null);
    assert.equal(cleared.body.displayName, null);
    assert.equal(cleared.body.onPrimaryColor, null);
    assert.equal((await t.admin('PATCH', '/admin/v1/merchants/mer_unknown0000000000000', { primaryColor: '#000000' })).status, 404);
    assert.equal((await t.api(m.testKey, 'PATCH', `/admin/v1/merchants/${m.id}`, { primaryColor: '#000000' })).status, 401);
  });

  it('the checkout page carries the theme as an inline sheet its CSP allows by hash; no colours, no sheet', async () => {
    const m = await createMerchant(t, 'Plain');
    const plain = await createSession(t, m.testKey);
    const before = await t.api(undefined, 'GET', `/checkout/${plain.sessionId}`);
    assert.equal(before.status, 200);
    assert.doesNotMatch(before.body, /merchant-theme/);
    assert.match(String(before.headers['content-security-policy']), /style-src 'self';/);

    await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { displayName: 'Boutique Ōrama', primaryColor: '#fde047' });
    const page = await t.api(undefined, 'GET', `/checkout/${plain.sessionId}`);
    const css = /<style id="merchant-theme">([^<]*)<\/style>/.exec(page.body)?.[1];
    assert.ok(css, 'theme sheet present');
    assert.match(css, /--accent:#fde047;--accent-fg:#111827;/, 'a light yellow gets dark text');
    // Yellow on a white panel does not read: links keep the default blue in light mode.
    assert.match(css, /^:root\{[^}]*--link:#1d4ed8;/);
    const hash = createHash('sha256').update(css, 'utf8').digest('base64');
    assert.match(String(page.headers['content-security-policy']), new RegExp(`style-src 'self' 'sha256-${hash.replace(/[+/]/g, '\\$&')}';`));
    assert.match(page.body, /<p class="merchant-name">Boutique Ōrama<\/p>/);
  });

  it('the SDK session and the wallet page carry the merchant colours (the wallet page: the hosted pages\' one theme)', async () => {
    const m = await createMerchant(t, 'Wallet shop');
    await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { primaryColor: '#7c3aed' });
    const s = await createSession(t, m.testKey);
    const info = await t.api(undefined, 'GET', `/api/v1/sdk/sessions/${s.sessionId}`);
    assert.deepEqual(info.body.theme, { colorPrimary: '#7c3aed', colorOnPrimary: '#ffffff' });
    const customerId = await createCustomer(t, m.testKey);
    const w = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/cards' });
    const page = await t.api(undefined, 'GET', `/wallet/${w.body.sessionId}`);
    assert.match(page.body, /<style id="merchant-theme">:root\{--accent:#7c3aed;--accent-fg:#ffffff;/);
  });
});

eachDatabase('merchant colours in a browser', (dialect) => {
  const suite = withApp(dialect, { serve: true, browser: true });
  const { t } = suite;
  let shop: Server;
  let shopUrl: string;
  const pages = new Map<string, string>();

  // The merchant's site, on another port: its pages are set by the tests.
  before(async () => {
    const port = await freePort();
    shopUrl = `http://127.0.0.1:${port}`;
    shop = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(pages.get((req.url ?? '/').split('?')[0]!) ?? 'not found');
    });
    await new Promise<void>((resolve) => shop.listen(port, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise((resolve) => shop?.close(resolve));
  });

  it('the Pay button takes the primary colour with readable text, in light and dark mode', async () => {
    const m = await createMerchant(t, 'Teal shop');
    await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { primaryColor: '#0f766e' });
    const s = await createSession(t, m.testKey);
    for (const colorScheme of ['light', 'dark'] as const) {
      const { context, page } = await newPage(suite.browser, { colorScheme });
      const blocked: string[] = [];
      page.on('console', (msg) => { if (/Content Security Policy/i.test(msg.text())) blocked.push(msg.text()); });
      await page.goto(`${suite.baseUrl}/checkout/${s.sessionId}`);
      const pay = page.locator('#pay');
      assert.equal(await pay.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(15, 118, 110)', colorScheme);
      assert.equal(await pay.evaluate((el) => getComputedStyle(el).color), 'rgb(255, 255, 255)');
      assert.deepEqual(blocked, [], 'the CSP lets the theme sheet through');
      await context.close();
    }
    // A merchant without colours keeps the default blue.
    const plain = await createMerchant(t, 'Default shop');
    const ps = await createSession(t, plain.testKey);
    const { context, page } = await newPage(suite.browser);
    await page.goto(`${suite.baseUrl}/checkout/${ps.sessionId}`);
    assert.equal(await page.locator('#pay').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(29, 78, 216)');
    await context.close();
  });

  it("the SDK component's default theme is the merchant's primary colour; the page's appearance wins", async () => {
    const m = await createMerchant(t, 'Violet shop');
    await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { primaryColor: '#7c3aed' });
    const plain = await createMerchant(t, 'Plain shop');
    const primaryOf = async (key: string, appearance: string) => {
      const s = await createSession(t, key);
      const path = `/shop-${s.sessionId}`;
      pages.set(path, `<!doctype html><html><head><meta charset="utf-8"><script src="${suite.baseUrl}/sdk/v1/motu.js"></script></head>
<body><div id="pay"></div><script>Service.mount({ session: ${JSON.stringify(s.sessionId)}, container: '#pay', ${appearance} })
.then(function () { document.body.setAttribute('data-mounted', '1'); });</script></body></html>`);
      const { context, page } = await newPage(suite.browser);
      await page.goto(`${shopUrl}${path}`);
      await page.waitForSelector('body[data-mounted="1"]');
      const colors = await page.evaluate(() => {
        const host = document.querySelector('.motu-component') as HTMLElement;
        const badge = host.shadowRoot!.querySelector('.badge') as HTMLElement;
        return { variable: getComputedStyle(host).getPropertyValue('--motu-primary').trim(), badge: getComputedStyle(badge).color };
      });
      await context.close();
      return colors;
    };
    assert.deepEqual(await primaryOf(m.testKey, ''), { variable: '#7c3aed', badge: 'rgb(124, 58, 237)' });
    assert.deepEqual(await primaryOf(plain.testKey, ''), { variable: '#2563eb', badge: 'rgb(37, 99, 235)' });
    assert.deepEqual(await primaryOf(m.testKey, "appearance: { colorPrimary: '#dc2626' },"), { variable: '#dc2626', badge: 'rgb(220, 38, 38)' });
  });
});
