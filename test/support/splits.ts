// Split payments for tests: a platform's session split between its sellers, paid through the checkout like any other,
// and the balances read as each merchant reads its own (GET /api/v1/balance with its key).
import assert from 'node:assert/strict';
import type { TestApp } from './harness.js';
import { paySession } from './payments.js';
import { CARDS } from './cards.js';

export interface SplitEntry {
  merchantId: string;
  amount: number;
  commission?: { rate?: number; fixed?: number };
  discount?: number;
}

export interface SplitOrder {
  amount: number;
  currency?: 'EUR' | 'XPF';
  distribution: SplitEntry[];
  financing?: number;
  captureMode?: 'AUTO' | 'MANUAL';
}

/** The session body of a split order. */
export function splitSessionBody(order: SplitOrder, extra: Record<string, unknown> = {}) {
  return {
    order: {
      reference: `SPLIT-${Math.random().toString(36).slice(2, 8)}`, amount: order.amount, currency: order.currency ?? 'EUR',
      platformConfig: { distribution: order.distribution, ...(order.financing !== undefined ? { financing: { amount: order.financing } } : {}) },
    },
    captureMode: order.captureMode ?? 'AUTO',
    email: 'buyer@example.com',
    redirectUrl: 'https://shop.example/return',
    notificationUrl: 'https://shop.example/hook',
    ...extra,
  };
}

/** A split session created and paid by card; its payment id. */
export async function paidSplit(t: TestApp, platformKey: string, order: SplitOrder, card: string = CARDS.visa): Promise<string> {
  const res = await t.api(platformKey, 'POST', '/api/v1/payments/sessions', splitSessionBody(order));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  await paySession(t, res.body.sessionId, card);
  return res.body.paymentId as string;
}

export interface Balance {
  available: number;
  pending: number;
}

/** The balance of one currency as the key's merchant sees it. */
export async function balanceOf(t: TestApp, key: string, currency: 'EUR' | 'XPF' = 'EUR'): Promise<Balance> {
  const res = await t.api(key, 'GET', '/api/v1/balance');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const of = (list: Array<{ currency: string; amount: number }>) => list.find((b) => b.currency === currency)?.amount ?? 0;
  return { available: of(res.body.available), pending: of(res.body.pending) };
}
