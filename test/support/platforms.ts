// Platforms (marketplaces) and agencies for tests: the flag set through the admin API as an operator would, and a
// seller onboarded, linked and open for a platform's key.
import assert from 'node:assert/strict';
import type { TestApp } from './harness.js';
import { createMerchant, type MerchantFixture } from './factories.js';
import { linkSeller } from '../../src/modules/platforms/platform-links.js';

/** A merchant made a platform by the operator (`PATCH /admin/v1/merchants/{id} {platform: true}`). */
export async function makePlatform(t: TestApp, name = 'Marketplace Fenua'): Promise<MerchantFixture> {
  const merchant = await createMerchant(t, name);
  const res = await t.admin('PATCH', `/admin/v1/merchants/${merchant.id}`, { platform: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.platform, true);
  return merchant;
}

/** A merchant made an agency by the operator (`PATCH /admin/v1/merchants/{id} {agency: true}`). */
export async function makeAgency(t: TestApp, name = 'Agence Moana'): Promise<MerchantFixture> {
  const merchant = await createMerchant(t, name);
  const res = await t.admin('PATCH', `/admin/v1/merchants/${merchant.id}`, { agency: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.agency, true);
  return merchant;
}

export interface SellerInput {
  legalName: string;
  email?: string;
  registrationNumber?: string;
  iban?: string;
}

export interface OnboardedSeller {
  merchantId: string;
  /** A secret key of the seller in the platform key's mode (made by the operator, as the seller's own would be). */
  secretKey: string;
}

function modeOf(key: string): 'test' | 'live' {
  return key.startsWith('sk_live_') ? 'live' : 'test';
}

/**
 * A seller linked to the platform whose key is `platformKey`, its account open, in that key's mode.
 * (First version: the operator creates the merchant and the link is written directly; the hosted onboarding replaces
 * it, keeping this signature.)
 */
export async function onboardSeller(t: TestApp, platformKey: string, input: SellerInput): Promise<OnboardedSeller> {
  const mode = modeOf(platformKey);
  const platformId = await platformIdOf(t, platformKey);
  const created = await t.admin('POST', '/admin/v1/merchants', { name: input.legalName });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const sellerId = created.body.id as string;
  await t.admin('PATCH', `/admin/v1/merchants/${sellerId}`, { legalName: input.legalName });
  await t.db.transaction((trx) => linkSeller(trx, { platformId, sellerId, mode, at: t.clock.now() }));
  return { merchantId: sellerId, secretKey: mode === 'live' ? created.body.liveSecretKey : created.body.testSecretKey };
}

async function platformIdOf(t: TestApp, key: string): Promise<string> {
  const { sha256Hex } = await import('../../src/shared/hash.js');
  const row = await t.db.kysely.selectFrom('api_keys').select('merchant_id').where('key_hash', '=', sha256Hex(key)).executeTakeFirst();
  assert.ok(row, 'the platform key is not known');
  return row.merchant_id;
}
