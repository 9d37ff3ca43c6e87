// The invoice rows of the race table (test/races.test.ts, docs/reliability.md "Races"): full credit notes, credit notes
// against payments recorded by hand, credit notes with refund of a card payment, changes of a draft against its
// finalization, the hosted page's checkout paid while the invoice is paid by hand, and concurrent first visits of the
// page. Each row runs on a merchant of its own: nothing twice, nothing above what is due, numbers without a gap, a
// contentHash that is the hash of the frozen content; the suite adds no 5xx and `motu ledger verify` clean.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CARDS } from '../support/cards.js';
import { eventsOfType } from '../support/events.js';
import { createMerchant, type MerchantFixture } from '../support/factories.js';
import type { ManualClock, TestApp } from '../support/harness.js';
import { onlyOn } from '../support/profile.js';
import { race, type Answer, type RaceRow } from '../support/races.js';
import { paymentSchedule } from '../support/schedule.js';

const AT_ONCE = 20;
const IDENTITY = { legalName: 'Fare Ute SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' }, registrationNumber: 'TAHITI A12345' };

/** What each row gets: the app, a merchant of its own (its own number series) and its API. */
interface RowContext {
  t: TestApp;
  clock: ManualClock;
  m: MerchantFixture;
  api(method: string, url: string, body?: unknown): Promise<Answer>;
}

/** An invoice row as written against its own merchant: `fire` is the `i`th of the 20 requests. */
interface InvoiceRow<S> {
  name: string;
  skip?: string | false;
  setup(c: RowContext): Promise<S>;
  fire(c: RowContext, s: S, i: number): Promise<Answer>;
  invariant(c: RowContext, s: S, answers: Answer[]): Promise<void>;
}

let merchants = 0;

/**
 * A row of the table whose setup first makes a merchant of its own with a legal identity (each row's F and A series
 * then start at 1), on an app whose manual clock reads the real time when it starts (the overpayment job is ticked).
 */
function row<S>(r: InvoiceRow<S>): RaceRow<{ c: RowContext; s: S }> {
  return race({
    name: `invoices: ${r.name}`,
    requests: AT_ONCE,
    clock: 'now',
    skip: r.skip,
    async setup({ t, clock }) {
      merchants += 1;
      const m = await createMerchant(t, `Invoice races ${merchants}`);
      assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, IDENTITY)).status, 200);
      const c: RowContext = { t, clock, m, api: (method, url, body) => t.api(m.testKey, method, url, body) };
      return { c, s: await r.setup(c) };
    },
    fire: (_app, { c, s }, i) => r.fire(c, s, i),
    invariant: (_app, { c, s }, answers) => r.invariant(c, s, answers),
  });
}

/** An invoice finalized (and sent: its page's address) for `total` EUR cents, one line without tax. */
async function openInvoice(c: RowContext, total: number, send = false) {
  const customer = (await c.api('POST', '/api/v1/customers', { name: 'Hina', email: 'hina@example.com' })).body.id as string;
  const draft = await c.api('POST', '/api/v1/billing/invoices', { customerId: customer, currency: 'EUR', lines: [{ description: 'Atelier', quantity: 1, unitPrice: total }] });
  assert.equal(draft.status, 201, JSON.stringify(draft.body));
  const open = await c.api('POST', `/api/v1/billing/invoices/${draft.body.id}/finalize`);
  assert.equal(open.status, 200, JSON.stringify(open.body));
  const url = send ? (await c.api('POST', `/api/v1/billing/invoices/${draft.body.id}/send`)).body.url as string : null;
  return { id: draft.body.id as string, customer, url };
}

const invoice = async (c: RowContext, id: string) => (await c.api('GET', `/api/v1/billing/invoices/${id}`)).body;
const creditNotes = async (c: RowContext, id: string) => (await c.api('GET', `/api/v1/billing/credit-notes?invoiceId=${id}&limit=100`)).body.data as Array<{ amount: number; number: string }>;
const statuses = (answers: Answer[]) => answers.map((a) => a.status);
const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

