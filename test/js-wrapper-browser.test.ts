// @motu/js (packages/js) in headless Chromium: the merchant's page, on its own 127.0.0.1 origin, imports the COMPILED
// wrapper as an ES module, loads Motu's SDK through it (one script tag however many calls), mounts the card component
// on a payment session and pays with it; an unknown session and an unreachable Motu are refused with their errors.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { fillCard, newPage } from './support/browser.js';
import { CARDS } from './support/cards.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { freePort } from './support/ports.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PKG = path.join(ROOT, 'packages/js');

before(async () => {
  await promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(PKG, 'tsconfig.json')], { cwd: ROOT });
});

it('the SDK types of @motu/js are current with src/sdk/browser/motu.ts', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(PKG, 'scripts/generate.mjs'), '--check'], { cwd: ROOT });
  assert.match(stdout, /is current/);
});

/** The merchant's page: the wrapper imported as a module, the SDK loaded twice over, the component mounted in #card. */
function merchantPage(motuUrl: string, sessionId: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head>
<body><h1>Checkout</h1><div id="card"></div><button id="pay">Pay</button>
<script type="module">
  import { loadMotu } from '/lib/index.js';
  const log = (entry) => { const all = JSON.parse(sessionStorage.getItem('log') || '[]'); all.push(entry); sessionStorage.setItem('log', JSON.stringify(all)); };
  const [first, second] = await Promise.all([loadMotu({ baseUrl: ${JSON.stringify(motuUrl)} }), loadMotu({ baseUrl: ${JSON.stringify(`${motuUrl}/`)} })]);
  const third = await loadMotu({ baseUrl: ${JSON.stringify(motuUrl)} });
  log(['loaded', first === second && second === third, document.querySelectorAll('script[src$="/sdk/v1/motu.js"]').length, first.version]);
  const told = [];
  const unknown = await first.mount({ session: 'ses_000000000000unknown', container: '#card', onError: (err) => told.push(err.code) })
    .then(() => 'mounted', (e) => typeof e.code === 'string' && e.code !== '' ? 'rejected with a code' : 'rejected without a code');
  log(['unknown', unknown, told[0]]);
  const unreachable = await loadMotu({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 5000 }).then(() => 'loaded', (e) => e.message);
  log(['unreachable', unreachable]);
  const controller = await first.mount({
    session: ${JSON.stringify(sessionId)}, container: '#card', title: 'Your card',
    onReady: (info) => log(['ready', info.intent, info.amount, info.currency]),
    onError: (err) => log(['error', err.code]),
    onSuccess: (info) => log(['success', info.intent, info.paymentId]),
  });
  log(['mounted', controller.intent, controller.amount]);
  document.getElementById('pay').addEventListener('click', () => controller.submit());
</script></body></html>`;
}

eachDatabase('@motu/js in a browser', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  let shop: Server;
  let shopUrl: string;
  const pages = new Map<string, string>();

  before(async () => {
    const port = await freePort();
    shopUrl = `http://127.0.0.1:${port}`;
    shop = createServer((req, res) => {
      const url = (req.url ?? '/').split('?')[0]!;
      if (url.startsWith('/lib/')) {
        // The compiled wrapper, served as a merchant's bundler or CDN would.
        const file = path.join(PKG, 'dist', path.normalize(url.slice('/lib/'.length)).replace(/^(\.\.[/\\])+/, ''));
        try {
          res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(file));
        } catch {
          res.writeHead(404).end();
        }
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(pages.get(url) ?? '<!doctype html><title>Back at the shop</title><h1>Back at the shop</h1>');
    });
    await new Promise<void>((resolve) => shop.listen(port, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise((resolve) => shop?.close(resolve));
  });

  const log = async (page: Page): Promise<unknown[][]> => JSON.parse((await page.evaluate(() => sessionStorage.getItem('log'))) ?? '[]');

  it('loads the SDK once as an ES module import, mounts the card component and pays with it', async () => {
    const res = await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', {
      order: { reference: 'CMD-JS', amount: 2500, currency: 'EUR' }, redirectUrl: `${shopUrl}/return`,
      notificationUrl: 'https://merchant.example/hooks', email: 'client@example.com',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const { sessionId, paymentId } = res.body as { sessionId: string; paymentId: string };
    pages.set('/pay', merchantPage(suite.baseUrl, sessionId));

    const { context, page } = await newPage(suite.browser);
    try {
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(`${shopUrl}/pay`);
      await page.waitForFunction(() => (sessionStorage.getItem('log') ?? '').includes('"mounted"'));
      const entries = await log(page);
      assert.deepEqual(entries.find((e) => e[0] === 'loaded'), ['loaded', true, 1, '1']);
      assert.deepEqual(entries.find((e) => e[0] === 'unknown'), ['unknown', 'rejected with a code', 'SESSION_INCONNUE']);
      assert.match(String(entries.find((e) => e[0] === 'unreachable')?.[1]), /could not be loaded from http:\/\/127\.0\.0\.1:9\/sdk\/v1\/motu\.js/);
      assert.deepEqual(entries.find((e) => e[0] === 'ready'), ['ready', 'payment', 2500, 'EUR']);
      assert.deepEqual(entries.find((e) => e[0] === 'mounted'), ['mounted', 'payment', 2500]);
      assert.deepEqual(problems, []);

      await fillCard(page, CARDS.visa, 'fr');
      await page.click('#pay');
      await page.waitForURL(/\/return/, { timeout: 20_000 });
      const paid = await t.api(m.testKey, 'GET', `/api/v1/payments/${paymentId}`);
      assert.equal(paid.body.status, 'captured');
      assert.deepEqual((await log(page)).find((e) => e[0] === 'success'), ['success', 'payment', paymentId]);
    } finally {
      await context.close();
    }
  });
});
