// Back-office users in tests: a user made through the operator's admin API, set up through its link, and a client
// that calls the API as the back-office does (the session cookie, and X-CSRF-Token on every change).
import assert from 'node:assert/strict';
import type { TestApp } from './harness.js';

export const PASSWORD = 'correct horse battery staple';

export type Role = 'owner' | 'admin' | 'developer' | 'support' | 'analyst';

export interface UserClient {
  id: string;
  email: string;
  cookie: string;
  csrfToken: string;
  /** A call with the session cookie; changes carry the CSRF token unless `csrf: false`. */
  call(method: string, url: string, body?: unknown, options?: { csrf?: boolean; headers?: Record<string, string> }): ReturnType<TestApp['api']>;
}

/** Creates the user with the operator's admin API; answers its set-up token (the link's last path segment). */
export async function createUser(t: TestApp, merchantId: string, email: string, role: Role): Promise<{ id: string; token: string; setupUrl: string }> {
  const res = await t.admin('POST', `/admin/v1/merchants/${merchantId}/users`, { email, role });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.id, setupUrl: res.body.setupUrl, token: String(res.body.setupUrl).split('/').at(-1)! };
}

export function cookieOf(headers: Record<string, unknown>): string {
  const raw = headers['set-cookie'];
  const line = Array.isArray(raw) ? raw[0] : String(raw);
  return line.split(';')[0]!;
}

export function clientFor(t: TestApp, id: string, email: string, cookie: string, csrfToken: string): UserClient {
  return {
    id, email, cookie, csrfToken,
    call: (method, url, body, options = {}) => t.api(undefined, method, url, body, {
      cookie, ...(options.csrf === false || method === 'GET' ? {} : { 'x-csrf-token': csrfToken }), ...options.headers,
    }),
  };
}

/** A user of `role`, set up with PASSWORD and signed in. */
export async function signedInUser(t: TestApp, merchantId: string, role: Role, email = `${role}-${Math.random().toString(36).slice(2, 8)}@shop.example`): Promise<UserClient> {
  const { id, token } = await createUser(t, merchantId, email, role);
  const res = await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return clientFor(t, id, email, cookieOf(res.headers), res.body.csrfToken);
}

export async function signIn(t: TestApp, email: string, password = PASSWORD, code?: string) {
  return t.api(undefined, 'POST', '/dashboard/api/sign-in', { email, password, ...(code ? { code } : {}) });
}

/** A phone's viewport, for the back-office's 390 px checks. */
export const PHONE = { width: 390, height: 844 };

/** A complete legal identity (invoicing opens with it). */
export const LEGAL_IDENTITY = {
  legalName: 'Fare Ute SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' },
  registrationNumber: 'TAHITI A12345', taxId: '123456',
};

/** The merchant API with a key (read when called: the merchant is made in a `before`), asserting a 2xx; its body. */
export function okApi(t: TestApp, key: () => string) {
  return async (method: string, url: string, body?: unknown) => {
    const res = await t.api(key(), method, url, body);
    assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
}
