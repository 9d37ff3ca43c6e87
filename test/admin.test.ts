// The operator's admin API (/admin/v1), through HTTP on each database.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createKey, createMerchant, createStore } from './support/factories.js';

eachDatabase('admin API', (dialect) => {
  const { t } = withApp(dialect);

  it('creates a merchant with both keys, both webhook secrets and an active default contract (250 / 25 / 0 / 1600)', async () => {
    const res = await t.admin('POST', '/admin/v1/merchants', { name: 'Boulangerie Tahiti' });
    assert.equal(res.status, 201);
    const b = res.body;
    assert.match(b.id, /^mer_[0-9A-Za-z]{22}$/);
    assert.equal(b.name, 'Boulangerie Tahiti');
    assert.match(b.testSecretKey, /^sk_test_[0-9A-Za-z]{32}$/);
    assert.match(b.liveSecretKey, /^sk_live_[0-9A-Za-z]{32}$/);
    assert.match(b.testWebhookSecret, /^whsec_[0-9A-Za-z]{32}$/);
    assert.match(b.liveWebhookSecret, /^whsec_[0-9A-Za-z]{32}$/);
    assert.notEqual(b.testWebhookSecret, b.liveWebhookSecret);
    assert.match(b.defaultContractId, /^mcf_[0-9A-Za-z]{22}$/);

    const merchant = await t.admin('GET', `/admin/v1/merchants/${b.id}`);
    assert.equal(merchant.status, 200);
    assert.equal(merchant.body.contracts.length, 1);
    const c = merchant.body.contracts[0];
    assert.deepEqual(
      { id: c.id, commissionRate: c.commissionRate, fixedFee: c.fixedFee, authorizationFee: c.authorizationFee, taxRate: c.taxRate, active: c.active, isDefault: c.isDefault },
      { id: b.defaultContractId, commissionRate: 250, fixedFee: 25, authorizationFee: 0, taxRate: 1600, active: true, isDefault: true },
    );
    // Both keys work, each in its own mode.
    assert.equal((await t.api(b.testSecretKey, 'GET', '/api/v1/customers')).status, 200);
    assert.equal((await t.api(b.liveSecretKey, 'GET', '/api/v1/customers')).status, 200);
    // Secrets are shown once: the merchant read never carries them.
    assert.doesNotMatch(JSON.stringify(merchant.body), /sk_(test|live)_|whsec_/);
  });

  it('keeps exactly one active default contract', async () => {
    const m = await createMerchant(t, 'Contracts');
    const second = await t.admin('POST', `/admin/v1/merchants/${m.id}/contracts`, {
      statementLabel: 'CONTRACTS 2',
      commissionRate: 180,
      fixedFee: 10,
      taxRate: 1300,
      isDefault: true,
    });
    assert.equal(second.status, 201);
    assert.match(second.body.id, /^mcf_/);
    assert.equal(second.body.isDefault, true);
    assert.equal(second.body.taxRate, 1300);
    const defaults = async () => {
      const r = await t.admin('GET', `/admin/v1/merchants/${m.id}`);
      return r.body.contracts.filter((c: { isDefault: boolean; active: boolean }) => c.isDefault && c.active).map((c: { id: string }) => c.id);
    };
    assert.deepEqual(await defaults(), [second.body.id]);

    // The default can be neither deactivated nor un-defaulted: another must become the default first.
    const deactivate = await t.admin('PATCH', `/admin/v1/contracts/${second.body.id}`, { active: false });
    assert.equal(deactivate.status, 400);
    assert.equal(deactivate.body.code, 'VALIDATION_ERROR');
    assert.equal(deactivate.body.details.field, 'active');
    const undefault = await t.admin('PATCH', `/admin/v1/contracts/${second.body.id}`, { isDefault: false });
    assert.equal(undefault.status, 400);
    assert.equal(undefault.body.details.field, 'isDefault');

    // Making the first one default again moves the flag; the old default may then be deactivated.
    const back = await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { isDefault: true, fixedFee: 30 });
    assert.equal(back.status, 200);
    assert.equal(back.body.fixedFee, 30);
    assert.deepEqual(await defaults(), [m.defaultContractId]);
    const off = await t.admin('PATCH', `/admin/v1/contracts/${second.body.id}`, { active: false });
    assert.equal(off.status, 200);
    assert.equal(off.body.active, false);

    // An inactive contract cannot become the default.
    const bad = await t.admin('PATCH', `/admin/v1/contracts/${second.body.id}`, { isDefault: true });
    assert.equal(bad.status, 400);
    assert.deepEqual(await defaults(), [m.defaultContractId]);

    assert.equal((await t.admin('PATCH', '/admin/v1/contracts/mcf_doesnotexist000000000', { active: true })).status, 404);
    assert.equal((await t.admin('POST', '/admin/v1/merchants/mer_nope/contracts', { statementLabel: 'X', commissionRate: 1, fixedFee: 1 })).status, 404);
  });

  it('creates and changes stores; codes are unique per merchant', async () => {
    const m = await createMerchant(t, 'Stores');
    const res = await t.admin('POST', `/admin/v1/merchants/${m.id}/stores`, { code: 'papeete', name: 'Papeete', kind: 'physical' });
    assert.equal(res.status, 201);
    assert.match(res.body.id, /^sto_[0-9A-Za-z]{22}$/);
    assert.equal(res.body.code, 'papeete');
    assert.equal(res.body.kind, 'physical');
    assert.equal(res.body.active, true);
    assert.equal(res.body.contractId, null);

    const dup = await t.admin('POST', `/admin/v1/merchants/${m.id}/stores`, { code: 'papeete', name: 'Again', kind: 'online' });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, 'ALREADY_EXISTS');
    // Another merchant may use the same code.
    const other = await createMerchant(t, 'Other stores');
    await createStore(t, other.id, { code: 'papeete' });

    const patched = await t.admin('PATCH', `/admin/v1/stores/${res.body.id}`, { active: false, name: 'Papeete centre', contractId: m.defaultContractId });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.active, false);
    assert.equal(patched.body.name, 'Papeete centre');
    assert.equal(patched.body.contractId, m.defaultContractId);

    // A contract of another merchant is refused, naming the field.
    const foreign = await t.admin('PATCH', `/admin/v1/stores/${res.body.id}`, { contractId: other.defaultContractId });
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.details.field, 'contractId');

    const badKind = await t.admin('POST', `/admin/v1/merchants/${m.id}/stores`, { code: 'x', name: 'X', kind: 'kiosk' });
    assert.equal(badKind.status, 400);
    assert.equal(badKind.body.details.field, 'kind');
  });

  it('creates keys with a permission and a store, and revokes them (401 from then on)', async () => {
    const m = await createMerchant(t, 'Keys');
    const store = await createStore(t, m.id, { code: 'web' });
    const res = await t.admin('POST', `/admin/v1/merchants/${m.id}/keys`, { mode: 'live', permission: 'read', storeId: store.id });
    assert.equal(res.status, 201);
    assert.match(res.body.secretKey, /^sk_live_[0-9A-Za-z]{32}$/);
    assert.deepEqual({ mode: res.body.mode, permission: res.body.permission, storeId: res.body.storeId }, { mode: 'live', permission: 'read', storeId: store.id });

    const plain = await createKey(t, m.id, { mode: 'test' });
    assert.equal((await t.api(plain.secretKey, 'POST', '/api/v1/customers', { name: 'a' })).status, 201);

    const foreignStore = await t.admin('POST', `/admin/v1/merchants/${m.id}/keys`, { mode: 'test', storeId: 'sto_notmine' });
    assert.equal(foreignStore.status, 400);
    assert.equal(foreignStore.body.details.field, 'storeId');
    const badMode = await t.admin('POST', `/admin/v1/merchants/${m.id}/keys`, { mode: 'prod' });
    assert.equal(badMode.status, 400);
    assert.equal(badMode.body.details.field, 'mode');

    const revoked = await t.admin('DELETE', `/admin/v1/keys/${plain.id}`);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.revoked, true);
    const denied = await t.api(plain.secretKey, 'GET', '/api/v1/customers');
    assert.equal(denied.status, 401);
    assert.equal(denied.body.code, 'UNAUTHORIZED');
    // Revoking twice is harmless; an unknown key is 404.
    assert.equal((await t.admin('DELETE', `/admin/v1/keys/${plain.id}`)).status, 200);
    assert.equal((await t.admin('DELETE', '/admin/v1/keys/key_unknown')).status, 404);
  });

  it('requires the admin token (401), and a merchant key is not one', async () => {
    const m = await createMerchant(t, 'Token');
    for (const auth of [undefined, 'wrong-token-0123456789', m.testKey]) {
      const res = await t.api(auth, 'POST', '/admin/v1/merchants', { name: 'Intruder' });
      assert.equal(res.status, 401, String(auth));
      assert.equal(res.body.code, 'UNAUTHORIZED');
      assert.equal(typeof res.body.message, 'string');
    }
    const list = await t.admin('GET', '/admin/v1/merchants');
    assert.ok(!list.body.data.some((x: { name: string }) => x.name === 'Intruder'));
  });

  it('lists merchants newest first, a page at a time', async () => {
    for (const name of ['Page A', 'Page B', 'Page C']) await t.admin('POST', '/admin/v1/merchants', { name });
    const everyone = (await t.admin('GET', '/admin/v1/merchants?limit=100')).body.data as Array<{ id: string; name: string; createdAt: string }>;
    assert.ok(everyone.every((x, i) => i === 0 || everyone[i - 1]!.createdAt >= x.createdAt), 'newest first');
    assert.deepEqual(new Set(everyone.slice(0, 3).map((x) => x.name)), new Set(['Page A', 'Page B', 'Page C']));
    const made = everyone.slice(0, 3).map((x) => x.id).reverse();
    const first = await t.admin('GET', '/admin/v1/merchants?limit=2');
    assert.equal(first.status, 200);
    assert.deepEqual([first.body.data.map((x: { id: string }) => x.id), first.body.hasMore], [[made[2], made[1]], true]);
    const next = await t.admin('GET', `/admin/v1/merchants?limit=2&startingAfter=${made[1]}`);
    assert.equal(next.body.data[0].id, made[0]);
    assert.equal((await t.admin('GET', '/admin/v1/merchants?limit=0')).body.code, 'VALIDATION_ERROR');
    assert.equal((await t.admin('GET', '/admin/v1/merchants?startingAfter=mer_0000000000000000000000')).status, 400);
  });

  it('validates admin bodies with the field named', async () => {
    const res = await t.admin('POST', '/admin/v1/merchants', { name: '', extra: 1 });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.deepEqual(res.body.fields.map((f: { field: string }) => f.field).sort(), ['extra', 'name']);
  });

  it('merchants, stores and contracts are permanent: a delete or an id change is refused by the database, a payment still names them', async () => {
    const m = await createMerchant(t, 'Permanent');
    const store = await createStore(t, m.id, { code: 'PERM' });
    const session = await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 1000, currency: 'XPF' },
      redirectUrl: 'https://shop.example/done',
      notificationUrl: 'https://shop.example/hook',
      storeId: store.id,
    });
    assert.equal(session.status, 201, JSON.stringify(session.body));
    const attempts: Array<[string, () => Promise<unknown>]> = [
      ['delete merchant', () => t.db.kysely.deleteFrom('merchants').where('id', '=', m.id).execute()],
      ['delete store', () => t.db.kysely.deleteFrom('stores').where('id', '=', store.id).execute()],
      ['delete contract', () => t.db.kysely.deleteFrom('contracts').where('id', '=', m.defaultContractId).execute()],
      ['rename merchant', () => t.db.kysely.updateTable('merchants').set({ id: 'mer_renamed' }).where('id', '=', m.id).execute()],
      ['rename contract', () => t.db.kysely.updateTable('contracts').set({ id: 'mcf_renamed' }).where('id', '=', m.defaultContractId).execute()],
    ];
    for (const [what, attempt] of attempts) await assert.rejects(attempt(), /permanent|never change/, what);
    // A change that keeps the id goes through, and the payment still reads back with its store.
    await t.db.kysely.updateTable('merchants').set({ name: 'Permanent renamed' }).where('id', '=', m.id).execute();
    const payment = await t.api(m.testKey, 'GET', `/api/v1/payments/${session.body.paymentId}`);
    assert.equal(payment.status, 200);
    assert.equal(payment.body.store.id, store.id);
    const row = await t.db.kysely.selectFrom('payments').select(['merchant_id', 'contract_id']).where('id', '=', session.body.paymentId).executeTakeFirstOrThrow();
    assert.deepEqual(row, { merchant_id: m.id, contract_id: m.defaultContractId });
  });
});
