// What the back-office lets out must not outgrow the user behind it: a key made there does no more than its maker's
// role, is audited with the key, follows its maker's role and removal; and sign-in tells no one which addresses are
// known. On every database, through HTTP.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { dummyHash, hashPassword } from '../src/modules/users/passwords.js';
import { scheduledJobs } from '../src/start/workers.js';
import { cookieOf, PASSWORD, signedInUser, signIn, type UserClient } from './support/back-office.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase, freshDatabase, ManualClock } from './support/harness.js';
import { migrate } from '../src/db/migrate.js';
import { withMerchantApp } from './support/merchant-app.js';

const IBAN = { iban: 'FR7630006000010000000000152', holderName: 'Fare Ute', currency: 'EUR' };

eachDatabase('back-office keys and their makers', (dialect) => {
  const { t, m } = withMerchantApp(dialect);

  async function keyOf(user: UserClient, body: Record<string, unknown> = {}) {
    const res = await user.call('POST', '/dashboard/api/keys', body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { id: string; secretKey: string; mode: string };
  }

  it("a developer's key, test or live, may not add a bank account or change the payout schedule; it changes nothing", async () => {
    const developer = await signedInUser(t, m.id, 'developer');
    const testKey = await keyOf(developer);
    assert.match(testKey.secretKey, /^sk_test_/);
    assert.equal((await developer.call('POST', '/dashboard/api/mode', { mode: 'live' })).status, 200);
    const liveKey = await keyOf(developer);
    assert.match(liveKey.secretKey, /^sk_live_/);
    const before = (await t.api(m.testKey, 'GET', '/api/v1/payout-schedule')).body;
    for (const key of [testKey.secretKey, liveKey.secretKey]) {
      const bank = await t.api(key, 'POST', '/api/v1/bank-accounts', IBAN);
      assert.equal(bank.status, 403, JSON.stringify(bank.body));
      assert.equal(bank.body.code, 'PERMISSION_DENIED');
      assert.ok(!JSON.stringify(bank.body).includes('sk_'), 'the answer names no key');
      const schedule = await t.api(key, 'PATCH', '/api/v1/payout-schedule', { interval: 'manual' });
      assert.equal(schedule.status, 403);
      assert.equal(schedule.body.code, 'PERMISSION_DENIED');
    }
    assert.deepEqual((await t.api(m.testKey, 'GET', '/api/v1/bank-accounts')).body.data, []);
    assert.deepEqual((await t.api(m.liveKey, 'GET', '/api/v1/bank-accounts')).body.data, []);
    assert.deepEqual((await t.api(m.testKey, 'GET', '/api/v1/payout-schedule')).body, before);
    // What the developer may do, the key does.
    assert.equal((await t.api(testKey.secretKey, 'POST', '/api/v1/customers', { name: 'Made by a key' })).status, 201);
    assert.equal((await t.api(testKey.secretKey, 'GET', '/api/v1/webhooks/signing-secret')).status, 200);
    // An owner's key may, as the owner may.
    const owner = await signedInUser(t, m.id, 'owner');
    const ownerKey = await keyOf(owner);
    assert.equal((await t.api(ownerKey.secretKey, 'POST', '/api/v1/bank-accounts', IBAN)).status, 201);
  });

  it('keys name their maker in the list; what a key changes is audited with the key and its maker', async () => {
    const developer = await signedInUser(t, m.id, 'developer');
    const key = await keyOf(developer);
    const listed = (await developer.call('GET', '/dashboard/api/keys')).body.data.find((k: { id: string }) => k.id === key.id);
    assert.deepEqual(listed.createdBy, { id: developer.id, email: developer.email });
    assert.equal(listed.role, 'developer');
    const customer = await t.api(key.secretKey, 'POST', '/api/v1/customers', { name: 'Audited' });
    assert.equal(customer.status, 201);
    const refused = await t.api(key.secretKey, 'POST', '/api/v1/bank-accounts', IBAN);
    assert.equal(refused.status, 403);
    const audit = (await developer.call('GET', `/dashboard/api/audit?objectId=${customer.body.id}`)).body.data;
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0].actedBy, { userId: developer.id, keyId: key.id });
    assert.equal(audit[0].user.email, developer.email);
    assert.equal(audit[0].action, 'POST /api/v1/customers');
    assert.equal(audit[0].outcome, 'succeeded');
    // The key's creation itself is the developer's, with the session.
    const made = (await developer.call('GET', `/dashboard/api/audit?objectId=${key.id}`)).body.data;
    assert.deepEqual(made.map((a: { action: string; actedBy: unknown }) => [a.action, a.actedBy]), [['POST /dashboard/api/keys', { userId: developer.id }]]);
    // The operator's keys are the merchant's own: not in the back-office's log.
    const own = await t.api(m.testKey, 'POST', '/api/v1/customers', { name: 'Integration' });
    assert.deepEqual((await developer.call('GET', `/dashboard/api/audit?objectId=${own.body.id}`)).body.data, []);
  });

  it("a key follows its maker: a role change narrows it at once, removing the maker revokes it or, chosen, hands it over", async () => {
    const owner = await signedInUser(t, m.id, 'owner');
    const developer = await signedInUser(t, m.id, 'developer');
    const key = await keyOf(developer);
    assert.equal((await t.api(key.secretKey, 'POST', '/api/v1/customers', { name: 'Before' })).status, 201);
    assert.equal((await owner.call('PATCH', `/dashboard/api/users/${developer.id}`, { role: 'analyst' })).status, 200);
    const narrowed = await t.api(key.secretKey, 'POST', '/api/v1/customers', { name: 'After' });
    assert.equal(narrowed.status, 403, 'an analyst changes nothing, nor do their keys');
    assert.equal((await t.api(key.secretKey, 'GET', '/api/v1/webhooks/signing-secret')).status, 403, 'nor reads secrets');
    assert.equal((await t.api(key.secretKey, 'GET', '/api/v1/customers')).status, 200);
    assert.equal((await owner.call('PATCH', `/dashboard/api/users/${developer.id}`, { role: 'developer' })).status, 200);
    assert.equal((await t.api(key.secretKey, 'POST', '/api/v1/customers', { name: 'Again' })).status, 201);

    const team = (await owner.call('GET', '/dashboard/api/users')).body.data;
    assert.equal(team.find((u: { id: string }) => u.id === developer.id).apiKeys, 1, 'the team list counts the keys each made');
    assert.equal((await owner.call('DELETE', `/dashboard/api/users/${developer.id}`)).status, 204);
    const gone = await t.api(key.secretKey, 'GET', '/api/v1/customers');
    assert.equal(gone.status, 401);
    assert.equal(gone.body.code, 'UNAUTHORIZED');
    assert.ok((await owner.call('GET', '/dashboard/api/keys')).body.data.find((k: { id: string }) => k.id === key.id).revokedAt);

    const other = await signedInUser(t, m.id, 'developer');
    const kept = await keyOf(other);
    const bad = await owner.call('DELETE', `/dashboard/api/users/${other.id}?keys=give-away`);
    assert.equal(bad.status, 400);
    assert.equal((await other.call('GET', '/dashboard/api/me')).status, 200, 'a refused removal removes nobody');
    assert.equal((await owner.call('DELETE', `/dashboard/api/users/${other.id}?keys=hand-over`)).status, 204);
    assert.equal((await t.api(kept.secretKey, 'POST', '/api/v1/bank-accounts', { ...IBAN, iban: 'FR7630006000011234567890189' })).status, 201,
      'handed to the owner, the key has the owner’s ceiling');
    const listed = (await owner.call('GET', '/dashboard/api/keys')).body.data.find((k: { id: string }) => k.id === kept.id);
    assert.deepEqual(listed.createdBy, { id: owner.id, email: owner.email });
    assert.equal(listed.revokedAt, null);
  });
});

