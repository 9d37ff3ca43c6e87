// Payments through the same server-side path as the hosted checkout, without a browser: the merchant creates a
// session (API), the secure fields' token endpoint tokenizes the card (/acquirer/v1/tokens), the page's pay call
// authorizes (/checkout/{sessionId}/pay). Nothing is written by hand.
import assert from 'node:assert/strict';
import { CARDS } from './cards.js';
import type { TestApp } from './harness.js';
import { LIVE_PROFILE } from './profile.js';

export interface PayOptions {
  /** Extra session fields (customerId, saveCustomer, allowCustomerToSavePaymentMethod…). */
  extra?: Record<string, unknown>;
  amount?: number;
  currency?: 'EUR' | 'XPF';
  captureMode?: 'AUTO' | 'MANUAL';
  storeId?: string;
  card?: string;
  expiresIn?: number;
}

export async function createSession(t: TestApp, key: string, options: PayOptions = {}) {
  const res = await t.api(key, 'POST', '/api/v1/payments/sessions', {
    order: { reference: `ORD-${Math.random().toString(36).slice(2, 8)}`, amount: options.amount ?? 10_000, currency: options.currency ?? 'EUR' },
    captureMode: options.captureMode ?? 'AUTO',
    email: 'buyer@example.com',
    externalId: 'ext-1',
    redirectUrl: 'https://shop.example/return',
    notificationUrl: 'https://shop.example/hook',
    ...(options.storeId ? { storeId: options.storeId } : {}),
    ...(options.expiresIn ? { expiresIn: options.expiresIn } : {}),
    ...options.extra,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { paymentId: string; sessionId: string };
}

/** A card token as the secure fields mounted for `sessionId` (a payment or wallet session) ask for it; each takes one of the session's tokens. */
export async function tokenize(t: TestApp, sessionId: string, number: string = CARDS.visa): Promise<string> {
  if (LIVE_PROFILE) {
    // Live profile: the page asks for a Monext widget session, the cardholder types the card in the widget (the
    // fake plays it; its test cards answer as the simulator's do), and the widget's token is what the page sends.
    const entry = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: sessionId });
    assert.equal(entry.status, 201, JSON.stringify(entry.body));
    t.monext!.payInWidget(entry.body.token, number);
    return entry.body.token;
  }
  const res = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number, expMonth: 12, expYear: 2040, cvc: '123', session: sessionId });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.token;
}

export async function paySession(t: TestApp, sessionId: string, card: string = CARDS.visa, extra: Record<string, unknown> = {}) {
  const token = await tokenize(t, sessionId, card);
  const res = await t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { next: string; url: string };
}

/** A session paid by card: AUTO → captured, MANUAL → transit. Returns the payment id. */
export async function paidPayment(t: TestApp, key: string, options: PayOptions = {}): Promise<string> {
  const session = await createSession(t, key, options);
  await paySession(t, session.sessionId, options.card);
  return session.paymentId;
}