/** The numbers of a series, 1 to N without a gap nor a duplicate. */
function gapless(numbers: string[], series: 'F' | 'A') {
  const n = numbers.map((x) => {
    assert.match(x, new RegExp(`^${series}-\\d{4}-\\d{6}$`));
    return Number(x.split('-')[2]);
  }).sort((a, b) => a - b);
  assert.deepEqual(n, n.map((_, i) => i + 1), `${series} series: ${numbers.join(', ')}`);
}

/** The customer's way to the hosted page's checkout: the session its "Pay by card" link opens. */
async function pageCheckout(c: RowContext, url: string): Promise<string | null> {
  const page = await c.t.api(undefined, 'GET', new URL(url).pathname);
  assert.equal(page.status, 200);
  return /\/checkout\/(ses_[0-9A-Za-z]+)/.exec(String(page.body))?.[1] ?? null;
}

async function tokenize(c: RowContext, session: string): Promise<string> {
  const token = await c.t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.visa, expMonth: 12, expYear: 2040, cvc: '123', session });
  assert.equal(token.status, 201, JSON.stringify(token.body));
  return token.body.token;
}

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every card payment made for the invoice's page, as the merchant reads them. */
async function cardPayments(c: RowContext, invoiceId: string) {
  const ids = await c.t.db.kysely.selectFrom('payments').select('id').where('invoice_id', '=', invoiceId).execute();
  return Promise.all(ids.map(async ({ id }) => (await c.api('GET', `/api/v1/payments/${id}`)).body));
}

