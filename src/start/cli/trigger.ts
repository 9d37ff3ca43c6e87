// `motu trigger <event>`: a real test-mode event, produced the way an integration produces it. Every step is an HTTP
// call to the running Motu: the merchant's API with the test secret key (sessions, captures, refunds, customers), and
// for the buyer's side the calls the hosted checkout and the card component make (a card token from the simulator's
// secure fields, then the checkout's pay call or the wallet session's submit). Nothing is written to the database
// directly, so the events, their payloads and their deliveries are the ones a real payment makes.
import { randomBytes } from 'node:crypto';
import { CliError } from './errors.js';
import { apiCall, requireTestKey, type ApiTarget } from './http.js';

/** Simulator test cards (docs/checkout.md, "Test cards"). */
const CARD = { ok: '4242424242424242', declined: '4000000000000002' } as const;

export interface TriggerOptions extends ApiTarget {
  /** Minor units, EUR (default 2500: 25.00 EUR). */
  amount?: number;
  /** The payment session's notificationUrl (a session needs one). */
  notificationUrl?: string;
}

export interface TriggerResult {
  event: string;
  /** The ids of what was created, by kind. */
  objects: Record<string, string>;
  /** The id of the event asked for. */
  eventId: string;
  /** Every event these objects produced, oldest first (a capture also makes payment.authorized, …). */
  events: Array<{ id: string; type: string; createdAt: string }>;
}

/**
 * The local receiver that `motu listen --forward-to` points at in the README and docs/cli.md: the session's notification
 * reaches the developer's own receiver, not an address whose deliveries are retried for hours and then given up.
 */
export const DEFAULT_NOTIFICATION_URL = 'http://localhost:4000/hooks';

class Steps {
  readonly objects: Record<string, string> = {};
  constructor(private readonly target: ApiTarget, private readonly options: TriggerOptions) {}

  call<T>(method: string, path: string, body: unknown, what: string, auth = true): Promise<T> {
    return apiCall<T>(this.target, method, path, body, what, { auth });
  }

  async session(captureMode: 'AUTO' | 'MANUAL'): Promise<{ paymentId: string; sessionId: string }> {
    const created = await this.call<{ paymentId: string; sessionId: string }>('POST', '/api/v1/payments/sessions', {
      order: { reference: `motu-trigger-${randomBytes(4).toString('hex')}`, amount: this.options.amount ?? 2500, currency: 'EUR' },
      captureMode,
      // The buyer's email, which the hosted checkout would otherwise ask for (its receipt goes there when mail is on).
      email: 'buyer@example.com',
      redirectUrl: 'https://shop.example/return',
      notificationUrl: this.options.notificationUrl ?? DEFAULT_NOTIFICATION_URL,
    }, 'Creating a payment session');
    this.objects.sessionId = created.sessionId;
    this.objects.paymentId = created.paymentId;
    return created;
  }

  /** What the secure card fields do: the simulator tokenizes the card for this session (payment or wallet). */
  async token(sessionId: string, number: string): Promise<string> {
    const expYear = new Date().getUTCFullYear() + 4;
    const res = await this.call<{ token: string }>('POST', '/acquirer/v1/tokens', { mode: 'test', number, expMonth: 12, expYear, cvc: '123', session: sessionId },
      'Tokenizing the test card', false);
    return res.token;
  }

  /** What the hosted checkout's Pay button does. */
  async pay(sessionId: string, number: string = CARD.ok): Promise<void> {
    const token = await this.token(sessionId, number);
    await this.call('POST', `/checkout/${sessionId}/pay`, { token }, 'Paying on the hosted checkout', false);
  }

  async paid(captureMode: 'AUTO' | 'MANUAL'): Promise<string> {
    const { sessionId, paymentId } = await this.session(captureMode);
    await this.pay(sessionId);
    return paymentId;
  }

  async refund(paymentId: string, amount?: number): Promise<void> {
    const refund = await this.call<{ id: string }>('POST', `/api/v1/payments/${paymentId}/refund`, amount === undefined ? {} : { amount }, 'Refunding the payment');
    this.objects.refundId = refund.id;
  }

  async customer(): Promise<string> {
    // A customer's email is unique per merchant: each trigger makes its own.
    const email = `trigger-${randomBytes(4).toString('hex')}@example.com`;
    const created = await this.call<{ id: string }>('POST', '/api/v1/customers', { name: 'Motu trigger', email }, 'Creating a customer');
    this.objects.customerId = created.id;
    return created.id;
  }

