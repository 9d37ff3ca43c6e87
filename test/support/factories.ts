// Factories: build merchants, stores and keys through the admin API, as an operator would, and customers through
// the merchant API, as a merchant would.
import assert from 'node:assert/strict';
import type { TestApp } from './harness.js';
import { FAKE_MONEXT_CREDENTIALS } from './fake-monext.js';
import { LIVE_PROFILE } from './profile.js';
import type { CustomerData } from '../../src/events/payloads.js';

export interface MerchantFixture {
  id: string;
  testKey: string;
  liveKey: string;
  testWebhookSecret: string;
  liveWebhookSecret: string;
  defaultContractId: string;
  /** The key the suite pays with: the test key, or the live key under the live profile (test/support/profile.ts). */
  key: string;
  /** The webhook secret events of `key`'s mode are signed with. */
  webhookSecret: string;
  /** The merchant's key of the other mode (live under the simulator profile, test under the live one): it never sees `key`'s objects. */
  otherModeKey: string;
}

export async function createMerchant(t: TestApp, name = 'Fare Ute'): Promise<MerchantFixture> {
  const res = await t.admin('POST', '/admin/v1/merchants', { name });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  // Live profile: the default contract takes cards through Monext (the app's fake), as an operator connects it.
  await connectUnderLiveProfile(t, res.body.defaultContractId);
  return {
    key: LIVE_PROFILE ? res.body.liveSecretKey : res.body.testSecretKey,
    webhookSecret: LIVE_PROFILE ? res.body.liveWebhookSecret : res.body.testWebhookSecret,
    otherModeKey: LIVE_PROFILE ? res.body.testSecretKey : res.body.liveSecretKey,
    id: res.body.id,
    testKey: res.body.testSecretKey,
    liveKey: res.body.liveSecretKey,
    testWebhookSecret: res.body.testWebhookSecret,
    liveWebhookSecret: res.body.liveWebhookSecret,
    defaultContractId: res.body.defaultContractId,
  };
}

export async function createStore(
  t: TestApp,
  merchantId: string,
  body: { code: string; name?: string; kind?: 'online' | 'physical'; contractId?: string; active?: boolean },
) {
  const res = await t.admin('POST', `/admin/v1/merchants/${merchantId}/stores`, { name: body.code, kind: 'online', ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; code: string; name: string; kind: string; active: boolean; contractId: string | null };
}

export async function createKey(t: TestApp, merchantId: string, body: { mode: 'test' | 'live'; permission?: 'read' | 'write'; storeId?: string }) {
  const res = await t.admin('POST', `/admin/v1/merchants/${merchantId}/keys`, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; secretKey: string };
}

/** A customer of the merchant (a random email unless given); returns its id. */
export async function createCustomer(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.api(key, 'POST', '/api/v1/customers', { email: `c${Math.random().toString(36).slice(2)}@example.com`, ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

/** Under the live profile (test/support/profile.ts), connects a contract to the app's fake Monext; else nothing. */
export async function connectUnderLiveProfile(t: TestApp, contractId: string): Promise<void> {
  if (!LIVE_PROFILE) return;
  const connected = await t.admin('PATCH', `/admin/v1/contracts/${contractId}`, {
    acquirer: 'monext', monext: { ...FAKE_MONEXT_CREDENTIALS, environment: 'homologation' },
  });
  assert.equal(connected.status, 200, JSON.stringify(connected.body));
}

/** A customer's event payload as Motu records it (`customer.created`), for tests that write events directly. */
export function customerData(id: string, name: string): CustomerData {
  const at = '2026-01-01T00:00:00.000Z';
  return { id, email: null, externalId: null, name, phone: null, address: null, metadata: null, testClockId: null, createdAt: at, updatedAt: at };
}
