// The merchant's bank accounts through HTTP on every database: IBANs checked (country, length, format, mod 97) and
// never shown again, the first of a currency its default, one default per currency even under concurrent changes,
// deletion handing the default on, isolation, and what keys bound to a store or read-only may do.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { checkedIban } from '../src/modules/bank-accounts/iban.js';
import { createKey, createMerchant, createStore } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

const VALID = {
  FR: 'FR76 3000 6000 0100 0000 0000 152',
  DE: 'DE89 3704 0044 0532 0130 00',
  BE: 'BE68 5390 0754 7034',
  NC: 'NC31 1488 9000 0100 0000 0000 111',
  PF: 'PF98 1223 9000 0100 0000 0000 111',
  GB: 'GB82 WEST 1234 5698 7654 32',
};

it('IBANs: valid ones of several countries in their electronic form; each invalid one refused with its reason', () => {
  assert.equal(checkedIban(VALID.FR), 'FR7630006000010000000000152');
  assert.equal(checkedIban('de89370400440532013000'), 'DE89370400440532013000');
  assert.equal(checkedIban(VALID.BE), 'BE68539007547034');
  assert.equal(checkedIban(VALID.GB), 'GB82WEST12345698765432');
  assert.equal(checkedIban(VALID.NC), 'NC3114889000010000000000111');
  assert.equal(checkedIban(VALID.PF), 'PF9812239000010000000000111');
  assert.match(JSON.stringify((() => { try { checkedIban('FR58 1488 9000 0100 0000 0000 111'); return {}; } catch (e) { return e; } })()), /national check digits/);
  const reason = (iban: string) => {
    try {
      checkedIban(iban);
      return 'accepted';
    } catch (err) {
      const e = err as { code: string; details?: { fields?: Array<{ field: string; message: string }> }; fields?: Array<{ field: string; message: string }> };
      assert.equal(e.code, 'VALIDATION_ERROR');
      return JSON.stringify(e);
    }
  };
  assert.match(reason('FR76 3000 6000 0100 0000 0000 153'), /check digits/);
  assert.match(reason('FR76 3000 6000 0100 0000 0000 15'), /wrong length/);
  assert.match(reason('DE89 3704 0044 0532 0130 0'), /wrong length/);
  assert.match(reason('XX89 3704 0044 0532 0130 00'), /country/);
  assert.match(reason('BE68 5390 0754 703A'), /format|check digits/);
  assert.match(reason('not an iban'), /not an IBAN/);
  for (const bad of ['FR76 3000 6000 0100 0000 0000 153', 'DE89 3704 0044 0532 0130 0']) {
    assert.ok(!reason(bad).includes(bad.replace(/ /g, '').slice(4)), 'the refusal repeats the IBAN');
  }
});