  /** What the card component does on a wallet session: token, then submit; the card is saved. */
  async savedCard(): Promise<string> {
    const customerId = await this.customer();
    const session = await this.call<{ sessionId: string }>('POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/wallet' },
      'Creating a wallet session');
    this.objects.walletSessionId = session.sessionId;
    const token = await this.token(session.sessionId, CARD.ok);
    const result = await this.call<{ paymentMethodId?: string }>('POST', `/api/v1/sdk/sessions/${session.sessionId}/submit`, { token },
      'Saving the card on the wallet session', false);
    if (!result.paymentMethodId) throw new CliError('TRIGGER_FAILED', 'The wallet session saved no card', 'Check the server log: the simulator refused the test card.');
    this.objects.paymentMethodId = result.paymentMethodId;
    return result.paymentMethodId;
  }

  /** The cardholder disputes a captured payment (the test helper standing in for the bank's notice). */
  async dispute(paymentId: string): Promise<string> {
    const dispute = await this.call<{ id: string }>('POST', `/api/v1/test-helpers/payments/${paymentId}/dispute`, {}, 'Opening a dispute on the payment');
    this.objects.disputeId = dispute.id;
    return dispute.id;
  }

  /** A monthly subscription on a saved card, its first due date a month away: nothing is charged now. */
  async subscription(options: TriggerOptions): Promise<string> {
    const paymentMethodId = await this.savedCard();
    const startDate = new Date(Date.now() + 31 * 86_400_000).toISOString();
    const created = await this.call<{ id: string }>('POST', '/api/v1/subscriptions', {
      customerId: this.objects.customerId, paymentMethodId, amount: options.amount ?? 2500, currency: 'EUR', interval: 'month', startDate,
      description: 'Motu trigger',
    }, 'Creating a subscription');
    this.objects.subscriptionId = created.id;
    return created.id;
  }

  /** An invoice of one line, finalized: its number, invoice.issued (the merchant's legal identity must be complete). */
  async issuedInvoice(options: TriggerOptions): Promise<{ id: string; total: number }> {
    const customerId = await this.customer();
    const draft = await this.call<{ id: string }>('POST', '/api/v1/billing/invoices', {
      customerId, currency: 'EUR', lines: [{ description: 'Motu trigger', quantity: 1, unitPrice: options.amount ?? 2500 }],
    }, 'Creating a draft invoice');
    this.objects.invoiceId = draft.id;
    return this.call<{ id: string; total: number }>('POST', `/api/v1/billing/invoices/${draft.id}/finalize`, {}, 'Finalizing the invoice');
  }
}

interface Trigger {
  description: string;
  run(steps: Steps, options: TriggerOptions): Promise<void>;
}

