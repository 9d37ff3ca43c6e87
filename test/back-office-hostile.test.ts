// Hostile input on the back-office's own routes (/dashboard/api): random JSON bodies, ids and raw payloads, with and
// without a session. Whatever arrives, never a 500, every failure in the error shape, and a failed request writes
// nothing but its audit row (written before a change runs, by design: the log shows what was tried).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import fc from 'fast-check';
import { signedInUser, type UserClient } from './support/back-office.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { rowCounts, tableNames } from './support/tables.js';

const RUNS = Number(process.env.HOSTILE_RUNS ?? 60);

const ROUTES: Array<[method: string, path: string]> = [
  ['POST', '/dashboard/api/sign-in'], ['POST', '/dashboard/api/setup'], ['POST', '/dashboard/api/mode'],
  ['POST', '/dashboard/api/two-factor/enable'], ['POST', '/dashboard/api/two-factor/disable'], ['POST', '/dashboard/api/two-factor/recovery-codes'],
  ['POST', '/dashboard/api/users'], ['PATCH', '/dashboard/api/users/{id}'], ['DELETE', '/dashboard/api/users/{id}'],
  ['POST', '/dashboard/api/keys'], ['DELETE', '/dashboard/api/keys/{id}'], ['PATCH', '/dashboard/api/settings'],
  ['GET', '/dashboard/api/setup/{id}'], ['GET', '/dashboard/api/payments/{id}/timeline'], ['GET', '/dashboard/api/audit'],
];

const hostileValue = fc.oneof(
  fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }),
  fc.constantFrom('owner', 'live', 'test', '<script>', '../../etc', 'a'.repeat(5000), '\u0000', 'usr_' + '0'.repeat(22)),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }),
);
const hostileBody = fc.oneof(
  fc.dictionary(fc.constantFrom('email', 'password', 'code', 'token', 'mode', 'role', 'permission', 'storeId', 'displayName', 'timezone', 'primaryColor', 'extra'), hostileValue, { maxKeys: 4 }),
  fc.array(hostileValue, { maxLength: 3 }), fc.string(), fc.integer(),
);
const hostileId = fc.oneof(fc.string({ minLength: 1, maxLength: 80 }), fc.constantFrom('usr_' + '0'.repeat(22), 'pay_x', '%2e%2e', 'key_' + 'Z'.repeat(22)));

eachDatabase('back-office hostile input', (dialect) => {
  const { t, m } = withMerchantApp(dialect);
  let owner: UserClient;
  let tables: string[];
  before(async () => {
    owner = await signedInUser(t, m.id, 'owner');
    tables = (await tableNames(t.db)).filter((name) => name !== 'audit_log');
  });

  async function check(what: string, run: () => ReturnType<UserClient['call']>) {
    const counts = await rowCounts(t.db, tables);
    const res = await run();
    const context = `${what} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`;
    assert.ok(res.status < 500, `server error: ${context}`);
    if (res.status >= 400) {
      assert.equal(typeof res.body?.code, 'string', `error without code: ${context}`);
      assert.equal(typeof res.body?.message, 'string', `error without message: ${context}`);
      assert.deepEqual(await rowCounts(t.db, tables), counts, `a failed request wrote rows: ${context}`);
    }
  }

  test('random bodies and ids on every route, signed in and not', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...ROUTES), hostileBody, hostileId, fc.boolean(), async ([method, path], body, id, signed) => {
      const url = path.replace('{id}', encodeURIComponent(id));
      const payload = method === 'GET' || method === 'DELETE' ? undefined : body;
      await check(`${method} ${url} ${JSON.stringify(payload)?.slice(0, 100)}`, () =>
        signed ? owner.call(method, url, payload) : t.api(undefined, method, url, payload));
    }), { numRuns: RUNS });
  });

  test('raw payloads: malformed JSON, wrong content type, deep nesting', async () => {
    for (const [method, path] of ROUTES.filter(([method]) => method === 'POST' || method === 'PATCH')) {
      const url = path.replace('{id}', 'usr_' + '0'.repeat(22));
      for (const [payload, type] of [['{"email":', 'application/json'], ['email=a', 'application/x-www-form-urlencoded'], ['plain', 'text/plain'],
        ['['.repeat(200) + ']'.repeat(200), 'application/json']] as const) {
        await check(`${method} ${url} raw ${type}`, () => owner.call(method, url, payload, { headers: { 'content-type': type } }));
      }
    }
  });

  test('the session still works (the app survived)', async () => {
    assert.equal((await owner.call('GET', '/dashboard/api/me')).status, 200);
  });
});
