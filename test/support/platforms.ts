// Platforms (marketplaces) and agencies for tests: the flag set through the admin API as an operator would, and a
// seller onboarded through the platform API and the hosted form, as a business would.
import assert from 'node:assert/strict';
import type { TestApp } from './harness.js';
import { createMerchant, type MerchantFixture } from './factories.js';

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
  currency?: 'EUR' | 'XPF';
}

export interface OnboardedSeller {
  merchantId: string;
  /** A secret key of the seller in the platform key's mode (made by the operator, as the seller's own would be). */
  secretKey: string;
  caseId: string;
}

/** An IBAN that passes every check (a test bank's). */
export const SELLER_IBAN = 'FR7630006000011234567890189';

function modeOf(key: string): 'test' | 'live' {
  return key.startsWith('sk_live_') ? 'live' : 'test';
}

/** The hosted form's fields, all valid, under `overrides` (names as the form's inputs). */
export function sellerForm(input: SellerInput, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    legalName: input.legalName, registrationNumber: input.registrationNumber ?? 'TAHITI A12345', line1: '12 rue du Général de Gaulle',
    postalCode: '98714', city: 'Papeete', country: 'PF', firstName: 'Hina', lastName: 'Teriitahi', birthDate: '1985-06-14',
    iban: input.iban ?? SELLER_IBAN, currency: input.currency ?? 'EUR', ...overrides,
  };
}

/** An onboarding session of the platform: {id, url, token (the URL's last segment)}. */
export async function createOnboardingSession(t: TestApp, platformKey: string, body: Record<string, unknown> = {}) {
  const res = await t.api(platformKey, 'POST', '/api/v1/platform/onboarding-sessions', { email: 'vendeur@example.pf', returnUrl: 'https://marketplace.example/onboarded', ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { ...res.body, token: new URL(res.body.url).pathname.split('/').pop()! } as { id: string; url: string; token: string; status: string; expiresAt: string };
}

/** The hosted form posted as a browser posts it (application/x-www-form-urlencoded). */
export async function postOnboardingForm(t: TestApp, token: string, fields: Record<string, string>) {
  const res = await t.app.inject({
    method: 'POST', url: `/onboarding/${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
  return { status: res.statusCode, body: res.body, headers: res.headers };
}

/**
 * A seller linked to the platform whose key is `platformKey`, its account open, in that key's mode: through the
 * platform API (an onboarding session), the hosted form, and in live mode the operator's approval.
 */
export async function onboardSeller(t: TestApp, platformKey: string, input: SellerInput): Promise<OnboardedSeller> {
  const mode = modeOf(platformKey);
  const session = await createOnboardingSession(t, platformKey, { email: input.email ?? 'vendeur@example.pf', businessName: input.legalName });
  const posted = await postOnboardingForm(t, session.token, sellerForm(input));
  assert.equal(posted.status, 303, posted.body);
  const read = await t.api(platformKey, 'GET', `/api/v1/platform/onboarding-sessions/${session.id}`);
  const caseId = read.body.caseId as string;
  if (mode === 'live') {
    const decided = await t.admin('POST', `/admin/v1/onboarding-cases/${caseId}/decision`, { enrollmentStatus: 'APPROVED' });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
  }
  const kase = await t.api(platformKey, 'GET', `/api/v1/platform/onboarding-cases/${caseId}`);
  assert.equal(kase.body.enrollmentStatus, 'APPROVED', JSON.stringify(kase.body));
  const merchantId = kase.body.merchantId as string;
  const key = await t.admin('POST', `/admin/v1/merchants/${merchantId}/keys`, { mode });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  return { merchantId, secretKey: key.body.secretKey, caseId };
}
