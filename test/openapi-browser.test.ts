// The API reference at /docs in Chromium: Motu's name, colours and introduction, no console error, an operation found
// by its summary and opened, its example body made of real values (no "string" placeholder), the version of the
// package and answers as the API gives them; and the guides (/docs/guides) rendered, found in the page, linked.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchBrowser, newPage, serveApp, type ServedApp } from './support/browser.js';
import { eachDatabase } from './support/harness.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

eachDatabase('the API reference page', (dialect) => {
  let t: ServedApp;
  let browser: Browser;
  before(async () => {
    t = await serveApp(dialect);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('is branded, complete and loads without a console error', { skip: !chromiumAvailable() && 'no Chromium' }, async () => {
    const { context, page } = await newPage(browser, { locale: 'en-GB' });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
    page.on('request', (request) => {
      if (!request.url().startsWith(t.baseUrl) && !request.url().startsWith('data:')) problems.push(`outside request: ${request.url()}`);
    });
    await page.goto(`${t.baseUrl}/docs`);
    assert.equal(await page.title(), 'Motu API reference');
    await page.getByRole('heading', { name: /Motu API/ }).first().waitFor();
    assert.match(await page.locator('.info .description').innerText(), /takes card payments for your shop/);
    const topbar = await page.locator('.topbar').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(topbar, 'rgb(29, 78, 216)');

    // An operation found by its summary, opened: its example request body holds real values.
    const summary = page.getByText('Create a payment session (hosted checkout and SDK)', { exact: true });
    await summary.click();
    const operation = page.locator('#operations-Payments-createPaymentSession');
    await operation.locator('.body-param__example, .microlight').first().waitFor();
    const example = await operation.locator('.opblock-body').innerText();
    assert.match(example, /"notificationUrl": "https:\/\/shop\.example\.pf\/webhooks\/motu"/);
    assert.match(example, /"amount": \d+/);
    assert.doesNotMatch(example, /"string"/);
    assert.match(example, /IDEMPOTENCY_KEY_REUSED|Idempotency-Key/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it("shows the package's version, a created session answering status pending, and leads to the guides", { skip: !chromiumAvailable() && 'no Chromium' }, async () => {
    const { context, page } = await newPage(browser, { locale: 'en-GB' });
    await page.goto(`${t.baseUrl}/docs`);
    await page.getByRole('heading', { name: /Motu API/ }).first().waitFor();
    assert.equal((await page.locator('.info .version').first().innerText()).trim(), VERSION);
    await page.getByText('Create a payment session (hosted checkout and SDK)', { exact: true }).click();
    const operation = page.locator('#operations-Payments-createPaymentSession');
    await operation.locator('.responses-wrapper').waitFor();
    const answers = await operation.locator('.responses-wrapper').innerText();
    assert.match(answers, /"status": "pending"/);
    assert.doesNotMatch(answers, /"status": "open"/);
    // swagger-ui opens the description's links in a new tab.
    const link = page.locator('.info .description').getByRole('link', { name: 'all the guides' });
    assert.equal(await link.getAttribute('href'), '/docs/guides');
    await page.goto(new URL('/docs/guides', t.baseUrl).href);
    await page.getByRole('heading', { name: 'Guides', level: 1 }).waitFor();
    await context.close();
  });

  it('renders a guide whole under a strict CSP; its links to other guides and to its own sections work', { skip: !chromiumAvailable() && 'no Chromium' }, async () => {
    const { context, page } = await newPage(browser, { locale: 'en-GB' });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    const response = await page.goto(`${t.baseUrl}/docs/guides`);
    assert.match(String(response?.headers()['content-security-policy']), /default-src 'none'/);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).first().click();
    await page.waitForURL(`${t.baseUrl}/docs/guides/webhooks`);
    assert.equal(await page.title(), 'Webhooks · Motu');
    // The whole guide is text of the page, so the browser's find reaches its last section.
    const text = await page.locator('main').innerText();
    assert.match(text, /Receiving webhooks on your laptop/);
    assert.ok(await page.evaluate(() => (window as unknown as { find(s: string): boolean }).find('Receiving webhooks on your laptop')));
    // The style applies (its hash is in the CSP), and nothing was refused.
    assert.equal(await page.locator('header').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(29, 78, 216)');
    // A section of the page by its anchor, then another guide by a relative link of the markdown.
    await page.goto(`${t.baseUrl}/docs/guides/webhooks#verifying-a-webhook`);
    await page.locator('h2#verifying-a-webhook').waitFor();
    await page.getByRole('link', { name: 'event catalog' }).first().click();
    await page.waitForURL(`${t.baseUrl}/docs/guides/events`);
    await page.getByRole('heading', { name: 'Event catalog', level: 1 }).waitFor();
    // Every link to a guide leads to a page that exists.
    const targets = await page.locator('main a[href^="/docs/guides/"]').evaluateAll((links) => [...new Set(links.map((a) => a.getAttribute('href')!.split('#')[0]!))]);
    for (const href of [...targets, '/docs/guides/readme']) {
      const res = await page.request.get(`${t.baseUrl}${href}`);
      assert.equal(res.status(), 200, href);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
});
