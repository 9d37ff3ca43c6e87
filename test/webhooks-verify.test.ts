// The merchant helper `motu/webhooks`, checked against signatures computed independently in the test.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { it } from 'node:test';
import { verifyWebhook } from '../src/events/verify.js';

const secret = 'whsec_0123456789abcdefghijABCDEFGHIJKL';
const body = '{"id":"whe_abc","type":"payment.captured","createdAt":"2026-01-01T00:00:00.000Z","data":{"amount":1000}}';
const now = 1_800_000_000;
const sign = (payload: string, key = secret) => createHmac('sha256', key).update(payload).digest('hex');

function headers(ts = now, b = body) {
  return { 'X-Service-Timestamp': String(ts), 'X-Service-Signature-V2': sign(`${ts}.${b}`), 'X-Service-Signature': sign(b) };
}

it('accepts a V2 signature within the tolerance and returns the event', () => {
  const r = verifyWebhook(Buffer.from(body), headers(), secret, { nowSeconds: now + 299 });
  assert.equal(r.ok, true);
  assert.equal(r.ok && r.version, 'v2');
  assert.equal(r.ok && r.event.id, 'whe_abc');
});

it('refuses a stale or future timestamp, a tampered body, a wrong secret', () => {
  assert.deepEqual(verifyWebhook(body, headers(), secret, { nowSeconds: now + 301 }), { ok: false, reason: 'timestamp_out_of_tolerance' });
  assert.deepEqual(verifyWebhook(body, headers(), secret, { nowSeconds: now - 301 }), { ok: false, reason: 'timestamp_out_of_tolerance' });
  assert.deepEqual(verifyWebhook(body.replace('1000', '9000'), headers(), secret, { nowSeconds: now }), { ok: false, reason: 'invalid_signature' });
  assert.deepEqual(verifyWebhook(body, headers(), 'whsec_other', { nowSeconds: now }), { ok: false, reason: 'invalid_signature' });
  // A re-serialized body with spaces is not the signed bytes.
  assert.equal(verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), headers(), secret, { nowSeconds: now }).ok, false);
});

it('prefers V2: a good V1 does not rescue a bad V2', () => {
  const h = { ...headers(), 'X-Service-Signature-V2': sign(`${now}.${body}`, 'whsec_other') };
  assert.deepEqual(verifyWebhook(body, h, secret, { nowSeconds: now }), { ok: false, reason: 'invalid_signature' });
});

it('accepts V1 alone unless V2 is required; refuses a request without signature', () => {
  const v1 = { 'x-service-signature': sign(body) };
  const r = verifyWebhook(body, v1, secret);
  assert.equal(r.ok && r.version, 'v1');
  assert.deepEqual(verifyWebhook(body, v1, secret, { requireV2: true }), { ok: false, reason: 'missing_signature' });
  assert.deepEqual(verifyWebhook(body, {}, secret), { ok: false, reason: 'missing_signature' });
});

it('reads the X-Mobupay- headers, lowercase names and a fetch Headers object', () => {
  const h = new Headers({ 'x-mobupay-timestamp': String(now), 'x-mobupay-signature-v2': sign(`${now}.${body}`) });
  assert.equal(verifyWebhook(body, h, secret, { nowSeconds: now }).ok, true);
  const lower = { 'x-mobupay-timestamp': String(now), 'x-mobupay-signature-v2': sign(`${now}.${body}`).toUpperCase() };
  assert.equal(verifyWebhook(body, lower, secret, { nowSeconds: now }).ok, true);
});
