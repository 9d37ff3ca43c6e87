// Billing pages in Chromium, on every database. The hosted invoice page: an invoice sent by the merchant opens at its
// unguessable address with what is due and its PDF; paying it by card in the hosted checkout's secure fields pays the
// invoice (invoice.paid), and the page then says so; an unknown token is a 404. The hosted wallet page made for a
// subscription: the cardholder saves a card there, and the subscription's mandate is restored (reason cardholder).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { fillCard, newPage } from './support/browser.js';
import { eventsOfType } from './support/events.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { pdfText } from './support/pdf.js';

eachDatabase('the hosted invoice page', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  const api = (method: string, url: string, body?: unknown) => t.api(m.testKey, method, url, body);

  it('sent, opened, paid by card through the hosted checkout: the invoice is paid', async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, {
      legalName: 'Fare Ute SARL', address: { line1: 'Rue Jeanne dʼArc', postalCode: '98713', city: 'Papeete', country: 'PF' }, registrationNumber: 'TAHITI B7',
    })).status, 200);
    const cus = (await api('POST', '/api/v1/customers', { name: 'Moana', email: 'moana@example.com' })).body.id;
    const inv = (await api('POST', '/api/v1/billing/invoices', { customerId: cus, currency: 'XPF', lines: [{ description: 'Cours de vaʻa', quantity: 4, unitPrice: 2_500, taxRate: 1300 }] })).body;
    assert.equal((await api('POST', `/api/v1/billing/invoices/${inv.id}/send`)).body.code, 'INVOICING_INVOICE_NOT_PAYABLE', 'a draft is not sent');
    const open = (await api('POST', `/api/v1/billing/invoices/${inv.id}/finalize`)).body;
    const sent = await api('POST', `/api/v1/billing/invoices/${inv.id}/send`);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.match(sent.body.url, /\/invoices\/[0-9A-Za-z]{32}$/);
    assert.ok(sent.body.sentAt);
    assert.equal((await eventsOfType(t, 'invoice.sent')).filter((e) => e.data.invoiceId === inv.id).length, 1);

    const { context, page } = await newPage(suite.browser);
    try {
      await page.goto(sent.body.url);
      await page.getByRole('heading', { name: `Facture ${open.number}` }).waitFor();
      assert.match(await page.locator('#remaining').innerText(), /11\s300/);
      const pdfHref = await page.getByRole('link', { name: 'Télécharger la facture (PDF)' }).getAttribute('href');
      const pdf = await fetch(pdfHref!);
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
      assert.ok(pdfText(Buffer.from(await pdf.arrayBuffer())).lines.join('\n').includes(`Facture ${open.number}`));
      await page.getByRole('link', { name: /^Payer par carte/ }).click();
      await page.waitForURL(/\/checkout\//);
      await fillCard(page, '4242424242424242', 'fr');
      await page.getByRole('button', { name: /^Payer / }).click();
      // The checkout sends the customer back to the invoice's page with its return parameters: the page, not an error.
      await page.waitForURL((url) => url.pathname === new URL(sent.body.url).pathname && url.searchParams.get('status') === 'success');
      assert.ok(new URL(page.url()).searchParams.get('paymentId'));
      await page.getByRole('status').filter({ hasText: 'Cette facture est payée' }).waitFor();
      assert.equal(await page.getByRole('link', { name: /^Payer par carte/ }).count(), 0);
      const paid = (await api('GET', `/api/v1/billing/invoices/${inv.id}`)).body;
      assert.deepEqual([paid.status, paid.amountPaid, paid.amountRemaining], ['paid', 11_300, 0]);
      assert.equal((await eventsOfType(t, 'invoice.paid')).filter((e) => e.data.invoiceId === inv.id).length, 1);
      // A mail client's or a campaign's parameters on the page's address change nothing; `lang` still applies.
      await page.goto(`${sent.body.url}?utm_source=mail&utm_campaign=relance&fbclid=x1&lang=en`);
      await page.getByRole('status').filter({ hasText: 'This invoice is paid' }).waitFor();
      const pdf2 = await fetch(`${sent.body.url}/pdf?utm_source=mail`);
      assert.equal(pdf2.headers.get('content-type'), 'application/pdf');
    } finally {
      await context.close();
    }
    const unknown = await fetch(`${suite.baseUrl}/invoices/${'x'.repeat(32)}`);
    assert.equal(unknown.status, 404);
    // The API still refuses a parameter it does not know; the other pages a browser opens take them too: the
    // back-office, the checkout's result pages.
    const strict = await api('GET', '/api/v1/billing/invoices?utm_source=mail');
    assert.deepEqual([strict.status, strict.body.code, strict.body.fields?.[0]?.field], [400, 'VALIDATION_ERROR', 'utm_source']);
    for (const path of ['/dashboard?utm_source=mail', '/dashboard/invoices?utm_medium=x', '/expired?lang=en&utm_source=mail']) {
      const res = await fetch(`${suite.baseUrl}${path}`);
      assert.ok(res.status === 200 || res.status === 410, `${path}: ${res.status}`);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/, path);
    }
  });

  it("the cardholder attaches a card on the hosted wallet page made for a subscription: its mandate is restored", async () => {
    const cus = (await api('POST', '/api/v1/customers', { name: 'Teva', email: 'teva@example.com' })).body.id;
    const session = await api('POST', `/api/v1/customers/${cus}/sessions`, { returnUrl: `${suite.baseUrl}/back?from=wallet` });
    const token = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: '4000000000005126', expMonth: 12, expYear: 2040, cvc: '123', session: session.body.sessionId });
    const unknown = (await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${session.body.sessionId}/submit`, { token: token.body.token })).body.paymentMethodId;
    const sub = (await api('POST', '/api/v1/subscriptions', { customerId: cus, paymentMethodId: unknown, amount: 1500, currency: 'XPF', interval: 'month' })).body;
    assert.equal((await api('GET', `/api/v1/subscriptions/${sub.id}`)).body.status, 'waiting_mandate', 'the card the acquirer no longer knows revoked it');
    const wallet = await api('POST', `/api/v1/customers/${cus}/sessions`, { returnUrl: `${suite.baseUrl}/back?from=wallet`, subscriptionId: sub.id });
    assert.equal(wallet.status, 201, JSON.stringify(wallet.body));
    const { context, page } = await newPage(suite.browser);
    try {
      await page.goto(wallet.body.redirectUrl);
      await page.getByRole('button', { name: 'Enregistrer la carte' }).waitFor();
      await fillCard(page, '4242424242424242', 'fr');
      await page.getByRole('button', { name: 'Enregistrer la carte' }).click();
      await page.waitForURL(/\/back\?/);
      const pm = new URL(page.url()).searchParams.get('paymentMethodId');
      const after = (await api('GET', `/api/v1/subscriptions/${sub.id}`)).body;
      assert.deepEqual([after.status, after.paymentMethodId], ['active', pm]);
      const restored = (await eventsOfType(t, 'subscription.mandate_restored')).filter((e) => e.data.subscriptionId === sub.id);
      assert.deepEqual(restored.map((e) => e.data.reason), ['cardholder']);
    } finally {
      await context.close();
    }
  });
});
