import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createMerchant, createKey } from './support/factories.js';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';

eachDatabase('customers', (dialect) => {
  const { t, m } = withMerchantApp(dialect, { checkAnswers: true });

  it('creates, reads and lists a customer', async () => {
    const created = await t.api(m.testKey, 'POST', '/api/v1/customers', { email: 'Hina@Example.pf', externalId: 'crm-1', name: 'Hina' });
    assert.equal(created.status, 201);
    assert.match(created.body.id, /^cus_[0-9A-Za-z]{22}$/);
    assert.equal(created.body.email, 'Hina@Example.pf');
    const read = await t.api(m.testKey, 'GET', `/api/v1/customers/${created.body.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created.body);
    const byEmail = await t.api(m.testKey, 'GET', '/api/v1/customers?email=hina@example.pf');
    assert.equal(byEmail.status, 200);
    assert.deepEqual(byEmail.body.data.map((c: { id: string }) => c.id), [created.body.id]);
    assert.equal(byEmail.body.hasMore, false);
  });

  it('searches with q: the name, email or external id containing it in any case, or the id itself; % and _ are no wildcards', async () => {
    const make = async (body: Record<string, string>) => (await t.api(m.testKey, 'POST', '/api/v1/customers', body)).body.id as string;
    const teva = await make({ name: 'Teva Mahana', email: 'teva.m@search.pf', externalId: 'CRM-77' });
    const moana = await make({ name: 'Moana Tehei', email: 'moana@search.pf' });
    const percent = await make({ name: '100% Tiare', externalId: 'crm_8' });
    const search = async (q: string) => (await t.api(m.testKey, 'GET', `/api/v1/customers?q=${encodeURIComponent(q)}&limit=100`)).body.data.map((c: { id: string }) => c.id);
    assert.deepEqual(await search('MAHANA'), [teva]);
    assert.deepEqual(await search('@search.pf'), [moana, teva]);
    assert.deepEqual(await search('crm-7'), [teva]);
    assert.deepEqual(await search(moana), [moana]);
    assert.deepEqual(await search('100%'), [percent]);
    assert.deepEqual(await search('crm_'), [percent]);
    assert.deepEqual(await search('no one here'), []);
    const other = await createMerchant(t);
    assert.deepEqual((await t.api(other.testKey, 'GET', '/api/v1/customers?q=Mahana')).body.data, []);
  });

  it('refuses a second customer with the same email or externalId (409 ALREADY_EXISTS)', async () => {
    await t.api(m.testKey, 'POST', '/api/v1/customers', { email: 'dup@example.pf', externalId: 'dup-1' });
    const sameEmail = await t.api(m.testKey, 'POST', '/api/v1/customers', { email: 'DUP@example.pf' });
    assert.equal(sameEmail.status, 409);
    assert.equal(sameEmail.body.code, 'ALREADY_EXISTS');
    assert.equal(sameEmail.body.details.field, 'email');
    const sameExternal = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'dup-1' });
    assert.equal(sameExternal.status, 409);
    assert.equal(sameExternal.body.details.field, 'externalId');
    // The live environment is separate: the same email is free there.
    const live = await t.api(m.liveKey, 'POST', '/api/v1/customers', { email: 'dup@example.pf' });
    assert.equal(live.status, 201);
  });

  it('records which fields a PATCH changed', async () => {
    const c = await t.api(m.testKey, 'POST', '/api/v1/customers', { email: 'patch@example.pf', name: 'Teva' });
    const patched = await t.api(m.testKey, 'PATCH', `/api/v1/customers/${c.body.id}`, { name: 'Teva T.', email: 'patch@example.pf', phone: '+689 87 00 00 00' });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body.updatedFields.sort(), ['name', 'phone']);
    assert.equal(patched.body.name, 'Teva T.');
  });

  it('customer.created and customer.updated carry the whole customer, as GET answers it and as the payload schema says', async () => {
    const c = await t.api(m.testKey, 'POST', '/api/v1/customers', { email: 'event@example.pf', name: 'Moana', metadata: { tier: 'gold' } });
    await t.api(m.testKey, 'PATCH', `/api/v1/customers/${c.body.id}`, { phone: '+689 87 11 22 33', address: { line1: '3 rue Cook', city: 'Papeete', country: 'PF' } });
    const current = (await t.api(m.testKey, 'GET', `/api/v1/customers/${c.body.id}`)).body;
    const eventOf = async (type: string) =>
      (await t.api(m.testKey, 'GET', `/api/v1/events?type=${type}&limit=100`)).body.data.find((e: { data: { id: string } }) => e.data.id === c.body.id);
    const created = await eventOf('customer.created');
    const updated = await eventOf('customer.updated');
    assert.deepEqual(created.data, c.body);
    assert.deepEqual(updated.data, { ...current, updatedFields: ['phone', 'address'] });
    // The schema published for these payloads (the OpenAPI webhooks section, @motu/node's types) fits what is sent.
    const schemas = JSON.parse(readFileSync(new URL('../src/events/payload-schemas.json', import.meta.url), 'utf8'));
    const ajv = new Ajv({ strict: false });
    for (const [name, data] of [['CustomerData', created.data], ['CustomerUpdatedData', updated.data]] as const) {
      const valid = ajv.validate({ $ref: `#/definitions/${name}`, definitions: schemas.definitions }, data);
      assert.ok(valid, `${name}: ${ajv.errorsText()}`);
    }
    // Every field sent is documented, none left to `additionalProperties`.
    assert.deepEqual(Object.keys(schemas.definitions.CustomerData.properties).sort(), Object.keys(created.data).sort());
  });

  it('paginates with startingAfter and hasMore', async () => {
    const other = await createMerchant(t, 'Pager');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.api(other.testKey, 'POST', '/api/v1/customers', { externalId: `p-${i}` });
      ids.push(r.body.id);
    }
    const first = await t.api(other.testKey, 'GET', '/api/v1/customers?limit=2');
    assert.equal(first.body.data.length, 2);
    assert.equal(first.body.hasMore, true);
    const second = await t.api(other.testKey, 'GET', `/api/v1/customers?limit=2&startingAfter=${first.body.data[1].id}`);
    const third = await t.api(other.testKey, 'GET', `/api/v1/customers?limit=2&startingAfter=${second.body.data[1].id}`);
    const seen = [...first.body.data, ...second.body.data, ...third.body.data].map((c: { id: string }) => c.id);
    assert.equal(third.body.hasMore, false);
    assert.deepEqual([...seen].sort(), [...ids].sort());
  });

  it('hides another merchant’s and the other mode’s customers (404)', async () => {
    const c = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'iso-1' });
    const other = await createMerchant(t, 'Other');
    assert.equal((await t.api(other.testKey, 'GET', `/api/v1/customers/${c.body.id}`)).status, 404);
    assert.equal((await t.api(m.liveKey, 'GET', `/api/v1/customers/${c.body.id}`)).status, 404);
    assert.equal((await t.api(m.liveKey, 'PATCH', `/api/v1/customers/${c.body.id}`, { name: 'x' })).status, 404);
  });

  it('gives a read key 403 PERMISSION_DENIED on writes, and a revoked key 401', async () => {
    const read = await createKey(t, m.id, { mode: 'test', permission: 'read' });
    const denied = await t.api(read.secretKey, 'POST', '/api/v1/customers', { name: 'x' });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'PERMISSION_DENIED');
    assert.equal((await t.api(read.secretKey, 'GET', '/api/v1/customers')).status, 200);
    const revoked = await t.admin('DELETE', `/admin/v1/keys/${read.id}`);
    assert.equal(revoked.status, 200);
    const after = await t.api(read.secretKey, 'GET', '/api/v1/customers');
    assert.equal(after.status, 401);
    assert.equal(after.body.code, 'UNAUTHORIZED');
  });

  it('rejects bad input with the field named, and writes nothing', async () => {
    const bad = await t.api(m.testKey, 'POST', '/api/v1/customers', { email: 'not-an-email', externalId: 5, nickname: 'x' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
    const fields = bad.body.fields.map((f: { field: string }) => f.field).sort();
    assert.deepEqual(fields, ['email', 'externalId', 'nickname']);
    assert.ok(fields.includes(bad.body.details.field));
    const list = await t.api(m.testKey, 'GET', '/api/v1/customers?externalId=5');
    assert.equal(list.body.data.length, 0);
  });
});
