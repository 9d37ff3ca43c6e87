// The back-office's money pages (/dashboard: home, customers, subscriptions, invoices, balance, payouts, disputes) in
// Chromium, on every database. The data is made through the API with the merchant's test key; a user signed in
// through the back-office API hands its session cookie to the browser. Each page is visited with data in it and
// checked with axe-core (WCAG A/AA) in light and dark; the user acts from the pages (accept a dispute, create,
// finalize and send an invoice and record its payment, cancel a subscription, send a card link, add a bank account
// and make a manual payout), and the API is asked afterwards what happened. One browser per file.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { CARDS } from './support/cards.js';
import { signedInUser } from './support/back-office.js';
import { newPage } from './support/browser.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paidPayment, paySession } from './support/payments.js';
import { paymentSchedule } from './support/schedule.js';
import { saveCard } from './support/wallet.js';

const PHONE = { width: 390, height: 844 };
const IDENTITY = {
  legalName: 'Fare Ute SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' },
  registrationNumber: 'TAHITI A12345', taxId: '123456',
};
const PAID_IBAN = 'FR7630006000010000000000152';

eachDatabase('the back-office money pages', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute' });
  const { t, m } = suite;
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await t.api(m.testKey, method, url, body);
    assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  let context: BrowserContext;
  let page: Page;
  /** The customer with a saved card, a subscription, a draft invoice and a payment. */
  let customer: { id: string; name: string; email: string };
  let subscriptionId: string;
  let paymentId: string;

  before(async () => {
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, IDENTITY)).status, 200);
    const user = await signedInUser(t, m.id, 'owner');
    const [name, value] = [user.cookie.slice(0, user.cookie.indexOf('=')), user.cookie.slice(user.cookie.indexOf('=') + 1)];
    ({ context, page } = await newPage(suite.browser, { locale: 'en-GB' }));
    await context.addCookies([{ name, value, url: suite.baseUrl }]);

    customer = { name: 'Hina Teriitahi', email: 'hina@example.pf', id: '' };
    customer.id = (await api('POST', '/api/v1/customers', { name: customer.name, email: customer.email })).id;
    await saveCard(t, m.testKey, customer.id);
    const card = (await api('GET', `/api/v1/customers/${customer.id}/payment-methods`)).data[0];
    subscriptionId = (await api('POST', '/api/v1/subscriptions', {
      customerId: customer.id, paymentMethodId: card.id, amount: 1500, currency: 'XPF', interval: 'month', description: 'Paniers de fruits',
    })).id;
    await api('POST', '/api/v1/billing/invoices', { customerId: customer.id, currency: 'XPF', lines: [{ description: 'Loyer', quantity: 1, unitPrice: 85_000 }] });
    const session = await createSession(t, m.testKey, { amount: 2500, currency: 'XPF', extra: { customerId: customer.id } });
    await paySession(t, session.sessionId);
    paymentId = session.paymentId;
    await paidPayment(t, m.testKey, { amount: 1999, currency: 'EUR' });
  });

  async function visit(path: string, heading: string | RegExp): Promise<void> {
    await page.goto(`${suite.baseUrl}/dashboard${path}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  /** axe in light and dark on the page as it is now (the colour scheme is emulated in place). */
  async function accessible(what: string, target: Page = page): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await target.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(target), [], `${what} (${colorScheme})`);
    }
    await target.emulateMedia({ colorScheme: 'light' });
  }

  async function toast(text: string): Promise<void> {
    await page.getByRole('status').filter({ hasText: text }).waitFor();
  }

  it('home: the balance per currency, the 30-day volume chart and the recent payments linking to their page', async () => {
    const payment = await api('GET', `/api/v1/payments/${paymentId}`);
    await visit('/', 'Home');
    await page.getByRole('table', { name: 'The latest payments' }).waitFor();
    const chart = page.getByRole('img', { name: /^€53\.51 captured in 3 payments over the last 30 days$/ });
    await chart.waitFor();
    assert.equal(await chart.locator('rect.chart-bar').count(), 30);
    assert.match(await page.locator('.balance-cards').innerText(), /XPF[\s\S]*Pending/);
    await accessible('home');
    await page.getByRole('link', { name: payment.orderReference }).click();
    await page.waitForURL(new RegExp(`/dashboard/payments/${paymentId}$`));
  });

  it("customers: the list, and a customer's page with its saved card, subscription, invoice and payment", async () => {
    await visit('/customers', 'Customers');
    const table = page.getByRole('table', { name: 'Customers, newest first' });
    await table.waitFor();
    await accessible('customers');
    await table.getByRole('link', { name: customer.name }).click();
    await page.getByRole('heading', { name: customer.name, level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Saved cards, newest first' }).getByText('•••• 4242').waitFor();
    await page.getByRole('table', { name: "The customer's subscriptions" }).getByRole('link', { name: 'Paniers de fruits' }).waitFor();
    await page.getByRole('table', { name: "The customer's invoices" }).getByRole('link', { name: 'Draft' }).waitFor();
    const payments = page.getByRole('table', { name: "The customer's payments" });
    await payments.waitFor();
    await payments.getByRole('link', { name: (await api('GET', `/api/v1/payments/${paymentId}`)).orderReference }).waitFor();
    await accessible('customer detail');

    // A new customer from the list: a refused email is shown in the dialog, then the customer is made and opened.
    await visit('/customers', 'Customers');
    await page.getByRole('button', { name: 'New customer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a customer' });
    await dialog.getByLabel('Name').fill('Teva Mahana');
    await dialog.getByLabel('Email').fill(customer.email);
    await dialog.getByLabel('Phone').fill('+689 87 12 34 56');
    await dialog.getByLabel(/^External id/).fill('crm-teva');
    await accessible('new customer dialog');
    await dialog.getByRole('button', { name: 'New customer' }).click();
    await dialog.getByRole('alert').waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Teva Mahana', level: 1 }).count(), 0);
    await dialog.getByLabel('Email').fill('teva.mahana@example.pf');
    await dialog.getByRole('button', { name: 'New customer' }).click();
    await page.getByRole('heading', { name: 'Teva Mahana', level: 1 }).waitFor();
    const made = (await api('GET', '/api/v1/customers?externalId=crm-teva')).data;
    assert.deepEqual(made.map((c: { email: string; phone: string; name: string }) => [c.name, c.email, c.phone]), [['Teva Mahana', 'teva.mahana@example.pf', '+689 87 12 34 56']]);
    assert.match(page.url(), new RegExp(`/dashboard/customers/${made[0].id}$`));

    // Edit: the form opens with the customer's values; an emptied field is cleared, only what changed is sent.
    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Change the customer' });
    assert.equal(await edit.getByLabel('Email').inputValue(), 'teva.mahana@example.pf');
    await edit.getByLabel('Phone').fill('+689 40 50 60 70');
    await edit.getByLabel(/^External id/).fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await toast('Customer updated.');
    await page.locator('.facts').getByText('+689 40 50 60 70').waitFor();
    const changed = await api('GET', `/api/v1/customers/${made[0].id}`);
    assert.deepEqual([changed.name, changed.email, changed.phone, changed.externalId], ['Teva Mahana', 'teva.mahana@example.pf', '+689 40 50 60 70', null]);
    const updated = (await api('GET', '/api/v1/events?type=customer.updated&limit=1')).data[0];
    assert.deepEqual(updated.data.updatedFields, ['externalId', 'phone']);
  });

  it("a new subscription from the customer's page: its saved card, amount, period and first due date", async () => {
    await visit(`/customers/${customer.id}`, customer.name);
    await page.getByRole('link', { name: 'New subscription' }).click();
    await page.getByRole('heading', { name: 'New subscription', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Customer', { exact: true }).inputValue(), customer.id);
    const card = page.getByLabel('Card', { exact: true });
    await card.locator('option', { hasText: 'VISA •••• 4242 (12/2040)' }).waitFor({ state: 'attached' });
    await card.selectOption({ label: 'VISA •••• 4242 (12/2040)' });
    await page.getByLabel(/^Amount/).fill('2000');
    await page.getByLabel('Period', { exact: true }).selectOption('week');
    await page.getByLabel('Every how many periods').fill('2');
    const start = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel(/^First due date/).fill(start);
    await page.getByLabel('Description', { exact: true }).fill('Cours de ukulélé');
    assert.match(await page.locator('.subscription-preview').innerText(), /^XPF\s2,000 \(€16\.76\) every 2 weeks$/);
    await accessible('new subscription');
    await page.getByRole('button', { name: 'New subscription' }).click();
    await page.getByRole('heading', { name: 'Subscription Cours de ukulélé', level: 1 }).waitFor();
    const id = /\/subscriptions\/(sub_[0-9A-Za-z]+)$/.exec(page.url())?.[1];
    const made = await api('GET', `/api/v1/subscriptions/${id}`);
    const saved = (await api('GET', `/api/v1/customers/${customer.id}/payment-methods`)).data[0];
    assert.deepEqual(
      [made.customerId, made.paymentMethodId, made.amount, made.currency, made.interval, made.intervalCount, made.status],
      [customer.id, saved.id, 2000, 'XPF', 'week', 2, 'active'],
    );
    // The day picked, from its first moment where the browser is; nothing due before it.
    assert.equal(made.nextDueDate, new Date(`${start}T00:00:00`).toISOString());
    assert.deepEqual((await api('GET', `/api/v1/subscriptions/${id}/due-dates`)).data, []);
  });

  it('subscriptions: the detail with its due dates; a card link made and shown; Cancel behind its confirmation', async () => {
    await visit('/subscriptions', 'Subscriptions');
    await page.getByRole('table', { name: 'Subscriptions, newest first' }).getByRole('link', { name: 'Paniers de fruits' }).click();
    await page.getByRole('heading', { name: 'Subscription Paniers de fruits', level: 1 }).waitFor();
    // The first due date was charged when the subscription was created: paid, with its attempt's payment.
    const dueDates = page.getByRole('table', { name: 'Due dates, newest first, with their attempts' });
    await dueDates.locator('.badge').filter({ hasText: 'Paid' }).waitFor();
    await dueDates.locator('a[href*="/payments/pay_"]').waitFor();
    assert.match(await page.locator('.amount-hero').innerText(), /XPF\s1,500 \(€12\.57\)/);
    assert.equal(await page.locator('.subscription-period').innerText(), 'every month');
    await page.getByText('VISA •••• 4242 (12/2040)').waitFor();
    await accessible('subscription detail');

    await page.getByRole('button', { name: 'Send a card link' }).click();
    const linkDialog = page.getByRole('dialog', { name: 'Ask the customer for a card' });
    await linkDialog.getByRole('button', { name: 'Create the link' }).click();
    await toast('Card link created.');
    const url = await page.locator('.card-link-url').innerText();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\//);

    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this subscription?' });
    await dialog.waitFor();
    await accessible('cancel dialog');
    assert.equal(await dialog.getByLabel('Now: no further charge').isChecked(), true);
    await dialog.getByRole('button', { name: 'Cancel subscription' }).click();
    await toast('Subscription cancelled.');
    await dialog.waitFor({ state: 'hidden' });
    await page.locator('.badge').filter({ hasText: 'Cancelled' }).first().waitFor();
    assert.equal((await api('GET', `/api/v1/subscriptions/${subscriptionId}`)).status, 'cancelled');
  });

  it('subscriptions: a past-due one shows its refused attempts; Retry payment behind its confirmation brings it back', async () => {
    const testClock = await api('POST', '/api/v1/test-helpers/test-clocks', { frozenTime: '2027-01-31T10:00:00.000Z' });
    const cus = await api('POST', '/api/v1/customers', { name: 'Teva', email: 'teva@example.pf', testClockId: testClock.id });
    const declining = await saveCard(t, m.testKey, cus.id, CARDS.saveThenDecline);
    const sub = await api('POST', '/api/v1/subscriptions', {
      customerId: cus.id, paymentMethodId: declining.result.paymentMethodId, amount: 2500, currency: 'EUR', interval: 'month', retrySchedule: [1],
      description: 'Cours de vaa',
    });
    await api('POST', `/api/v1/test-helpers/test-clocks/${testClock.id}/advance`, { frozenTime: '2027-02-03T00:00:00.000Z' });
    await paymentSchedule(t, t.clock).tick();
    assert.equal((await api('GET', `/api/v1/subscriptions/${sub.id}`)).status, 'past_due');
    const card = await saveCard(t, m.testKey, cus.id);
    await api('PATCH', `/api/v1/subscriptions/${sub.id}`, { paymentMethodId: card.result.paymentMethodId });

    await visit(`/subscriptions/${sub.id}`, 'Subscription Cours de vaa');
    await page.locator('.badge').filter({ hasText: 'Past due' }).waitFor();
    const dueDates = page.getByRole('table', { name: 'Due dates, newest first, with their attempts' });
    await dueDates.locator('.badge').filter({ hasText: 'Unpaid' }).waitFor();
    assert.equal(await dueDates.getByText('card_declined').count(), 2);
    await page.getByRole('button', { name: 'Retry payment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Charge the unpaid due date again now?' });
    await dialog.getByRole('button', { name: 'Retry payment' }).click();
    await toast('The unpaid due date is being charged again.');
    await page.locator('.badge').filter({ hasText: 'Active' }).first().waitFor();
    assert.equal((await api('GET', `/api/v1/subscriptions/${sub.id}`)).status, 'active');
  });

  let invoiceId = '';

  it('invoices: a draft made from the form, finalized, sent (its page shown) and paid by a recorded payment; its PDF', async () => {
    await visit('/invoices', 'Invoices');
    await page.getByRole('table', { name: 'Invoices, newest first' }).waitFor();
    await accessible('invoices');
    await page.getByRole('link', { name: 'New invoice' }).click();
    await page.getByRole('heading', { name: 'New invoice', level: 1 }).waitFor();
    await page.getByLabel('Customer', { exact: true }).selectOption({ label: `${customer.name} · ${customer.email}` });
    await page.getByLabel('Description').fill('Pareu');
    await page.getByLabel('Quantity').fill('2');
    await page.getByLabel('Unit price before tax').fill('5000');
    await page.getByLabel('Tax rate (%)').fill('16');
    await accessible('new invoice');
    await page.getByRole('button', { name: 'Create the draft' }).click();
    await page.getByRole('heading', { name: 'Draft invoice', level: 1 }).waitFor();
    invoiceId = page.url().split('/').at(-1)!;
    assert.match(invoiceId, /^inv_/);

    await page.getByRole('button', { name: 'Finalize' }).click();
    await page.getByRole('dialog', { name: 'Finalize this invoice?' }).getByRole('button', { name: 'Finalize' }).click();
    await page.getByRole('heading', { name: /^Invoice F-\d{4}-\d{6}$/, level: 1 }).waitFor();
    // 2 × 5,000 XPF and 16 % tax: 11,600 XPF.
    assert.match(await page.locator('.amount-hero').innerText(), /XPF\s11,600/);
    await accessible('invoice detail');

    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('dialog', { name: 'Send this invoice?' }).getByRole('button', { name: 'Send' }).click();
    await toast('Invoice sent, not mailed: no mail server is set up. Share the link below with the customer.');
    await page.getByRole('region', { name: "The invoice's page for the customer" }).getByRole('button', { name: 'Copy' }).waitFor();
    assert.match(await page.locator('.invoice-url').innerText(), /\/invoices\//);
    assert.ok((await api('GET', `/api/v1/billing/invoices/${invoiceId}`)).sentAt);

    await page.getByRole('button', { name: 'Record a payment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Record a payment received outside Motu' });
    await dialog.getByLabel('Amount received').fill('11600');
    await dialog.getByLabel('Method').selectOption('cash');
    await dialog.getByRole('button', { name: 'Record a payment' }).click();
    await toast('Payment recorded.');
    await page.locator('.badge').filter({ hasText: 'Paid' }).first().waitFor();
    const paid = await api('GET', `/api/v1/billing/invoices/${invoiceId}`);
    assert.deepEqual([paid.status, paid.amountPaid, paid.amountRemaining], ['paid', 11_600, 0]);

    const pdf = await page.request.get(suite.baseUrl + await page.getByRole('link', { name: 'Download PDF' }).getAttribute('href'));
    assert.equal(pdf.headers()['content-type'], 'application/pdf');
  });

  it('invoices: a credit note on a finalized invoice, then Mark uncollectible, each behind its confirmation', async () => {
    const created = await api('POST', '/api/v1/billing/invoices', { customerId: customer.id, currency: 'EUR', lines: [{ description: 'Cours', quantity: 1, unitPrice: 5_000 }] });
    await api('POST', `/api/v1/billing/invoices/${created.id}/finalize`, {});
    await visit(`/invoices/${created.id}`, /^Invoice F-/);
    await page.getByRole('button', { name: 'Credit note' }).click();
    const credit = page.getByRole('dialog', { name: 'Issue a credit note?' });
    // 10 euros: amounts are typed in the currency's units.
    await credit.getByLabel(/^Amount to credit/).fill('10');
    await credit.getByLabel('Reason').selectOption('order_change');
    await accessible('credit note dialog');
    await credit.getByRole('button', { name: 'Credit note' }).click();
    await toast('Credit note A-');
    await page.getByRole('link', { name: /^PDF of A-\d{4}-\d{6}$/ }).waitFor();
    // The credit note stays on the invoice's page: read from the API, not only from the answer just given.
    await page.reload();
    await page.getByRole('link', { name: /^PDF of A-\d{4}-\d{6}$/ }).waitFor();
    assert.deepEqual(
      [(await api('GET', `/api/v1/billing/invoices/${created.id}`)).amountCredited, (await api('GET', `/api/v1/billing/invoices/${created.id}`)).amountRemaining],
      [1000, 4000],
    );
    await page.getByRole('button', { name: 'Mark uncollectible' }).click();
    await page.getByRole('dialog', { name: 'Mark this invoice uncollectible?' }).getByRole('button', { name: 'Mark uncollectible' }).click();
    await toast('Invoice marked uncollectible.');
    assert.equal((await api('GET', `/api/v1/billing/invoices/${created.id}`)).status, 'uncollectible');
  });

  it('balance: the transactions and their CSV', async () => {
    await visit('/balance', 'Balance');
    const table = page.getByRole('table', { name: 'Balance transactions, newest first' });
    await table.waitFor();
    assert.ok(await table.locator('tbody tr').count() >= 2);
    await accessible('balance');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const text = Buffer.concat((await (await download.createReadStream()).toArray()) as Buffer[]).toString('utf8');
    assert.match(text, /^id,type,amount,currency/);
    assert.match(text, new RegExp(paymentId));
  });

  it('payouts: a bank account added with its IBAN, a manual payout behind its confirmation, its page with its transactions', async () => {
    assert.equal((await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'test', currency: 'EUR', amount: 50_000, reason: 'Opening balance' })).status, 201);
    await visit('/payouts', 'Payouts');
    await page.getByText('No bank account: add one to receive payouts.').waitFor();
    await page.getByRole('link', { name: 'Change the payout schedule in Settings' }).waitFor();
    await page.getByRole('button', { name: 'Add a bank account' }).click();
    const add = page.getByRole('dialog', { name: 'Add a bank account' });
    await add.getByLabel('IBAN').fill(PAID_IBAN);
    await add.getByLabel('Account holder').fill('Fare Ute SARL');
    await add.getByRole('button', { name: 'Add' }).click();
    await toast('Bank account added.');
    await page.getByRole('table', { name: 'Bank accounts' }).getByText('FR •••• 0152').waitFor();

    // What is available: the adjustment, and the payments the schedule settled by now.
    const available = (await api('GET', '/api/v1/balance')).available.find((b: { currency: string }) => b.currency === 'EUR').amount as number;
    assert.ok(available >= 50_000);
    const shown = new RegExp(`€${new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2 }).format(available / 100).replace('.', '\\.')}`);
    await page.getByRole('button', { name: 'New payout' }).click();
    const dialog = page.getByRole('dialog', { name: 'Pay out the available balance?' });
    await dialog.getByText(new RegExp(`Available now:\\s*${shown.source}`)).waitFor();
    // The amount left empty: all that is available, which carries the adjustment.
    await dialog.getByRole('button', { name: 'Pay out' }).click();
    await toast('Payout po_');
    const payouts = (await api('GET', '/api/v1/payouts')).data;
    assert.deepEqual(payouts.map((p: { amount: number; automatic: boolean }) => [p.amount, p.automatic]), [[available, false]]);
    const balance = await api('GET', '/api/v1/balance');
    assert.equal(balance.available.find((b: { currency: string }) => b.currency === 'EUR').amount, 0);
    const table = page.getByRole('table', { name: 'Payouts, newest first' });
    await table.getByText(shown).waitFor();
    await accessible('payouts');

    await table.getByRole('link').first().click();
    await page.getByRole('heading', { name: `Payout ${payouts[0].id}`, level: 1 }).waitFor();
    await page.getByRole('table', { name: 'The balance transactions this payout carries' }).getByText('Adjustment').waitFor();
    await accessible('payout detail');

    // A second EUR account made the default, then the first deleted.
    const second = await api('POST', '/api/v1/bank-accounts', { iban: 'FR7630006000010000000000249', holderName: 'Fare Ute SARL', currency: 'EUR' });
    await visit('/payouts', 'Payouts');
    await page.getByRole('button', { name: 'Make FR •••• 0249 the default' }).click();
    await page.getByRole('dialog', { name: 'Make this account the default?' }).getByRole('button', { name: 'Make default' }).click();
    await toast('Default account changed.');
    assert.equal((await api('GET', `/api/v1/bank-accounts/${second.id}`)).default, true);
    await page.getByRole('button', { name: 'Delete FR •••• 0152' }).click();
    await page.getByRole('dialog', { name: 'Delete this bank account?' }).getByRole('button', { name: 'Delete' }).click();
    await toast('Bank account deleted.');
    await page.getByRole('button', { name: 'Delete FR •••• 0152' }).waitFor({ state: 'detached' });
    assert.deepEqual((await api('GET', '/api/v1/bank-accounts')).data.map((a: { id: string }) => a.id), [second.id]);
  });

  it('disputes: the deadline, evidence saved as a draft, and Accept behind its confirmation (the chargeback is lost)', async () => {
    const disputed = await paidPayment(t, m.testKey, { amount: 3000, currency: 'EUR' });
    const dispute = await api('POST', `/api/v1/test-helpers/payments/${disputed}/dispute`, {});
    await visit('/disputes', 'Disputes');
    const table = page.getByRole('table', { name: 'Disputes, newest first' });
    await table.getByText('Needs response').waitFor();
    await accessible('disputes');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    assert.match(Buffer.concat((await (await download.createReadStream()).toArray()) as Buffer[]).toString('utf8'), new RegExp(dispute.id));
    await table.getByRole('link').first().click();
    await page.getByRole('heading', { name: `Dispute ${dispute.id}`, level: 1 }).waitFor();
    assert.match(await page.locator('.deadline').innerText(), /Respond before .*\d{4}/);
    await accessible('dispute detail');

    await page.getByLabel('Product or service description').fill('Three pareus, delivered in Papeete.');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await toast('Draft saved.');
    const draft = await api('GET', `/api/v1/disputes/${dispute.id}`);
    assert.deepEqual([draft.status, draft.evidence.productDescription, draft.evidenceSubmittedAt], ['needs_response', 'Three pareus, delivered in Papeete.', null]);

    await page.getByRole('button', { name: 'Accept dispute' }).click();
    const dialog = page.getByRole('dialog', { name: 'Accept this dispute?' });
    await dialog.getByRole('button', { name: 'Accept dispute' }).click();
    await toast('Dispute accepted.');
    await page.locator('.badge').filter({ hasText: 'Lost' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Accept dispute' }).count(), 0);
    assert.equal((await api('GET', `/api/v1/disputes/${dispute.id}`)).status, 'lost');

    // Another one answered: the evidence submitted behind its confirmation, the dispute under review.
    const second = await api('POST', `/api/v1/test-helpers/payments/${await paidPayment(t, m.testKey, { amount: 1200, currency: 'EUR' })}/dispute`, {});
    await visit(`/disputes/${second.id}`, `Dispute ${second.id}`);
    await page.getByLabel('Shipping and tracking').fill('Colissimo 6A123456789');
    await page.getByRole('button', { name: 'Submit evidence' }).click();
    await page.getByRole('dialog', { name: 'Submit the evidence?' }).getByRole('button', { name: 'Submit evidence' }).click();
    await toast('Evidence submitted.');
    await page.locator('.badge').filter({ hasText: 'Under review' }).waitFor();
    const submitted = await api('GET', `/api/v1/disputes/${second.id}`);
    assert.deepEqual([submitted.status, submitted.evidence.shippingTracking, typeof submitted.evidenceSubmittedAt], ['under_review', 'Colissimo 6A123456789', 'string']);
  });

  it('an analyst reads the money pages without the buttons its role may not use', async () => {
    // The analyst's cookie in the same browser context (its cached application), the owner's back afterwards.
    const owner = (await context.cookies(suite.baseUrl)).find((c) => c.name === 'motu_dashboard')!;
    const analyst = await signedInUser(t, m.id, 'analyst');
    const eq = analyst.cookie.indexOf('=');
    await context.addCookies([{ name: analyst.cookie.slice(0, eq), value: analyst.cookie.slice(eq + 1), url: suite.baseUrl }]);
    try {
      await visit('/payouts', 'Payouts');
      await page.getByRole('table', { name: 'Payouts, newest first' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'New payout' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Add a bank account' }).count(), 0);
      await visit(`/invoices/${invoiceId}`, /^Invoice F-/);
      await page.getByRole('link', { name: 'Download PDF' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Credit note' }).count(), 0);
    } finally {
      await context.addCookies([{ name: owner.name, value: owner.value, url: suite.baseUrl }]);
    }
  });

  it('at 390 px the money pages do not scroll sideways', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize(PHONE);
    for (const [path, heading] of [['/', 'Home'], ['/invoices/new', 'New invoice'], [`/invoices/${invoiceId}`, /^Invoice F-/]] as const) {
      await phone.goto(`${suite.baseUrl}/dashboard${path}`);
      await phone.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await phone.waitForFunction(() => document.querySelector('.loading') === null);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow} px`);
    }
    await accessible('invoice at 390 px', phone);
    await phone.close();
  });
});