eachDatabase('sign-in tells known addresses from none', (dialect) => {
  const { t, m } = withMerchantApp(dialect);

  it('a known address and an unknown one get the same answers, locked alike after ten failures', async () => {
    const user = await signedInUser(t, m.id, 'analyst');
    const unknown = 'nobody-at-all@shop.example';
    const shape = (r: { status: number; body: { code: string; message: string; details?: unknown } }) => JSON.stringify([r.status, r.body.code, r.body.message, r.body.details]);
    for (let i = 1; i <= 11; i++) {
      const known = await signIn(t, user.email, 'wrong password!!');
      const none = await signIn(t, unknown, 'wrong password!!');
      assert.equal(shape(known), shape(none), `attempt ${i}`);
      assert.equal(known.status, i < 10 ? 401 : 429, `attempt ${i}`);
    }
    assert.equal(shape(await signIn(t, user.email)), shape(await signIn(t, unknown)), 'the right password too, while locked');
  });

  it('an unknown address costs a password hash of the same parameters as a real one', async () => {
    const params = (phc: string) => phc.split('$').slice(1, 4).join('$');
    assert.equal(params(await dummyHash()), params(await hashPassword('any password at all')));
    assert.match(params(await dummyHash()), /^argon2id\$v=19\$m=\d+,t=\d+,p=\d+$/);
    // And it is verified: measured generously, the machine being shared (a sign-in without a hash is some ten times faster).
    const user = await signedInUser(t, m.id, 'analyst');
    const timed = async (email: string) => {
      const start = performance.now();
      await signIn(t, email, 'wrong password!!');
      return performance.now() - start;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const known: number[] = [];
    const none: number[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(await timed(user.email));
      none.push(await timed(`nobody-${i}@shop.example`));
    }
    assert.ok(median(none) > median(known) / 4, `unknown ${median(none).toFixed(1)} ms, known ${median(known).toFixed(1)} ms`);
    assert.equal((await signIn(t, user.email, PASSWORD)).status, 200);
  });

  it("an invitation tells nothing of other teams: an address another merchant has is invited like any, and becomes an account of its own", async () => {
    const other = await createMerchant(t, 'Elsewhere');
    const theirs = await signedInUser(t, other.id, 'developer');
    const owner = await signedInUser(t, m.id, 'owner');
    const invite = async (email: string) => {
      const res = await owner.call('POST', '/dashboard/api/users', { email, role: 'analyst' });
      return { res, shape: JSON.stringify([res.status, Object.keys(res.body).sort(), Object.keys(res.body.user ?? {}).sort(), res.body.user?.status, res.body.emailSent]) };
    };
    const used = await invite(theirs.email);
    const fresh = await invite(`fresh-${Math.random().toString(36).slice(2, 8)}@shop.example`);
    assert.equal(used.res.status, 201, JSON.stringify(used.res.body));
    assert.equal(used.shape, fresh.shape, 'the same answer for an address used elsewhere and a new one');
    const again = await owner.call('POST', '/dashboard/api/users', { email: theirs.email, role: 'analyst' });
    assert.equal(again.status, 409, 'twice in the same team: already in your team');
    assert.equal(again.body.code, 'ALREADY_EXISTS');

    // Accepted: an account of its own in this team, with a password of its own.
    const token = String(used.res.body.setupUrl).split('/').at(-1)!;
    assert.deepEqual((await t.api(undefined, 'GET', `/dashboard/api/setup/${token}`)).body, { email: theirs.email, merchantName: 'Fare Ute' });
    const samePassword = await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD });
    assert.equal(samePassword.status, 400, 'a password that opens the other team is refused');
    assert.equal(samePassword.body.fields[0].field, 'password');
    const secondPassword = 'another long passphrase for this team';
    const done = await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: secondPassword });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.merchant.id, m.id);
    assert.ok(cookieOf(done.headers).startsWith('motu_dashboard='));
    // Each password opens its team.
    assert.equal((await signIn(t, theirs.email, PASSWORD)).body.merchant.id, other.id);
    assert.equal((await signIn(t, theirs.email, secondPassword)).body.merchant.id, m.id);
    assert.equal((await signIn(t, theirs.email, 'neither of the two!!')).body.code, 'INVALID_CREDENTIALS');
    // The other team is untouched.
    assert.equal((await theirs.call('GET', '/dashboard/api/me')).body.merchant.id, other.id);
  });
});

