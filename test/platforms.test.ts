// Platforms and agencies, the foundation: the operator's flags (admin API and CLI), the links between a platform and
// its sellers, and who counts as a linked, open seller (what split payments check), on each database.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { main } from '../src/start/cli.js';
import { linkedOpenSeller, unlinkSeller } from '../src/modules/platforms/platform-links.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createMerchant } from './support/factories.js';
import { makeAgency, makePlatform, onboardSeller } from './support/platforms.js';

/** main() in-process with the app's database in the environment; its output parsed. */
async function motu(env: Record<string, string | undefined>, ...argv: string[]): Promise<{ code: number; out: any }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  if (env.DATABASE_URL === undefined) delete process.env.DATABASE_URL;
  const lines: string[] = [];
  try {
    const code = await main(argv, (line) => lines.push(line));
    return { code, out: JSON.parse(lines.join('\n')) };
  } finally {
    process.env = saved;
  }
}

eachDatabase('platforms: flags and links', (dialect) => {
  const { t } = withApp(dialect);

  it('the operator makes a merchant a platform or an agency; the detail and the list show both flags and when its account opened', async () => {
    const m = await createMerchant(t, 'Flags');
    const before = await t.admin('GET', `/admin/v1/merchants/${m.id}`);
    assert.equal(before.status, 200);
    assert.deepEqual([before.body.platform, before.body.agency], [false, false]);
    assert.equal(before.body.openedAt, before.body.createdAt, 'a merchant the operator creates collects at once');

    const patched = await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { platform: true, agency: true });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual([patched.body.platform, patched.body.agency], [true, true]);
    const off = await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { agency: false });
    assert.deepEqual([off.body.platform, off.body.agency], [true, false]);
    const listed = (await t.admin('GET', '/admin/v1/merchants?limit=100')).body.data.find((x: { id: string }) => x.id === m.id);
    assert.deepEqual([listed.platform, listed.agency], [true, false]);

    for (const bad of [{ platform: 'yes' }, { agency: 1 }, { platform: null }]) {
      const res = await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, bad);
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.equal(res.body.details.field, Object.keys(bad)[0]);
    }
    const after = await t.admin('GET', `/admin/v1/merchants/${m.id}`);
    assert.deepEqual([after.body.platform, after.body.agency], [true, false], 'a refused change changes nothing');
  });

  it('`motu merchants update --platform --agency` sets the flags; a value other than true or false is refused', async () => {
    const env = { MOTU_DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl, MOTU_PUBLIC_URL: 'http://localhost:3000', MOTU_SEED_DEMO: 'false', LOG_LEVEL: 'silent' };
    const m = await createMerchant(t, 'CLI flags');
    const set = await motu(env, 'merchants', 'update', m.id, '--platform', 'true', '--agency', 'true');
    assert.equal(set.code, 0, JSON.stringify(set.out));
    assert.deepEqual([set.out.platform, set.out.agency], [true, true]);
    const unset = await motu(env, 'merchants', 'update', m.id, '--platform', 'false');
    assert.deepEqual([unset.out.platform, unset.out.agency], [false, true]);
    const bad = await motu(env, 'merchants', 'update', m.id, '--agency', 'maybe');
    assert.equal(bad.code, 1);
    assert.equal(bad.out.code, 'VALIDATION_ERROR');
    assert.equal((await t.admin('GET', `/admin/v1/merchants/${m.id}`)).body.agency, true);
  });

  it('makeAgency and makePlatform set the flag through the admin API', async () => {
    const agency = await makeAgency(t);
    const platform = await makePlatform(t);
    assert.equal((await t.admin('GET', `/admin/v1/merchants/${agency.id}`)).body.agency, true);
    assert.equal((await t.admin('GET', `/admin/v1/merchants/${platform.id}`)).body.platform, true);
  });

  it('a seller onboarded for a platform is linked and open in that mode only, with merchant.linked on the platform; unlinking ends it once', async () => {
    const platform = await makePlatform(t, 'Links');
    const other = await makePlatform(t, 'Other links');
    const seller = await onboardSeller(t, platform.testKey, { legalName: 'Vanille Taha\'a SARL' });
    assert.match(seller.merchantId, /^mer_/);
    assert.match(seller.secretKey, /^sk_test_/);
    assert.equal((await t.api(seller.secretKey, 'GET', '/api/v1/customers')).status, 200, 'the seller key works');

    const key = { platformId: platform.id, sellerId: seller.merchantId };
    assert.equal(await linkedOpenSeller(t.db.kysely, { ...key, mode: 'test' }), true);
    assert.equal(await linkedOpenSeller(t.db.kysely, { ...key, mode: 'live' }), false, 'linked in test mode only');
    assert.equal(await linkedOpenSeller(t.db.kysely, { platformId: other.id, sellerId: seller.merchantId, mode: 'test' }), false);

    const events = await t.api(platform.testKey, 'GET', '/api/v1/events?type=merchant.linked');
    assert.equal(events.status, 200, JSON.stringify(events.body));
    const linked = events.body.data.filter((e: { type: string }) => e.type === 'merchant.linked');
    assert.equal(linked.length, 1);
    assert.deepEqual(linked[0].data, { merchantId: seller.merchantId, platformId: platform.id, caseId: seller.caseId });
    assert.equal((await t.api(other.testKey, 'GET', '/api/v1/events')).body.data.length, 0, 'another platform hears nothing');

    await t.db.transaction((trx) => unlinkSeller(trx, { ...key, mode: 'test', at: t.clock.now() }));
    assert.equal(await linkedOpenSeller(t.db.kysely, { ...key, mode: 'test' }), false);
    await assert.rejects(t.db.transaction((trx) => unlinkSeller(trx, { ...key, mode: 'test', at: t.clock.now() })), { code: 'NOT_FOUND' });
    const after = await t.api(platform.testKey, 'GET', '/api/v1/events');
    assert.deepEqual(after.body.data.slice(0, 2).map((e: { type: string }) => e.type), ['merchant.unlinked', 'merchant.linked']);
  });

  it('a seller whose account is not open is not a linked, open seller', async () => {
    const platform = await makePlatform(t, 'Closed');
    const seller = await onboardSeller(t, platform.testKey, { legalName: 'Pas encore ouvert' });
    await t.db.kysely.updateTable('merchants').set({ opened_at: null }).where('id', '=', seller.merchantId).execute();
    assert.equal(await linkedOpenSeller(t.db.kysely, { platformId: platform.id, sellerId: seller.merchantId, mode: 'test' }), false);
  });
});
