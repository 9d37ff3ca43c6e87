// Idempotency-Key on POST: replay, conflict, scope, lifetime, and the concurrent case.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { eachDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createKey, createMerchant, createStore } from './support/factories.js';

eachDatabase('idempotency', (dialect) => {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
  const { t, m } = withMerchantApp(dialect, { clock });

  const countByExternalId = async (key: string, externalId: string) =>
    (await t.api(key, 'GET', `/api/v1/customers?externalId=${externalId}`)).body.data.length as number;

  it('replays the first response for the same key and body, without running twice', async () => {
    const body = { externalId: 'idem-1', name: 'Moana' };
    const first = await t.api(m.testKey, 'POST', '/api/v1/customers', body, { 'idempotency-key': 'k-1' });
    assert.equal(first.status, 201);
    const second = await t.api(m.testKey, 'POST', '/api/v1/customers', body, { 'idempotency-key': 'k-1' });
    assert.equal(second.status, 201);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(await countByExternalId(m.testKey, 'idem-1'), 1);
  });

  it('replays an error answer too (the same 409), and a new key runs the request again', async () => {
    await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'idem-dup' });
    const first = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'idem-dup' }, { 'idempotency-key': 'k-dup' });
    assert.equal(first.status, 409);
    const again = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'idem-dup' }, { 'idempotency-key': 'k-dup' });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, first.body);
  });

  it('refuses the same key with another body: 409 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    const first = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'idem-2' }, { 'idempotency-key': 'k-2' });
    assert.equal(first.status, 201);
    const other = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'idem-2-other' }, { 'idempotency-key': 'k-2' });
    assert.equal(other.status, 409);
    assert.equal(other.body.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(typeof other.body.message, 'string');
    assert.equal(await countByExternalId(m.testKey, 'idem-2-other'), 0);
  });

  it('scopes keys by merchant and mode', async () => {
    const other = await createMerchant(t, 'Other');
    const body = { externalId: 'idem-3' };
    for (const key of [m.testKey, m.liveKey, other.testKey]) {
      const res = await t.api(key, 'POST', '/api/v1/customers', body, { 'idempotency-key': 'shared-key' });
      assert.equal(res.status, 201);
      assert.equal(res.headers['idempotent-replayed'], undefined);
      assert.equal(await countByExternalId(key, 'idem-3'), 1);
    }
  });

  it('forgets a key after 24 hours', async () => {
    const first = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'idem-4' }, { 'idempotency-key': 'k-4' });
    assert.equal(first.status, 201);
    clock.advance(23 * 3600 * 1000);
    const stillKnown = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'idem-4b' }, { 'idempotency-key': 'k-4' });
    assert.equal(stillKnown.status, 409);
    clock.advance(2 * 3600 * 1000);
    const fresh = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'idem-4b' }, { 'idempotency-key': 'k-4' });
    assert.equal(fresh.status, 201);
    assert.notEqual(fresh.body.id, first.body.id);
  });

  it('refuses a malformed key with 400 naming Idempotency-Key', async () => {
    const res = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'idem-5' }, { 'idempotency-key': 'x'.repeat(256) });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.equal(res.body.details.field, 'Idempotency-Key');
  });

  it('creates exactly one row for 20 simultaneous identical requests with one key', async () => {
    const body = { externalId: 'idem-race', email: 'race@example.pf' };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.api(m.testKey, 'POST', '/api/v1/customers', body, { 'idempotency-key': 'race-key' })),
    );
    assert.deepEqual(answers.map((a) => a.status), Array(20).fill(201), JSON.stringify(answers.map((a) => a.body)));
    assert.equal(new Set(answers.map((a) => a.body.id)).size, 1);
    assert.equal(answers.filter((a) => a.headers['idempotent-replayed'] === 'true').length, 19);
    assert.equal(await countByExternalId(m.testKey, 'idem-race'), 1);
  });

  describe('store scope', () => {
    let storeA: string;
    let storeB: string;
    let keyA: string;
    let keyA2: string;
    let keyB: string;
    let unbound2: string;
    before(async () => {
      storeA = (await createStore(t, m.id, { code: 'IDEM-A' })).id;
      storeB = (await createStore(t, m.id, { code: 'IDEM-B' })).id;
      keyA = (await createKey(t, m.id, { mode: 'test', storeId: storeA })).secretKey;
      keyA2 = (await createKey(t, m.id, { mode: 'test', storeId: storeA })).secretKey;
      keyB = (await createKey(t, m.id, { mode: 'test', storeId: storeB })).secretKey;
      unbound2 = (await createKey(t, m.id, { mode: 'test' })).secretKey;
    });

    const session = (reference: string) => ({
      order: { reference, amount: 1500, currency: 'EUR' },
      redirectUrl: 'https://shop.example/return',
      notificationUrl: 'https://shop.example/hook',
    });
    const post = (key: string, body: unknown, idem: string) => t.api(key, 'POST', '/api/v1/payments/sessions', body, { 'idempotency-key': idem });

    it("two stores sending the same key and body each get their own session, never the other's", async () => {
      const a = await post(keyA, session('ORD-1001'), 'ORD-1001');
      assert.equal(a.status, 201, JSON.stringify(a.body));
      const b = await post(keyB, session('ORD-1001'), 'ORD-1001');
      assert.equal(b.status, 201, JSON.stringify(b.body));
      assert.equal(b.headers['idempotent-replayed'], undefined);
      assert.notEqual(b.body.paymentId, a.body.paymentId);
      assert.notEqual(b.body.checkoutUrl, a.body.checkoutUrl);
      assert.equal(b.body.store.id, storeB);
      assert.equal(a.body.store.id, storeA);
      // Each store's retry replays its own answer.
      const retryA = await post(keyA, session('ORD-1001'), 'ORD-1001');
      assert.equal(retryA.headers['idempotent-replayed'], 'true');
      assert.deepEqual(retryA.body, a.body);
      const retryB = await post(keyB, session('ORD-1001'), 'ORD-1001');
      assert.equal(retryB.headers['idempotent-replayed'], 'true');
      assert.deepEqual(retryB.body, b.body);
      const listed = await t.api(m.testKey, 'GET', '/api/v1/payments?limit=100');
      assert.equal(listed.body.data.filter((p: any) => p.orderReference === 'ORD-1001').length, 2);
    });

    it('two stores using one key for different requests get no 409 from each other', async () => {
      const a = await post(keyA, session('ORD-A-7'), 'order-7');
      assert.equal(a.status, 201, JSON.stringify(a.body));
      const b = await post(keyB, session('ORD-B-7'), 'order-7');
      assert.equal(b.status, 201, JSON.stringify(b.body));
      assert.notEqual(b.body.paymentId, a.body.paymentId);
    });

    it("a store-bound key never sees the unbound keys' answers, nor they its", async () => {
      const unbound = await post(m.testKey, session('ORD-U-1'), 'shared-u');
      assert.equal(unbound.status, 201);
      const bound = await post(keyA, session('ORD-U-1'), 'shared-u');
      assert.equal(bound.status, 201, JSON.stringify(bound.body));
      assert.equal(bound.headers['idempotent-replayed'], undefined);
      assert.notEqual(bound.body.paymentId, unbound.body.paymentId);
      assert.equal(bound.body.store.id, storeA);

      const first = await post(keyB, session('ORD-U-2'), 'shared-b');
      const other = await post(m.testKey, session('ORD-U-2-other'), 'shared-b');
      assert.equal(first.status, 201);
      assert.equal(other.status, 201, JSON.stringify(other.body));
      assert.notEqual(other.body.paymentId, first.body.paymentId);
    });

    it("the merchant's unbound keys share their keys (a retry after a key rotation replays), and so do one store's keys", async () => {
      const first = await post(m.testKey, session('ORD-R-1'), 'rotated');
      const retry = await post(unbound2, session('ORD-R-1'), 'rotated');
      assert.equal(retry.status, 201);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.deepEqual(retry.body, first.body);
      const conflict = await post(unbound2, session('ORD-R-other'), 'rotated');
      assert.equal(conflict.status, 409);
      assert.equal(conflict.body.code, 'IDEMPOTENCY_KEY_REUSED');

      const a = await post(keyA, session('ORD-R-2'), 'store-rotated');
      const a2 = await post(keyA2, session('ORD-R-2'), 'store-rotated');
      assert.equal(a2.headers['idempotent-replayed'], 'true');
      assert.deepEqual(a2.body, a.body);
    });
  });
});