eachDatabase('sign-in counts of addresses left alone', (dialect) => {
  const clock = new ManualClock(new Date('2027-06-01T08:00:00.000Z'));
  const { t } = withMerchantApp(dialect, { clock });

  it('are forgotten by the worker a day after the last attempt, unless locked', async () => {
    const purge = scheduledJobs(t.db, clock).find((j) => j.name === 'purge-sign-in-attempts')!;
    const idle = 'idle@nowhere.example';
    const locked = 'locked@nowhere.example';
    for (let i = 0; i < 9; i++) assert.equal((await signIn(t, idle, 'wrong password!!')).status, 401);
    for (let i = 0; i < 10; i++) await signIn(t, locked, 'wrong password!!');
    clock.advance(12 * 3600_000);
    await purge.run(clock.now());
    assert.equal((await signIn(t, idle, 'wrong password!!')).status, 429, 'the tenth within a day locks');
    clock.advance(36 * 3600_000);
    assert.ok(Number(await purge.run(clock.now())) >= 2, 'both forgotten once their locks are over');
    for (let i = 1; i <= 9; i++) assert.equal((await signIn(t, idle, 'wrong password!!')).status, 401, `attempt ${i} after a quiet day`);
    assert.equal((await signIn(t, locked, 'wrong password!!')).status, 401);
  });
});

