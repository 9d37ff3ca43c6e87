// Wallet helpers for tests: a card saved the way a browser saves it (acquirer token, then the SDK submit route).
import assert from 'node:assert/strict';
import { CARDS } from './cards.js';
import type { TestApp } from './harness.js';
import { tokenize } from './payments.js';

export async function walletSession(t: TestApp, key: string, customerId: string, returnUrl = 'https://shop.example/wallet?x=1') {
  const res = await t.api(key, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { redirectUrl: string; sessionId: string; expiresAt: string };
}

/** Registers a card through a wallet session, as the component does. */
export async function saveCard(t: TestApp, key: string, customerId: string, number: string = CARDS.visa) {
  const session = await walletSession(t, key, customerId);
  const token = await tokenize(t, session.sessionId, number);
  const res = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${session.sessionId}/submit`, { token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { session, result: res.body };
}
