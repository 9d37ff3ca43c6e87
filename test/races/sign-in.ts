// The sign-in and back-office key rows of the race table (test/races.test.ts, docs/reliability.md "Races"): many
// sign-ins or two-factor codes at once against the lockout, and keys made by a developer while an owner removes or
// demotes them. `invariant` checks what a user would check afterwards: the answers, and whether the account is locked.
// The rows run on a manual clock of their own (the two-factor codes are read from it).
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { PASSWORD, signedInUser, signIn, type UserClient } from '../support/back-office.js';
import { race, type Answer, type RaceRow } from '../support/races.js';

/** The instant the rows' app starts at; rows with the same clock and settings share an app (test/support/races.ts). */
const CLOCK = new Date('2027-05-03T09:00:00.000Z');

const WRONG = 'wrong password, guessed';

function counts(answers: Answer[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.status} ${a.body?.code ?? ''}`.trim();
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/** At most ten attempts were judged; all the others were refused unseen as ACCOUNT_LOCKED. */
function atMostTenJudged(answers: Answer[], wrongCode: string): void {
  const seen = counts(answers);
  for (const key of Object.keys(seen)) assert.ok(['200', `401 ${wrongCode}`, '429 ACCOUNT_LOCKED'].includes(key), `unexpected answer ${key}: ${JSON.stringify(seen)}`);
  const judged = answers.filter((a) => a.status !== 429).length;
  assert.ok(judged <= 10, `${judged} attempts were judged: ${JSON.stringify(seen)}`);
  const accepted = seen['200'] ?? 0;
  assert.ok(accepted <= 1);
  // A success was one of the first ten attempts counted: with it, at most nine failures were judged.
  if (accepted === 1) assert.ok((seen[`401 ${wrongCode}`] ?? 0) <= 9, JSON.stringify(seen));
}

function totpCode(secret: string, at: Date): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at.getTime() });
}

/** The `i`th wrong code next to the right one: never the right one. */
function wrongCode(right: string, i: number): string {
  const code = String((Number(right) + 1 + i * 7919) % 1_000_000).padStart(6, '0');
  return code === right ? String((Number(right) + 500_000) % 1_000_000).padStart(6, '0') : code;
}

/** The sign-in rows of the race table (test/races.test.ts). */
export const signInRaces: RaceRow[] = [
  race({
    name: 'sign-in: 150 sign-ins at once, 149 wrong and the right one last: ten judged, the account stays locked',
    requests: 150,
    clock: CLOCK,
    setup: async ({ t, m }) => ({ email: (await signedInUser(t, m.id, 'developer')).email }),
    fire: ({ t }, { email }, i) => signIn(t, email, i === 149 ? PASSWORD : WRONG),
    invariant: async ({ t }, { email }, answers) => {
      atMostTenJudged(answers, 'INVALID_CREDENTIALS');
      const after = await signIn(t, email);
      assert.equal(after.status, 429, 'the right password is refused afterwards: no success lifted the lock');
      assert.equal(after.body.code, 'ACCOUNT_LOCKED');
    },
  }),
  race({
    name: 'sign-in: 100 two-factor codes at once with the right password, one code right: ten judged, the account stays locked',
    requests: 100,
    clock: CLOCK,
    setup: async ({ t, m, clock }) => {
      const user = await signedInUser(t, m.id, 'developer');
      const secret = (await user.call('POST', '/dashboard/api/two-factor/setup')).body.secret as string;
      const enabled = await user.call('POST', '/dashboard/api/two-factor/enable', { code: totpCode(secret, clock.now()) });
      assert.equal(enabled.status, 200);
      clock.advance(90_000);
      return { email: user.email, secret, right: totpCode(secret, clock.now()) };
    },
    fire: ({ t }, { email, right }, i) => signIn(t, email, PASSWORD, i === 99 ? right : wrongCode(right, i)),
    invariant: async ({ t, clock }, { email, secret }, answers) => {
      atMostTenJudged(answers, 'INVALID_TWO_FACTOR_CODE');
      clock.advance(30_000);
      const after = await signIn(t, email, PASSWORD, totpCode(secret, clock.now()));
      assert.equal(after.status, 429, 'a fresh right code is refused afterwards');
      assert.equal(after.body.code, 'ACCOUNT_LOCKED');
    },
  }),
  race({
    name: 'sign-in: 60 sign-ins at once at an unknown address: answered as a known one (ten judged, then locked)',
    requests: 60,
    clock: CLOCK,
    setup: async () => ({ email: `nobody-${Math.random().toString(36).slice(2, 8)}@shop.example` }),
    fire: ({ t }, { email }) => signIn(t, email, WRONG),
    invariant: async ({ t }, { email }, answers) => {
      atMostTenJudged(answers, 'INVALID_CREDENTIALS');
      assert.equal(answers.filter((a) => a.status === 401).length, 9, 'nine wrong, the tenth already locked');
      assert.equal((await signIn(t, email)).body.code, 'ACCOUNT_LOCKED');
    },
  }),
  race<{ owner: UserClient; developer: UserClient }>({
    name: 'back-office keys: 20 keys made by a developer while an owner removes them: none of them works afterwards',
    requests: 21,
    clock: CLOCK,
    setup: async ({ t, m }) => ({ owner: await signedInUser(t, m.id, 'owner'), developer: await signedInUser(t, m.id, 'developer') }),
    // The first 20 make keys; the last is the owner's removal, sent with them.
    fire: (_app, { owner, developer }, i) => i < 20 ? developer.call('POST', '/dashboard/api/keys', {}) : owner.call('DELETE', `/dashboard/api/users/${developer.id}`),
    invariant: async ({ t }, _state, answers) => {
      assert.equal(answers.at(-1)!.status, 204);
      const made = answers.slice(0, -1);
      for (const a of made) assert.ok([201, 401].includes(a.status), JSON.stringify(a.body));
      for (const key of made.filter((a) => a.status === 201)) assert.equal((await t.api(key.body.secretKey, 'GET', '/api/v1/customers')).status, 401, 'a removed maker’s key');
    },
  }),
  race<{ owner: UserClient; developer: UserClient }>({
    name: 'back-office keys: 20 keys made by a developer while an owner makes them analyst: none of them changes anything afterwards',
    requests: 21,
    clock: CLOCK,
    setup: async ({ t, m }) => ({ owner: await signedInUser(t, m.id, 'owner'), developer: await signedInUser(t, m.id, 'developer') }),
    // The first 20 make keys; the last is the owner's demotion, sent with them.
    fire: (_app, { owner, developer }, i) => i < 20 ? developer.call('POST', '/dashboard/api/keys', {}) : owner.call('PATCH', `/dashboard/api/users/${developer.id}`, { role: 'analyst' }),
    invariant: async ({ t }, _state, answers) => {
      assert.equal(answers.at(-1)!.status, 200);
      const made = answers.slice(0, -1);
      for (const a of made) assert.ok([201, 403].includes(a.status), JSON.stringify(a.body));
      for (const key of made.filter((a) => a.status === 201)) assert.equal((await t.api(key.body.secretKey, 'POST', '/api/v1/customers', { name: 'x' })).status, 403, 'an analyst’s key');
    },
  }),
];