eachDatabase('keys made in the back-office before their makers were recorded', (dialect) => {
  it('are given their maker and ceiling from the audit log by the migration; a removed maker’s are revoked', async () => {
    const { db, drop } = await freshDatabase(dialect, { migrate: false });
    try {
      await migrate(db, '0036_monext_attempts');
      const at = '2027-01-02T03:04:05.000Z';
      const k = db.kysely;
      await k.insertInto('merchants').values({ id: 'mer_0000000000000000000001', name: 'Fare Ute', created_at: at } as never).execute();
      const user = (id: string, email: string, role: string, removed: string | null) => ({
        id, merchant_id: 'mer_0000000000000000000001', email, role, created_at: at, removed_at: removed, totp_enabled: 0, failed_sign_ins: 0,
      });
      await k.insertInto('users').values([
        user('usr_000000000000000000000d', 'dev@shop.example', 'developer', null),
        user('usr_000000000000000000000r', 'gone@shop.example', 'admin', at),
      ] as never).execute();
      const key = (id: string, hash: string) => ({ id, merchant_id: 'mer_0000000000000000000001', mode: 'test', key_hash: hash, last4: 'abcd', permission: 'write', created_at: at });
      await k.insertInto('api_keys').values([
        key('key_00000000000000000000dv', 'h1'), key('key_00000000000000000000gn', 'h2'), key('key_00000000000000000000op', 'h3'),
      ] as never).execute();
      const audit = (id: string, userId: string, objectId: string, outcome: string) => ({
        id, merchant_id: 'mer_0000000000000000000001', mode: 'test', user_id: userId, action: 'POST /dashboard/api/keys', object_id: objectId, outcome, status_code: 201, created_at: at,
      });
      await k.insertInto('audit_log').values([
        audit('aud_0000000000000000000001', 'usr_000000000000000000000d', 'key_00000000000000000000dv', 'succeeded'),
        audit('aud_0000000000000000000002', 'usr_000000000000000000000r', 'key_00000000000000000000gn', 'succeeded'),
        audit('aud_0000000000000000000003', 'usr_000000000000000000000d', 'key_00000000000000000000op', 'failed'),
      ] as never).execute();
      await migrate(db);
      const rows = await k.selectFrom('api_keys').select(['id', 'created_by', 'role', 'revoked_at']).orderBy('id').execute();
      const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
      assert.deepEqual(byId.key_00000000000000000000dv, { id: 'key_00000000000000000000dv', created_by: 'usr_000000000000000000000d', role: 'developer', revoked_at: null });
      assert.equal(byId.key_00000000000000000000gn!.created_by, 'usr_000000000000000000000r');
      assert.ok(byId.key_00000000000000000000gn!.revoked_at, 'the removed maker’s key stops working');
      assert.deepEqual(byId.key_00000000000000000000op, { id: 'key_00000000000000000000op', created_by: null, role: null, revoked_at: null }, 'not made in the back-office: the operator’s');
    } finally {
      await drop();
    }
  });
});
