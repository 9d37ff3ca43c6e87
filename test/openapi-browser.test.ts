// The API reference at /docs in Chromium: Motu's name, colours and introduction, no console error, an operation found
// by its summary and opened, its example body made of real values (no "string" placeholder).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchBrowser, newPage, serveApp, type ServedApp } from './support/browser.js';
import { eachDatabase } from './support/harness.js';

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
});