/** The content frozen at finalization, hashed as documented (docs/billing.md): recomputed from what the invoice shows. */
function frozenHash(inv: any, merchantId: string): string {
  const content = {
    number: inv.number, merchantId, customerId: inv.customerId, currency: inv.currency,
    lines: inv.lines.map(({ amount: _amount, ...line }: { amount: number }) => line), memo: inv.memo, subtotal: inv.subtotal, taxes: inv.taxes,
    total: inv.total, dueDate: inv.dueDate, issuedAt: inv.finalizedAt,
  };
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

/** The invoice rows of the race table (test/races.test.ts). */
export const invoiceRaces: RaceRow[] = [
  row({
    name: '20 credit notes of the whole amount at once: one credit note, the others 422, no number lost',
    setup: (c) => openInvoice(c, 1000),
    fire: (c, inv) => c.api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { reason: 'duplicate' }),
    async invariant(c, inv, answers) {
      assert.equal(count(answers, 201), 1, statuses(answers).join());
      for (const a of answers.filter((x) => x.status !== 201)) assert.equal(a.body.code, 'INVOICING_CREDIT_EXCEEDS_CREDITABLE', JSON.stringify(a.body));
      const notes = await creditNotes(c, inv.id);
      assert.deepEqual(notes.map((n) => n.amount), [1000]);
      gapless(notes.map((n) => n.number), 'A');
      const after = await invoice(c, inv.id);
      assert.deepEqual([after.status, after.amountCredited, after.amountPaid, after.amountRemaining], ['credited', 1000, 0, 0]);
      assert.equal((await eventsOfType(c.t, 'invoice.credited')).filter((e) => e.data.invoiceId === inv.id).length, 1);
    },
  }),
  row({
    name: '10 credit notes and 10 payments by hand of the whole amount at once: exactly one of them',
    setup: (c) => openInvoice(c, 1000),
    fire: (c, inv, i) => i % 2 === 0
      ? c.api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { amount: 1000, reason: 'order_change' })
      : c.api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 1000, method: 'bank_transfer' }),
    async invariant(c, inv, answers) {
      assert.equal(answers.filter((a) => a.status === 200 || a.status === 201).length, 1, statuses(answers).join());
      for (const a of answers.filter((x) => x.status >= 300)) assert.equal(a.status, 422, JSON.stringify(a.body));
      const after = await invoice(c, inv.id);
      assert.equal(after.amountPaid + after.amountCredited, 1000);
      assert.ok(['paid', 'credited'].includes(after.status), after.status);
      const notes = await creditNotes(c, inv.id);
      assert.equal(notes.reduce((s, n) => s + n.amount, 0), after.amountCredited);
      gapless(notes.map((n) => n.number), 'A');
    },
  }),
  row({
    name: '10 credit notes and 10 payments by hand of 1.50 on 10.00 at once: as many as fit, never above the total',
    setup: (c) => openInvoice(c, 1000),
    fire: (c, inv, i) => i % 2 === 0
      ? c.api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { amount: 150, reason: 'order_change' })
      : c.api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 150, method: 'cash' }),
    async invariant(c, inv, answers) {
      const ok = answers.filter((a) => a.status === 200 || a.status === 201).length;
      assert.equal(ok, 6, statuses(answers).join());
      const after = await invoice(c, inv.id);
      assert.equal(after.amountPaid + after.amountCredited, 900);
      assert.equal(after.amountRemaining, 100);
      const notes = await creditNotes(c, inv.id);
      assert.equal(notes.length * 150, after.amountCredited);
      gapless(notes.map((n) => n.number), 'A');
    },
  }),
  row({
    name: '20 credit notes with refund of the whole amount at once on an invoice paid by card: one refund, one credit note',
    skip: onlyOn('simulator', 'the simulator\'s test cards through the token endpoint'),
    async setup(c) {
      const inv = await openInvoice(c, 1000, true);
      const session = await pageCheckout(c, inv.url!);
      const paid = await c.t.api(undefined, 'POST', `/checkout/${session}/pay`, { token: await tokenize(c, session!) });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.equal((await invoice(c, inv.id)).status, 'paid');
      return inv;
    },
    fire: (c, inv) => c.api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { reason: 'product_unsatisfactory', refund: true }),
    async invariant(c, inv, answers) {
      assert.equal(count(answers, 201), 1, statuses(answers).join());
      for (const a of answers.filter((x) => x.status !== 201)) assert.equal(a.status, 422, JSON.stringify(a.body));
      const [card] = await cardPayments(c, inv.id).then((all) => all.filter((p) => p.capturedAmount > 0));
      assert.deepEqual([card.status, card.refundedAmount], ['refunded', 1000]);
      const notes = await creditNotes(c, inv.id);
      assert.deepEqual(notes.map((n) => n.amount), [1000]);
      gapless(notes.map((n) => n.number), 'A');
      const after = await invoice(c, inv.id);
      assert.deepEqual([after.status, after.amountPaid, after.amountCredited], ['credited', 0, 1000]);
    },
  }),
  row({
    name: '15 changes of a draft and 5 finalizations at once: one number, and the hash is that of the lines frozen',
    async setup(c) {
      const customer = (await c.api('POST', '/api/v1/customers', { name: 'Teva' })).body.id as string;
      const draft = await c.api('POST', '/api/v1/billing/invoices', { customerId: customer, currency: 'XPF', lines: [{ description: 'Avant', quantity: 1, unitPrice: 1000, taxRate: 0 }] });
      assert.equal(draft.status, 201);
      return { id: draft.body.id as string };
    },
    // A finalization first, the changes right behind it: they land while it reads the draft and takes its number.
    fire: (c, inv, i) => i % 4 !== 0
      ? c.api('PATCH', `/api/v1/billing/invoices/${inv.id}`, { lines: [{ description: `Après ${i}`, quantity: 1, unitPrice: 2000 + i, taxRate: 1300 }], memo: `changement ${i}` })
      : c.api('POST', `/api/v1/billing/invoices/${inv.id}/finalize`),
    async invariant(c, inv, answers) {
      const finalizations = answers.filter((_, i) => i % 4 === 0);
      assert.equal(count(finalizations, 200), 1, statuses(finalizations).join());
      for (const a of answers.filter((x) => x.status !== 200)) assert.equal(a.body.code, 'INVOICING_INVOICE_FINALIZED', JSON.stringify(a.body));
      const after = await invoice(c, inv.id);
      assert.equal(after.status, 'open');
      assert.equal(after.contentHash, frozenHash(after, c.m.id), 'the hash is of the content the invoice shows');
      // The last change that answered 200 before the finalization is what was frozen: its memo and its lines agree.
      const memo = Number(after.memo?.split(' ')[1] ?? -1);
      if (after.memo) assert.equal(after.lines[0].unitPrice, 2000 + memo);
      gapless([after.number], 'F');
    },
  }),
  row({
    name: "the page's checkout paid 10 times while the invoice is paid by hand 10 times: paid once, anything taken beyond refunded and announced",
    skip: onlyOn('simulator', 'the simulator\'s test cards through the token endpoint'),
    async setup(c) {
      const inv = await openInvoice(c, 1000, true);
      const session = await pageCheckout(c, inv.url!);
      assert.ok(session);
      // The cards typed beforehand (the secure fields' tokens), so that the pay calls reach the acquirer at once.
      const tokens = await Promise.all(Array.from({ length: AT_ONCE / 2 }, () => tokenize(c, session)));
      return { ...inv, session, tokens };
    },
    // The payments by hand spread over the time a card takes (about 300 ms here: authorization, then capture), so that
    // runs land before the authorization (the checkout cancelled: the card is given back), between it and the capture
    // (the capture's excess refunded) and after it (422: nothing left to pay).
    fire: (c, inv, i) => i % 2 === 0
      ? c.t.api(undefined, 'POST', `/checkout/${inv.session}/pay`, { token: inv.tokens[i / 2] })
      : later((i + 1) * 25).then(() => c.api('POST', `/api/v1/billing/invoices/${inv.id}/payments`, { amount: 1000, method: 'bank_transfer' })),
    async invariant(c, inv, answers) {
      for (const a of answers) assert.ok(a.status < 500, JSON.stringify(a.body));
      await paymentSchedule(c.t, c.clock).tick(); // the refund of any overpayment (run every second by the worker)
      const after = await invoice(c, inv.id);
      assert.deepEqual([after.status, after.amountPaid, after.amountRemaining], ['paid', 1000, 0]);
      const byHand = answers.filter((a, i) => i % 2 === 1 && a.status === 200).length;
      const cards = await cardPayments(c, inv.id);
      const kept = cards.reduce((s, p) => s + p.capturedAmount - (p.refundedAmount ?? 0), 0);
      assert.equal(kept + byHand * 1000, 1000, `cards kept ${kept}, by hand ${byHand}`);
      const overpaid = (await eventsOfType(c.t, 'invoice.overpayment_refunded')).filter((e) => e.data.invoiceId === inv.id);
      const captured = cards.reduce((s, p) => s + p.capturedAmount, 0);
      assert.equal(overpaid.reduce((s, e) => s + e.data.refundAmount, 0), captured - kept, 'every amount given back is announced');
      assert.ok(cards.every((p) => p.status !== 'pending' || p.capturedAmount === 0));
    },
  }),
  row({
    name: "20 first visits of the hosted page at once: one checkout kept, every visitor offered it",
    setup: (c) => openInvoice(c, 1000, true),
    // The send made one; a credit note (the first request) makes it stale, so every visit after it wants a new one.
    fire: (c, inv, i) => i === 0
      ? c.api('POST', `/api/v1/billing/invoices/${inv.id}/credit-notes`, { amount: 100, reason: 'other' })
      : c.t.api(undefined, 'GET', new URL(inv.url!).pathname),
    async invariant(c, inv, answers) {
      assert.equal(answers[0]!.status, 201);
      const offered = new Set(await Promise.all(Array.from({ length: 3 }, () => pageCheckout(c, inv.url!))));
      assert.equal(offered.size, 1);
      const cards = await cardPayments(c, inv.id);
      const open = cards.filter((p) => p.status === 'pending');
      assert.equal(open.length, 1, cards.map((p) => `${p.amount}:${p.status}`).join());
      assert.equal(open[0].amount, 900);
      for (const a of answers.slice(1)) {
        const session = /\/checkout\/(ses_[0-9A-Za-z]+)/.exec(String(a.body))?.[1];
        if (session) assert.ok(offered.has(session) || cards.some((p) => p.status === 'cancelled'), 'a checkout offered before the credit note is cancelled');
      }
    },
  }),
];
