// Hostile input on the back-office's own routes (/dashboard/api, every one the app registers): random JSON bodies, ids,
// query strings (the parameters each route's schema declares: the mails' kind and subjectId, a removal's keys) and raw
// payloads, with and without a session. Whatever arrives, never a 500, every failure in the error shape, and a failed request writes
// nothing but its audit row (written before a change runs, by design: the log shows what was tried).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import fc from 'fast-check';
import { signedInUser, type UserClient } from './support/back-office.js';
import { eachDatabase, type RegisteredRoute, type TestApp } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { rowCounts, tableNames } from './support/tables.js';

const RUNS = Number(process.env.HOSTILE_RUNS ?? 60);

/** The back-office's routes as the app registered them: a route added under /dashboard/api is fuzzed without a word here. */
function backOfficeRoutes(t: TestApp): RegisteredRoute[] {
  return t.routes.filter((r) => r.path.startsWith('/dashboard/api/'));
}

/** A field name of the route's body, or one of the usual back-office ones. */
const USUAL_FIELDS = ['email', 'password', 'code', 'token', 'mode', 'role', 'permission', 'storeId', 'displayName', 'timezone', 'primaryColor', 'extra'];

const hostileValue = fc.oneof(
  fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }),
  fc.constantFrom('owner', 'live', 'test', '<script>', '../../etc', 'a'.repeat(5000), '\u0000', 'usr_' + '0'.repeat(22)),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }),
);
const hostileBody = (route: RegisteredRoute) => fc.oneof(
  fc.dictionary(fc.constantFrom(...new Set([...route.bodyKeys, ...USUAL_FIELDS])), hostileValue, { maxKeys: 4 }),
  fc.array(hostileValue, { maxLength: 3 }), fc.string(), fc.integer(),
);
/** A query string of the route's own parameters (and one it does not know), each given a hostile value or several. */
const hostileText = fc.oneof(fc.string(), fc.constantFrom('', 'hand-over', 'revoke', 'receipt', 'card_link', 'invoice', '<script>', '%00', 'a'.repeat(300), "' OR '1'='1", 'pay_' + '0'.repeat(22)));
const hostileQuery = (route: RegisteredRoute) => fc.array(fc.tuple(fc.constantFrom(...route.queryKeys, 'extra'), hostileText), { maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
/** A plausible value of each declared parameter, so that one hostile parameter is judged with the others valid. */
const PLAUSIBLE: Record<string, string> = { kind: 'receipt', subjectId: 'pay_' + '0'.repeat(22), keys: 'hand-over' };
const withQuery = (url: string, query: string) => (query ? `${url}?${query}` : url);

const hostileId = fc.oneof(fc.string({ minLength: 1, maxLength: 80 }), fc.constantFrom('usr_' + '0'.repeat(22), 'pay_x', '%2e%2e', 'key_' + 'Z'.repeat(22)));

eachDatabase('back-office hostile input', (dialect) => {
  const { t, m } = withMerchantApp(dialect);
  let owner: UserClient;
  let tables: string[];
  let routes: RegisteredRoute[];
  before(async () => {
    owner = await signedInUser(t, m.id, 'owner');
    // Refused requests may write two things on purpose: the audit log's record of them, and a wrong password's count
    // toward the address's lockout (sign_in_attempts: a wrong password on sign-in, or when a signed-in user
    // confirms an action such as new recovery codes). Every other table must stay as it was.
    tables = (await tableNames(t.db)).filter((name) => name !== 'audit_log' && name !== 'sign_in_attempts');
    routes = backOfficeRoutes(t);
  });
  /** The session a signed call uses: sign-out ends its own, so it is sent with a spare user's, made for it. */
  const sessionFor = async (path: string) => (path.endsWith('/sign-out') ? signedInUser(t, m.id, 'analyst') : owner);

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

  test('the sweep is the registered back-office routes, every one of them', () => {
    assert.ok(routes.length >= 20, `only ${routes.length} back-office routes`);
    for (const known of ['POST /dashboard/api/sign-in', 'PATCH /dashboard/api/users/{id}', 'GET /dashboard/api/setup/{token}', 'GET /dashboard/api/home', 'GET /dashboard/api/mails']) {
      assert.ok(routes.some((r) => `${r.method} ${r.path}` === known), `${known} is not among the registered routes`);
    }
    // The query parameters come from the routes' schemas: those below are fuzzed because the app declares them.
    const query = (name: string) => routes.find((r) => `${r.method} ${r.path}` === name)?.queryKeys;
    assert.deepEqual(query('GET /dashboard/api/mails'), ['kind', 'subjectId']);
    assert.deepEqual(query('DELETE /dashboard/api/users/{id}'), ['keys']);
  });

  test('random bodies, ids and query strings on every route, signed in and not', async () => {
    const arb = fc.constantFrom(...routes).chain((route) => fc.tuple(fc.constant(route), hostileBody(route), hostileId, fc.boolean(), hostileQuery(route)));
    await fc.assert(fc.asyncProperty(arb, async ([{ method, path }, body, id, signed, query]) => {
      const url = withQuery(path.replace(/\{\w+\}/g, encodeURIComponent(id)), query);
      const payload = method === 'GET' || method === 'DELETE' ? undefined : body;
      const session = signed ? await sessionFor(path) : undefined;
      await check(`${method} ${url} ${JSON.stringify(payload)?.slice(0, 100)}`, () =>
        session ? session.call(method, url, payload) : t.api(undefined, method, url, payload));
    }), { numRuns: Math.max(RUNS, routes.length * 3) });
  });

  test('every route once with each hostile id, signed in', async () => {
    for (const { method, path } of routes.filter((r) => r.path.includes('{'))) {
      for (const id of ['usr_' + '0'.repeat(22), '%2e%2e', 'a'.repeat(300), "' OR '1'='1"]) {
        const url = path.replace(/\{\w+\}/g, encodeURIComponent(id));
        await check(`${method} ${url}`, () => owner.call(method, url, method === 'GET' || method === 'DELETE' ? undefined : {}));
      }
    }
  });

  test("every route's own query parameters, one hostile at a time with the others plausible, signed in", async () => {
    const queried = routes.filter((r) => r.queryKeys.length > 0);
    assert.ok(queried.length >= 2, queried.map((r) => r.path).join(', '));
    for (const { method, path, queryKeys } of queried) {
      const url = path.replace(/\{\w+\}/g, 'usr_' + '0'.repeat(22));
      for (const key of queryKeys) {
        const others = queryKeys.filter((k) => k !== key).map((k) => `${k}=${encodeURIComponent(PLAUSIBLE[k] ?? 'x')}`);
        for (const value of ['', '%00', '\u0000', 'a'.repeat(300), "' OR '1'='1", '<script>', '[]', '{"a":1}']) {
          const query = [...others, `${key}=${encodeURIComponent(value)}`].join('&');
          await check(`${method} ${url}?${query}`, () => owner.call(method, withQuery(url, query), method === 'GET' || method === 'DELETE' ? undefined : {}));
        }
        // The parameter twice (an array where a string is declared) and an unknown one beside it.
        const query = [...others, `${key}=a`, `${key}=b`, 'extra=1'].join('&');
        await check(`${method} ${url}?${query}`, () => owner.call(method, withQuery(url, query), method === 'GET' || method === 'DELETE' ? undefined : {}));
      }
    }
  });

  test('raw payloads: malformed JSON, wrong content type, deep nesting', async () => {
    for (const { method, path } of routes.filter((r) => r.method === 'POST' || r.method === 'PATCH')) {
      const url = path.replace(/\{\w+\}/g, 'usr_' + '0'.repeat(22));
      const session = await sessionFor(path);
      for (const [payload, type] of [['{"email":', 'application/json'], ['email=a', 'application/x-www-form-urlencoded'], ['plain', 'text/plain'],
        ['['.repeat(200) + ']'.repeat(200), 'application/json']] as const) {
        await check(`${method} ${url} raw ${type}`, () => session.call(method, url, payload, { headers: { 'content-type': type } }));
      }
    }
  });

  test('the session still works (the app survived)', async () => {
    assert.equal((await owner.call('GET', '/dashboard/api/me')).status, 200);
  });
});