/** Every event `motu trigger` can produce, with what it does to produce it (shown by `motu trigger --help`). */
export const TRIGGERS: Record<string, Trigger> = {
  'payment.authorized': {
    description: 'a MANUAL-capture session paid with 4242 4242 4242 4242 (left authorized)',
    run: async (s) => void (await s.paid('MANUAL')),
  },
  'payment.captured': {
    description: 'an AUTO-capture session paid with 4242 4242 4242 4242',
    run: async (s) => void (await s.paid('AUTO')),
  },
  'payment.partially_refunded': {
    description: 'a captured payment, then half of it refunded',
    run: async (s, o) => s.refund(await s.paid('AUTO'), Math.max(1, Math.floor((o.amount ?? 2500) / 2))),
  },
  'payment.refunded': {
    description: 'a captured payment, then refunded in full',
    run: async (s) => s.refund(await s.paid('AUTO')),
  },
  'payment.cancelled': {
    description: 'a MANUAL-capture payment authorized, then cancelled (POST /payments/{id}/cancel)',
    run: async (s) => {
      const paymentId = await s.paid('MANUAL');
      await s.call('POST', `/api/v1/payments/${paymentId}/cancel`, undefined, 'Cancelling the payment');
    },
  },
  'payment.failed': {
    description: 'a session paid with the declined test card 4000 0000 0000 0002',
    run: async (s) => {
      const { sessionId } = await s.session('AUTO');
      await s.pay(sessionId, CARD.declined);
    },
  },
  'customer.created': {
    description: 'a customer created (POST /customers)',
    run: async (s) => void (await s.customer()),
  },
  'customer.updated': {
    description: 'a customer created, then renamed (PATCH /customers/{id})',
    run: async (s) => {
      const id = await s.customer();
      await s.call('PATCH', `/api/v1/customers/${id}`, { name: 'Motu trigger (renamed)' }, 'Updating the customer');
    },
  },
  'payment_method.added': {
    description: 'a customer, then a card saved through a wallet session as the card component does',
    run: async (s) => void (await s.savedCard()),
  },
  'payment_method.removed': {
    description: 'a saved card, then deleted (DELETE /payment-methods/{id})',
    run: async (s) => {
      const id = await s.savedCard();
      await s.call('DELETE', `/api/v1/payment-methods/${id}`, undefined, 'Deleting the saved card');
    },
  },
  'dispute.created': {
    description: 'a captured payment, then disputed by the cardholder (POST /test-helpers/payments/{id}/dispute)',
    run: async (s) => void (await s.dispute(await s.paid('AUTO'))),
  },
  'dispute.updated': {
    description: 'a disputed payment, then the dispute accepted (POST /disputes/{id}/accept): lost',
    run: async (s) => {
      const id = await s.dispute(await s.paid('AUTO'));
      await s.call('POST', `/api/v1/disputes/${id}/accept`, {}, 'Accepting the dispute');
    },
  },
  'subscription.created': {
    description: 'a saved card, then a monthly subscription on it whose first due date is a month away',
    run: async (s, o) => void (await s.subscription(o)),
  },
  'subscription.cancelled': {
    description: 'a subscription, then cancelled at once (POST /subscriptions/{id}/cancel)',
    run: async (s, o) => {
      const id = await s.subscription(o);
      await s.call('POST', `/api/v1/subscriptions/${id}/cancel`, {}, 'Cancelling the subscription');
    },
  },
  'invoice.issued': {
    description: 'a customer, then an invoice of one line finalized (needs the legal identity: GET /billing/settings)',
    run: async (s, o) => void (await s.issuedInvoice(o)),
  },
  'invoice.paid': {
    description: 'an issued invoice, then a bank transfer recorded for all of it (POST /billing/invoices/{id}/payments)',
    run: async (s, o) => {
      const invoice = await s.issuedInvoice(o);
      await s.call('POST', `/api/v1/billing/invoices/${invoice.id}/payments`, { amount: invoice.total, method: 'bank_transfer' }, 'Recording the payment');
    },
  },
};

/** The lines of `motu trigger --help` naming every event. */
export function triggerHelp(): string {
  const width = Math.max(...Object.keys(TRIGGERS).map((k) => k.length));
  return Object.entries(TRIGGERS).map(([name, t]) => `  ${name.padEnd(width)}  ${t.description}`).join('\n');
}

type ListedEvent = { id: string; type: string; createdAt: string; data: Record<string, unknown> };

export async function trigger(event: string, options: TriggerOptions): Promise<TriggerResult> {
  requireTestKey(options.secretKey, 'motu trigger');
  const chosen = TRIGGERS[event];
  if (!chosen) throw new Error(`unknown trigger ${event}`); // the command line checked it
  const steps = new Steps(options, options);
  await chosen.run(steps, options);
  // The events are written in the same transactions as the changes: they are there as soon as the calls answered.
  const ids = Object.values(steps.objects);
  const query = steps.objects.paymentId ? `paymentId=${encodeURIComponent(steps.objects.paymentId)}&limit=100` : 'limit=100';
  const listed = await apiCall<{ data: ListedEvent[] }>(options, 'GET', `/api/v1/events?${query}`, undefined, 'Listing the events');
  const mine = listed.data
    .filter((e) => steps.objects.paymentId || ids.some((id) => JSON.stringify(e.data).includes(`"${id}"`)))
    .reverse()
    .map((e) => ({ id: e.id, type: e.type, createdAt: e.createdAt }));
  const asked = mine.filter((e) => e.type === event).at(-1);
  if (!asked) {
    throw new CliError('TRIGGER_FAILED', `The calls succeeded but no ${event} event was recorded`,
      'The objects created are in "details"; GET /api/v1/events lists what was recorded. Check the server log.', 1, { objects: steps.objects });
  }
  return { event, objects: steps.objects, eventId: asked.id, events: mine };
}
