// The merchant helper `motu/webhooks`, checked against signatures computed independently in the test.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { it } from 'node:test';
import { signatureHeaders } from '../src/events/signer.js';
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

it('refuses V1 alone unless allowV1 is set; refuses a request without signature', () => {
  const v1 = { 'x-service-signature': sign(body) };
  assert.deepEqual(verifyWebhook(body, v1, secret), { ok: false, reason: 'v1_not_allowed' });
  const r = verifyWebhook(body, v1, secret, { allowV1: true });
  assert.equal(r.ok && r.version, 'v1');
  assert.deepEqual(verifyWebhook(body, { 'x-service-signature': sign(body, 'whsec_other') }, secret, { allowV1: true }), { ok: false, reason: 'invalid_signature' });
  assert.deepEqual(verifyWebhook(body, {}, secret), { ok: false, reason: 'missing_signature' });
  assert.deepEqual(verifyWebhook(body, {}, secret, { allowV1: true }), { ok: false, reason: 'missing_signature' });
});

it('a request stripped of its timestamp is not replayable as V1, even with allowV1', () => {
  // A captured request, replayed a day later without X-Service-Timestamp: its V1 signature is still valid.
  const { 'X-Service-Timestamp': _dropped, ...stripped } = headers(now);
  for (const allowV1 of [false, true]) {
    assert.deepEqual(verifyWebhook(body, stripped, secret, { nowSeconds: now + 86_400, allowV1 }), { ok: false, reason: 'missing_timestamp' });
  }
  // A timestamp without a V2 signature is not V1 either.
  const tsOnly = { 'X-Service-Timestamp': String(now), 'X-Service-Signature': sign(body) };
  assert.deepEqual(verifyWebhook(body, tsOnly, secret, { nowSeconds: now, allowV1: true }), { ok: false, reason: 'missing_signature' });
  // A bad V2 is not rescued by a good V1 when V1 is allowed.
  const badV2 = { ...headers(), 'X-Service-Signature-V2': sign(`${now}.${body}`, 'whsec_other') };
  assert.deepEqual(verifyWebhook(body, badV2, secret, { nowSeconds: now, allowV1: true }), { ok: false, reason: 'invalid_signature' });
});

it('defaults to a 5-minute tolerance', () => {
  assert.equal(verifyWebhook(body, headers(), secret, { nowSeconds: now + 300 }).ok, true);
  assert.deepEqual(verifyWebhook(body, headers(), secret, { nowSeconds: now + 301 }), { ok: false, reason: 'timestamp_out_of_tolerance' });
  assert.equal(verifyWebhook(body, headers(), secret, { nowSeconds: now + 900, toleranceSeconds: 900 }).ok, true);
});

it('takes a list of secrets through a rotation, with either V2 header', () => {
  const oldSecret = secret;
  const newSecret = 'whsec_NEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEWNEW';
  // Before the rotation Motu signs with the old secret only; the receiver already lists both.
  const before = signatureHeaders(body, { secret: oldSecret }, now, 'whe_abc');
  assert.equal(verifyWebhook(body, before, [newSecret, oldSecret], { nowSeconds: now }).ok, true);
  // During the 24 h after it: V2 with the new secret, V2-Previous with the old one.
  const during = signatureHeaders(body, { secret: newSecret, previous: oldSecret }, now, 'whe_abc');
  assert.equal(verifyWebhook(body, during, [oldSecret], { nowSeconds: now }).ok, true, 'a receiver not yet updated');
  assert.equal(verifyWebhook(body, during, [newSecret, oldSecret], { nowSeconds: now }).ok, true);
  assert.equal(verifyWebhook(body, during, newSecret, { nowSeconds: now }).ok, true, 'a receiver already on the new secret');
  // The X-Mobupay- prefix alone works as well.
  const mobupay = Object.fromEntries(Object.entries(during).filter(([k]) => k.startsWith('x-mobupay-')));
  assert.equal(verifyWebhook(body, mobupay, [oldSecret], { nowSeconds: now }).ok, true);
  // Neither secret: refused; so is a list with no secret in it.
  assert.deepEqual(verifyWebhook(body, during, ['whsec_other'], { nowSeconds: now }), { ok: false, reason: 'invalid_signature' });
  assert.throws(() => verifyWebhook(body, during, [], { nowSeconds: now }), TypeError);
  assert.throws(() => verifyWebhook(body, during, '', { nowSeconds: now }), TypeError);
});

it('reads the X-Mobupay- headers, lowercase names and a fetch Headers object', () => {
  const h = new Headers({ 'x-mobupay-timestamp': String(now), 'x-mobupay-signature-v2': sign(`${now}.${body}`) });
  assert.equal(verifyWebhook(body, h, secret, { nowSeconds: now }).ok, true);
  const lower = { 'x-mobupay-timestamp': String(now), 'x-mobupay-signature-v2': sign(`${now}.${body}`).toUpperCase() };
  assert.equal(verifyWebhook(body, lower, secret, { nowSeconds: now }).ok, true);
});
