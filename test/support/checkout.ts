// Fixtures for checkout tests, through the merchant API.
import assert from 'node:assert/strict';
import type { TestApp } from './harness.js';

export async function createCustomer(t: TestApp, key: string, email: string): Promise<{ id: string }> {
  const res = await t.api(key, 'POST', '/api/v1/customers', { email });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}