eachDatabase('bank accounts', (dialect) => {
  const { t, m } = withMerchantApp(dialect);
  const post = (body: unknown, key = m.testKey) => t.api(key, 'POST', '/api/v1/bank-accounts', body);
  const list = async (key = m.testKey) => (await t.api(key, 'GET', '/api/v1/bank-accounts?limit=100')).body.data as any[];

  it('adds accounts: the first of a currency is its default; the IBAN is never shown, stored only sealed', async () => {
    const first = await post({ iban: VALID.FR, holderName: 'Fare Ute SARL', currency: 'EUR', bic: 'bnpafrpp' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.match(first.body.id, /^ba_/);
    assert.deepEqual(
      { ...first.body, id: undefined, createdAt: undefined, fingerprint: undefined },
      { id: undefined, country: 'FR', last4: '0152', currency: 'EUR', holderName: 'Fare Ute SARL', bic: 'BNPAFRPP', status: 'new', default: true, createdAt: undefined, fingerprint: undefined },
    );
    const second = await post({ iban: VALID.DE, holderName: 'Fare Ute SARL', currency: 'EUR' });
    assert.equal(second.body.default, false);
    const xpf = await post({ iban: VALID.NC, holderName: 'Fare Ute Nouméa', currency: 'XPF' });
    assert.equal(xpf.body.default, true, 'the first XPF account is the XPF default');
    const again = await post({ iban: 'fr7630006000010000000000152', holderName: 'Other label', currency: 'EUR' });
    assert.equal(again.body.fingerprint, first.body.fingerprint, 'the same IBAN, the same fingerprint');
    assert.notEqual(second.body.fingerprint, first.body.fingerprint);
    const text = JSON.stringify([first.body, second.body, xpf.body, await list()]);
    for (const iban of Object.values(VALID)) assert.ok(!text.includes(iban.replace(/ /g, '')) && !text.includes(iban));
    const rows = await t.db.kysely.selectFrom('bank_accounts').select(['iban_sealed']).execute();
    for (const r of rows) {
      assert.match(r.iban_sealed, /^v1:/);
      assert.ok(!r.iban_sealed.includes('3000600001'));
    }
  });

  it('one default per currency: PATCH moves it, twenty concurrent PATCHes leave exactly one', async () => {
    const eur = (await list()).filter((a) => a.currency === 'EUR');
    assert.ok(eur.length >= 3);
    const target = eur.find((a) => !a.default)!;
    const res = await t.api(m.testKey, 'PATCH', `/api/v1/bank-accounts/${target.id}`, { default: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.default, true);
    assert.deepEqual((await list()).filter((a) => a.currency === 'EUR' && a.default).map((a) => a.id), [target.id]);
    assert.ok((await list()).some((a) => a.currency === 'XPF' && a.default), 'the XPF default is untouched');
    // 20 at once, each for one of the accounts: every one is answered 200 (none deadlocks), one default is left.
    const raced = await Promise.all(Array.from({ length: 20 }, (_, i) => t.api(m.testKey, 'PATCH', `/api/v1/bank-accounts/${eur[i % eur.length]!.id}`, { default: true })));
    assert.deepEqual(raced.map((r) => r.status), raced.map(() => 200), JSON.stringify(raced.filter((r) => r.status !== 200).map((r) => r.body)));
    assert.equal((await list()).filter((a) => a.currency === 'EUR' && a.default).length, 1);
    assert.equal((await t.api(m.testKey, 'PATCH', `/api/v1/bank-accounts/${target.id}`, { default: false })).status, 400);
  });

  it('deleting the default hands it to the newest other account of its currency; a deleted account is gone', async () => {
    const before = (await list()).filter((a) => a.currency === 'EUR');
    const current = before.find((a) => a.default)!;
    const res = await t.api(m.testKey, 'DELETE', `/api/v1/bank-accounts/${current.id}`);
    assert.deepEqual(res.body, { id: current.id, deleted: true });
    assert.equal((await t.api(m.testKey, 'GET', `/api/v1/bank-accounts/${current.id}`)).status, 404);
    assert.equal((await t.api(m.testKey, 'DELETE', `/api/v1/bank-accounts/${current.id}`)).status, 404);
    const after = (await list()).filter((a) => a.currency === 'EUR');
    assert.equal(after.length, before.length - 1);
    const newest = before.filter((a) => a.id !== current.id).sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))[0]!;
    assert.deepEqual(after.filter((a) => a.default).map((a) => a.id), [newest.id]);
  });

  it('bad input is a 400 naming the field and writes nothing', async () => {
    const count = async () => (await t.db.kysely.selectFrom('bank_accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    const n = Number(await count());
    for (const [body, field] of [
      [{ iban: 'FR76 3000 6000 0100 0000 0000 153', holderName: 'X', currency: 'EUR' }, 'iban'],
      [{ iban: VALID.FR, holderName: '', currency: 'EUR' }, 'holderName'],
      [{ iban: VALID.FR, holderName: 'X', currency: 'USD' }, 'currency'],
      [{ iban: VALID.FR, holderName: 'X', currency: 'EUR', bic: 'BNP' }, 'bic'],
      [{ iban: VALID.FR, holderName: 'X', currency: 'EUR', colour: 'red' }, 'colour'],
    ] as const) {
      const res = await post(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(JSON.stringify(res.body).includes(field), `${field}: ${JSON.stringify(res.body)}`);
    }
    assert.equal(Number(await count()), n);
  });

  it('isolation: another merchant and the other mode see none (404); a store-bound key gets 403; a read key reads only', async () => {
    const mine = (await list())[0]!;
    const other = await createMerchant(t, 'Other');
    assert.equal((await t.api(other.testKey, 'GET', `/api/v1/bank-accounts/${mine.id}`)).status, 404);
    assert.equal((await t.api(m.liveKey, 'GET', `/api/v1/bank-accounts/${mine.id}`)).status, 404);
    assert.equal((await t.api(other.testKey, 'PATCH', `/api/v1/bank-accounts/${mine.id}`, { default: true })).status, 404);
    assert.equal((await t.api(other.testKey, 'DELETE', `/api/v1/bank-accounts/${mine.id}`)).status, 404);
    assert.deepEqual(await list(other.testKey), []);
    assert.deepEqual(await list(m.liveKey), []);
    const live = await post({ iban: VALID.FR, holderName: 'Live', currency: 'EUR' }, m.liveKey);
    assert.equal(live.body.default, true, 'live mode has its own default');

    const store = await createStore(t, m.id, { code: 'BA-1' });
    const storeKey = (await createKey(t, m.id, { mode: 'test', storeId: store.id })).secretKey;
    for (const [method, url, body] of [['GET', '/api/v1/bank-accounts'], ['GET', `/api/v1/bank-accounts/${mine.id}`], ['POST', '/api/v1/bank-accounts', { iban: VALID.BE, holderName: 'Store', currency: 'EUR' }]] as const) {
      const res = await t.api(storeKey, method, url, body);
      assert.equal(res.status, 403, `${method} ${url}`);
      assert.equal(res.body.code, 'PERMISSION_DENIED');
    }
    const readKey = (await createKey(t, m.id, { mode: 'test', permission: 'read' })).secretKey;
    assert.equal((await t.api(readKey, 'GET', `/api/v1/bank-accounts/${mine.id}`)).status, 200);
    assert.equal((await post({ iban: VALID.BE, holderName: 'Reader', currency: 'EUR' }, readKey)).status, 403);
  });
});
