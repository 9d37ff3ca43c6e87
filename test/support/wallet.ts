// Wallet helpers for tests: a card saved the way a browser saves it (acquirer token, then the SDK submit route).
import assert from 'node:assert/strict';
import type { TestApp } from './harness.js';

export const CARDS = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  cbVisa: '4970100000000006',
  saveThenDecline: '4000000000000341',
  declined: '4000000000000002',
  challenge: '4000000000003220',
  browserUnfit: '4000000000001208',
} as const;

/** A card token as the secure fields mounted for `sessionId` (a payment or wallet session) ask for it. */
export async function cardToken(t: TestApp, sessionId: string, number: string, mode: 'test' | 'live' = 'test'): Promise<string> {
  const res = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode, number, expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '123', session: sessionId });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.token;
}

export async function createCustomer(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.api(key, 'POST', '/api/v1/customers', { email: `c${Math.random().toString(36).slice(2)}@example.com`, ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

export async function walletSession(t: TestApp, key: string, customerId: string, returnUrl = 'https://shop.example/wallet?x=1') {
  const res = await t.api(key, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { redirectUrl: string; sessionId: string; expiresAt: string };
}

/** Registers a card through a wallet session, as the component does. */
export async function saveCard(t: TestApp, key: string, customerId: string, number: string = CARDS.visa) {
  const session = await walletSession(t, key, customerId);
  const token = await cardToken(t, session.sessionId, number);
  const res = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${session.sessionId}/submit`, { token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { session, result: res.body };
}

export async function eventsOf(t: TestApp, type: string): Promise<any[]> {
  const rows = await t.db.kysely.selectFrom('webhook_events').select(['body']).where('type', '=', type).orderBy('created_at').orderBy('seq').execute();
  return rows.map((r) => JSON.parse(r.body));
}
