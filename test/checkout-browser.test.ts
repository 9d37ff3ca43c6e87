// The hosted checkout in a real browser (Debian's Chromium via playwright-core): test cards, 3-D Secure,
// page modes, return URL rules, the email step, both languages, the cancel link, inactive sessions.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { fillCard, newPage } from './support/browser.js';
import { createCustomer } from './support/factories.js';
import { paymentEvents } from './support/events.js';
import { eachDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

const SHOP = 'https://shop.example';

eachDatabase('hosted checkout in a browser', (dialect) => {
  const clock = new ManualClock();
  // Two cards per session (MOTU_MAX_CARD_ATTEMPTS): the card-testing limit is reached in one test below.
  const suite = withMerchantApp(dialect, { clock, serve: true, browser: true, merchantName: 'Fare Ute', env: { MOTU_MAX_CARD_ATTEMPTS: '2' } });
  const { t, m: merchant } = suite;

  async function session(overrides: Record<string, unknown> = {}, order: Record<string, unknown> = {}) {
    const res = await t.api(merchant.testKey, 'POST', '/api/v1/payments/sessions', {
      order: { reference: 'CMD-42', amount: 1000, currency: 'EUR', ...order },
      redirectUrl: `${SHOP}/return?cart=7&status=stale`,
      notificationUrl: `${SHOP}/hook`,
      email: 'client@example.com',
      languageCode: 'en',
      ...overrides,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { paymentId: string; sessionId: string; checkoutUrl: string };
  }

  async function open(checkoutUrl: string, options: { colorScheme?: 'light' | 'dark' } = {}) {
    const { context, page } = await newPage(suite.browser, options);
    // The merchant's site is outside us: answer its return URL with a stub page.
    await context.route(`${SHOP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Shop</h1>' }));
    await page.goto(checkoutUrl);
    return { context, page };
  }

  async function payment(id: string) {
    const res = await t.api(merchant.testKey, 'GET', `/api/v1/payments/${id}`);
    assert.equal(res.status, 200);
    return res.body;
  }

  async function payWithCard(number: string, overrides: Record<string, unknown> = {}) {
    const s = await session(overrides);
    const { context, page } = await open(s.checkoutUrl);
    await fillCard(page, number, 'en');
    await page.getByRole('button', { name: 'Pay €10.00' }).click();
    return { s, context, page };
  }

  it('authorizes and captures 4242 4242 4242 4242, then returns with the reserved query names replaced', async () => {
    const { s, context, page } = await payWithCard('4242 4242 4242 4242');
    await page.waitForURL(`${SHOP}/**`);
    const url = new URL(page.url());
    assert.deepEqual(url.searchParams.getAll('status'), ['success']);
    assert.equal(url.searchParams.get('paymentId'), s.paymentId);
    assert.equal(url.searchParams.get('reference'), 'CMD-42');
    assert.equal(url.searchParams.get('cart'), '7');
    const p = await payment(s.paymentId);
    assert.equal(p.status, 'captured');
    assert.equal(p.cardBrand, 'VISA');
    assert.equal(p.cardLast4, '4242');
    assert.equal(p.capturedAmount, 1000);
    const events = await paymentEvents(t, s.paymentId);
    assert.deepEqual(events.map((e) => e.type), ['payment.authorized', 'payment.captured']);
    assert.equal(events[0].data.status, 'transit');
    assert.equal(events[0].data.cardLast4, '4242');
    assert.equal(events[0].data.reference, p.reference);
    assert.deepEqual(events[0].data.order, { reference: 'CMD-42' });
    await context.close();
  });

  for (const [number, brand, network] of [
    ['5555555555554444', 'MASTERCARD', 'MASTERCARD'], ['4970100000000006', 'VISA', 'CB'], ['5131000000000001', 'MASTERCARD', 'CB'],
  ]) {
    it(`authorizes ${number} on the ${network} network`, async () => {
      const s = await session();
      const { context, page } = await open(s.checkoutUrl);
      await fillCard(page, number, 'en');
      // The number field names the networks it detects before any payment: CB first for a co-badged card.
      const shown = await page.frameLocator('iframe[title="Card number"]').locator('#brand').textContent();
      assert.equal(shown, network === 'CB' ? `CB · ${brand}` : brand);
      await page.getByRole('button', { name: 'Pay €10.00' }).click();
      await page.waitForURL(`${SHOP}/**`);
      const p = await payment(s.paymentId);
      assert.equal(p.status, 'captured');
      assert.equal(p.cardBrand, brand);
      const row = await t.db.kysely.selectFrom('payments').select('card_network').where('id', '=', s.paymentId).executeTakeFirstOrThrow();
      assert.equal(row.card_network, network);
      await context.close();
    });
  }

  for (const [number, code, reason] of [
    ['4000000000000002', 'card_declined', 'Your bank declined the card.'],
    ['4000000000009995', 'insufficient_funds', 'The card has insufficient funds.'],
    ['4000000000000069', 'expired_card', 'The card has expired.'],
    ['4000000000000127', 'incorrect_cvc', 'The security code is incorrect.'],
    ['4000000000000119', 'processing_error', 'An error occurred while processing the card. Try again.'],
    ['4000000000000341', 'card_declined', 'Your bank declined the card.'],
  ]) {
    it(`refuses ${number} with ${code} and shows the failure page`, async () => {
      const { s, context, page } = await payWithCard(number);
      await page.waitForURL(/\/checkout\/failed\?/);
      assert.equal(page.url().includes(code), false, 'no refusal code in the URL');
      await page.getByRole('heading', { name: 'Payment declined' }).waitFor();
      await page.getByText(reason).waitFor();
      const p = await payment(s.paymentId);
      assert.equal(p.status, 'failed');
      assert.equal(p.refusalCode, code);
      const events = await paymentEvents(t, s.paymentId);
      assert.deepEqual(events.map((e) => e.type), ['payment.failed']);
      assert.equal(events[0].data.refusalCode, code);
      await context.close();
    });
  }

  it('lets the customer retry with another card after a refusal', async () => {
    const { s, context, page } = await payWithCard('4000000000000002');
    await page.waitForURL(/\/checkout\/failed\?/);
    await page.getByRole('link', { name: 'Use another card' }).click();
    await fillCard(page, '4242424242424242', 'en');
    await page.getByRole('button', { name: 'Pay €10.00' }).click();
    await page.waitForURL(`${SHOP}/**`);
    assert.equal((await payment(s.paymentId)).status, 'captured');
    // One event per step, in the order they were recorded (the test clock gives them all the same createdAt: seq orders them).
    assert.deepEqual((await paymentEvents(t, s.paymentId)).map((e) => e.type), ['payment.failed', 'payment.authorized', 'payment.captured']);
    await context.close();
  });

  it('after the last card allowed is refused: no retry, the reason, and a form still open in another tab leads there too', async () => {
    const s = await session();
    const first = await open(s.checkoutUrl);
    const second = await open(s.checkoutUrl); // loaded while both attempts remain
    await fillCard(first.page, '4000000000000002', 'en');
    await first.page.getByRole('button', { name: 'Pay €10.00' }).click();
    await first.page.waitForURL(/\/checkout\/failed\?/);
    await first.page.getByRole('link', { name: 'Use another card' }).click();
    await fillCard(first.page, '4000000000009995', 'en');
    await first.page.getByRole('button', { name: 'Pay €10.00' }).click();
    await first.page.getByText('Too many attempts: this payment can no longer be retried here. Return to Fare Ute to start again.').waitFor();
    assert.equal(await first.page.getByRole('link', { name: 'Try again' }).count(), 0);
    assert.equal(await first.page.getByRole('link', { name: 'Use another card' }).count(), 0);
    await first.page.getByText('The card has insufficient funds.').waitFor();

    // The other tab's Pay is answered 429 TOO_MANY_ATTEMPTS: its card never reaches the acquirer.
    await fillCard(second.page, '4242424242424242', 'en');
    await second.page.getByRole('button', { name: 'Pay €10.00' }).click();
    await second.page.waitForURL(/\/checkout\/failed\?/);
    await second.page.getByText('Too many attempts', { exact: false }).waitFor();
    const p = await payment(s.paymentId);
    assert.equal(p.status, 'failed');
    assert.equal(p.refusalCode, 'insufficient_funds');
    assert.deepEqual((await paymentEvents(t, s.paymentId)).map((e) => e.type), ['payment.failed', 'payment.failed']);
    await first.context.close();
    await second.context.close();
  });

  it('4000 0000 0000 1208: the acquirer judges the browser unfit; the payment stays pending', async () => {
    const { s, context, page } = await payWithCard('4000000000001208');
    await page.getByRole('alert').filter({ hasText: 'cannot authenticate the payment in this browser' }).waitFor();
    assert.equal((await payment(s.paymentId)).status, 'pending');
    assert.deepEqual(await paymentEvents(t, s.paymentId), []);
    await context.close();
  });

  it('rejects a Luhn-invalid number in the field, before anything is submitted', async () => {
    const s = await session();
    const { context, page } = await open(s.checkoutUrl);
    let tokenCalls = 0;
    page.on('request', (r) => { if (r.url().endsWith('/acquirer/v1/tokens')) tokenCalls += 1; });
    await fillCard(page, '4242 4242 4242 4241', 'en');
    await page.getByRole('button', { name: 'Pay €10.00' }).click();
    const numberFrame = page.frameLocator('iframe[title="Card number"]');
    await numberFrame.getByText('This card number is not valid').waitFor();
    assert.equal(await numberFrame.getByLabel('Card number').getAttribute('aria-invalid'), 'true');
    assert.equal(tokenCalls, 0);
    await context.close();
  });

  it('3-D Secure: 4000 0000 0000 3220 is challenged in a frame; Authenticate authorizes', async () => {
    const { s, context, page } = await payWithCard('4000000000003220');
    const bank = page.frameLocator('#challenge-frame');
    await bank.getByRole('button', { name: 'Authenticate', exact: true }).click();
    await page.waitForURL(`${SHOP}/**`);
    assert.equal((await payment(s.paymentId)).status, 'captured');
    await context.close();
  });

  it('3-D Secure: Fail authentication refuses with authentication_failed', async () => {
    const { s, context, page } = await payWithCard('4000000000003220');
    await page.frameLocator('#challenge-frame').getByRole('button', { name: 'Fail authentication' }).click();
    await page.waitForURL(/\/checkout\/failed\?/);
    await page.getByText('The 3-D Secure authentication failed.').waitFor();
    const p = await payment(s.paymentId);
    assert.equal(p.status, 'failed');
    assert.equal(p.refusalCode, 'authentication_failed');
    await context.close();
  });

  it('MANUAL capture mode only authorizes (status transit)', async () => {
    const { s, context, page } = await payWithCard('4242424242424242', { captureMode: 'MANUAL' });
    await page.waitForURL(`${SHOP}/**`);
    const p = await payment(s.paymentId);
    assert.equal(p.status, 'transit');
    assert.equal(p.capturedAmount, 0);
    assert.deepEqual((await paymentEvents(t, s.paymentId)).map((e) => e.type), ['payment.authorized']);
    await context.close();
  });

  it('successPageMode show: the success page with a PDF receipt and the return link', async () => {
    const { s, context, page } = await payWithCard('4242424242424242', { successPageMode: 'show' });
    await page.waitForURL(/\/checkout\/success\?/);
    await page.getByRole('heading', { name: 'Payment accepted' }).waitFor();
    const href = await page.getByRole('link', { name: 'Download the receipt (PDF)' }).getAttribute('href');
    const receipt = await page.request.get(new URL(href as string, page.url()).toString());
    assert.equal(receipt.headers()['content-type'], 'application/pdf');
    assert.equal((await receipt.body()).subarray(0, 5).toString(), '%PDF-');
    const back = new URL(await page.getByRole('link', { name: 'Return to Fare Ute' }).getAttribute('href') as string);
    assert.equal(back.searchParams.get('status'), 'success');
    assert.equal(back.searchParams.get('paymentId'), s.paymentId);
    await context.close();
  });

  it('successPageMode auto without a known email: asks the email, then shows the success page', async () => {
    const s = await session({ email: undefined, successPageMode: 'auto' });
    const { context, page } = await open(s.checkoutUrl);
    await fillCard(page, '4242424242424242', 'en');
    await page.getByRole('button', { name: 'Pay €10.00' }).click();
    await page.getByText('Enter a valid email address').waitFor();
    await page.getByLabel('Email').fill('buyer@example.com');
    await page.getByRole('button', { name: 'Pay €10.00' }).click();
    await page.waitForURL(/\/checkout\/success\?/);
    const p = await payment(s.paymentId);
    assert.equal(p.status, 'captured');
    assert.equal(p.privateData.customerEmail, 'buyer@example.com');
    await context.close();
  });

  it('successPageMode redirect and failurePageMode redirect go straight back, the refusal code never in the URL', async () => {
    const ok = await payWithCard('4242424242424242', { successPageMode: 'redirect', email: undefined });
    await ok.page.getByLabel('Email').fill('buyer@example.com');
    await ok.page.getByRole('button', { name: 'Pay €10.00' }).click();
    await ok.page.waitForURL(`${SHOP}/**`);
    await ok.context.close();

    const ko = await payWithCard('4000000000009995', { failurePageMode: 'redirect', failureRedirectUrl: `${SHOP}/failed?paymentId=old&keep=yes` });
    await ko.page.waitForURL(`${SHOP}/failed**`);
    const url = new URL(ko.page.url());
    assert.equal(url.searchParams.get('status'), 'failed');
    assert.deepEqual(url.searchParams.getAll('paymentId'), [ko.s.paymentId]);
    assert.equal(url.searchParams.get('reference'), 'CMD-42');
    assert.equal(url.searchParams.get('keep'), 'yes');
    assert.equal(ko.page.url().includes('insufficient'), false);
    await ko.context.close();
  });

  it('French page: accessible names, amounts formatted per locale, the pay button', async () => {
    const s = await session({ languageCode: 'fr', email: undefined }, { amount: 1000, currency: 'XPF', items: [{ product: 'Paréo', unitPrice: 500, quantity: 2 }] });
    const { context, page } = await open(s.checkoutUrl);
    await page.getByRole('button', { name: 'Payer 1\u00a0000\u00a0XPF' }).waitFor();
    await page.getByLabel('E-mail').fill('client@example.pf');
    await fillCard(page, '4242424242424242', 'fr');
    await page.getByRole('button', { name: /^Payer/ }).click();
    await page.waitForURL(/\/checkout\/success\?/);
    await page.getByRole('heading', { name: 'Paiement accepté' }).waitFor();
    await context.close();
  });

  it('shows taxes on top when isInclTaxAmount is false', async () => {
    const s = await session({ isInclTaxAmount: false }, { amount: 1000, currency: 'EUR', taxDetail: { rate: 1600 } });
    const { context, page } = await open(s.checkoutUrl);
    await page.getByText('Taxes (16%)').waitFor();
    await page.getByRole('button', { name: 'Pay €11.60' }).waitFor();
    await context.close();
  });

  it('the save-my-card checkbox follows savePaymentMethodCheckedByDefault', async () => {
    const customer = { id: await createCustomer(t, merchant.testKey, { email: 'saver@example.com' }) };
    const on = await session({ customerId: customer.id, allowCustomerToSavePaymentMethod: true });
    const a = await open(on.checkoutUrl);
    assert.equal(await a.page.getByRole('checkbox', { name: 'Save my card' }).isChecked(), true);
    await a.context.close();
    const off = await session({ customerId: customer.id, allowCustomerToSavePaymentMethod: true, savePaymentMethodCheckedByDefault: false });
    const b = await open(off.checkoutUrl);
    assert.equal(await b.page.getByRole('checkbox', { name: 'Save my card' }).isChecked(), false);
    await b.context.close();
    const none = await session();
    const c = await open(none.checkoutUrl);
    assert.equal(await c.page.getByRole('checkbox', { name: 'Save my card' }).count(), 0);
    await c.context.close();
  });

  it('saves the card when asked, then offers it as a one-click radio to a session created with customerId', async () => {
    const customer = { id: await createCustomer(t, merchant.testKey, { email: 'oneclick@example.com' }) };
    const first = await payWithCard('5555555555554444', { customerId: customer.id, allowCustomerToSavePaymentMethod: true });
    await first.page.waitForURL(`${SHOP}/**`);
    const paid = await payment(first.s.paymentId);
    assert.match(paid.paymentMethodId, /^pm_/);
    const authorized = (await paymentEvents(t, first.s.paymentId)).find((e) => e.type === 'payment.authorized')!;
    assert.equal(authorized.data.paymentMethodId, paid.paymentMethodId);
    assert.equal(authorized.data.customerId, customer.id);
    await first.context.close();

    const second = await session({ customerId: customer.id });
    const { context, page } = await open(second.checkoutUrl);
    const radio = page.getByRole('radio', { name: 'MASTERCARD •••• 4444' });
    assert.equal(await radio.isChecked(), true);
    assert.equal(await page.locator('#card-block').isHidden(), true);
    await page.getByRole('button', { name: 'Pay €10.00' }).click();
    await page.waitForURL(`${SHOP}/**`);
    const p = await payment(second.paymentId);
    assert.equal(p.status, 'captured');
    assert.equal(p.cardLast4, '4444');
    await context.close();

    // Identified by email only: no saved cards on the page.
    const byEmail = await session({ email: 'oneclick@example.com' });
    const other = await open(byEmail.checkoutUrl);
    assert.equal(await other.page.getByRole('radio').count(), 0);
    await other.context.close();
  });

  it('saveCustomer creates the customer after a successful payment (customerCreated true)', async () => {
    const { s, context, page } = await payWithCard('4242424242424242', { saveCustomer: true, email: 'new-buyer@example.com' });
    await page.waitForURL(`${SHOP}/**`);
    const p = await payment(s.paymentId);
    assert.match(p.customerId, /^cus_/);
    const authorized = (await paymentEvents(t, s.paymentId)).find((e) => e.type === 'payment.authorized')!;
    assert.equal(authorized.data.customerId, p.customerId);
    assert.equal(authorized.data.customerCreated, true);
    await context.close();
  });

  it('the cancel link cancels the pending payment (cancelledBy porteur) and returns to the merchant', async () => {
    const s = await session();
    const { context, page } = await open(s.checkoutUrl);
    await page.getByRole('link', { name: 'Cancel and return to the merchant' }).click();
    await page.waitForURL(`${SHOP}/**`);
    assert.equal(new URL(page.url()).searchParams.get('status'), 'cancelled');
    assert.equal((await payment(s.paymentId)).status, 'cancelled');
    const events = await paymentEvents(t, s.paymentId);
    assert.deepEqual(events.map((e) => e.type), ['payment.cancelled']);
    assert.equal(events[0].data.cancelledBy, 'porteur');
    await page.goto(s.checkoutUrl);
    // The session rides along so the inactive page keeps the merchant's header.
    assert.equal(page.url(), `${new URL(s.checkoutUrl).origin}/expired?lang=en&sessionId=${s.sessionId}`);
    await context.close();
  });

  it('shows the already-paid page for a paid session and the inactive-session page for an expired one', async () => {
    const paid = await payWithCard('4242424242424242');
    await paid.page.waitForURL(`${SHOP}/**`);
    await paid.page.goto(paid.s.checkoutUrl);
    await paid.page.getByRole('heading', { name: 'This order is already paid' }).waitFor();
    await paid.context.close();

    const s = await session({ expiresIn: 60, languageCode: 'fr' });
    clock.advance(61_000);
    const { context, page } = await open(s.checkoutUrl);
    assert.equal(page.url(), `${new URL(s.checkoutUrl).origin}/expired?lang=fr&sessionId=${s.sessionId}`);
    await page.getByRole('heading', { name: "Cette page de paiement n'est plus active" }).waitFor();
    await context.close();
  });

  it('is usable with the keyboard alone', async () => {
    const s = await session();
    const { context, page } = await open(s.checkoutUrl);
    await page.frameLocator('iframe[title="Card number"]').getByLabel('Card number').focus();
    await page.keyboard.type('4242424242424242');
    await page.keyboard.press('Tab');
    await page.keyboard.type('1234');
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${SHOP}/**`);
    assert.equal((await payment(s.paymentId)).status, 'captured');
    await context.close();
  });
});
