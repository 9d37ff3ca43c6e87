// Sign-in and back-office keys raced: many requests sent at once, on every database. Each row of RACES is one race:
// `setup` makes what it needs, `fire` sends the requests all at once, `invariant` checks what a user would check
// afterwards (the answers, and whether the account is locked). The rows have the shape of test/races.test.ts's.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { PASSWORD, signedInUser, signIn, type UserClient } from './support/back-office.js';
import { eachDatabase, ManualClock, type TestApp } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

type Answer = { status: number; body: { code?: string } };

interface Race<S> {
  name: string;
  setup: (t: TestApp, merchantId: string, clock: ManualClock) => Promise<S>;
  fire: (t: TestApp, state: S, clock: ManualClock) => Promise<Answer[]>;
  invariant: (t: TestApp, state: S, answers: Answer[], clock: ManualClock) => Promise<void>;
}

const WRONG = 'wrong password, guessed';

function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.status} ${a.body.code ?? ''}`.trim();
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** At most ten attempts were judged; all the others were refused unseen as ACCOUNT_LOCKED. */
function atMostTenJudged(answers: Answer[], wrongCode: string): void {
  const counts = tally(answers);
  for (const key of Object.keys(counts)) assert.ok(['200', `401 ${wrongCode}`, '429 ACCOUNT_LOCKED'].includes(key), `unexpected answer ${key}: ${JSON.stringify(counts)}`);
  const judged = answers.filter((a) => a.status !== 429).length;
  assert.ok(judged <= 10, `${judged} attempts were judged: ${JSON.stringify(counts)}`);
  const accepted = counts['200'] ?? 0;
  assert.ok(accepted <= 1);
  // A success was one of the first ten attempts counted: with it, at most nine failures were judged.
  if (accepted === 1) assert.ok((counts[`401 ${wrongCode}`] ?? 0) <= 9, JSON.stringify(counts));
}

function totpCode(secret: string, at: Date): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at.getTime() });
}

const signInRace: Race<{ email: string }> = {
  name: '150 sign-ins at once, 149 wrong and the right one last: ten judged, the account stays locked',
  setup: async (t, merchantId) => ({ email: (await signedInUser(t, merchantId, 'developer')).email }),
  fire: (t, { email }) => Promise.all(Array.from({ length: 150 }, (_, i) => signIn(t, email, i === 149 ? PASSWORD : WRONG))),
  invariant: async (t, { email }, answers) => {
    atMostTenJudged(answers, 'INVALID_CREDENTIALS');
    const after = await signIn(t, email);
    assert.equal(after.status, 429, 'the right password is refused afterwards: no success lifted the lock');
    assert.equal(after.body.code, 'ACCOUNT_LOCKED');
  },
};

const totpRace: Race<{ email: string; secret: string }> = {
  name: '100 two-factor codes at once with the right password, one code right: ten judged, the account stays locked',
  setup: async (t, merchantId, clock) => {
    const user = await signedInUser(t, merchantId, 'developer');
    const secret = (await user.call('POST', '/dashboard/api/two-factor/setup')).body.secret as string;
    const enabled = await user.call('POST', '/dashboard/api/two-factor/enable', { code: totpCode(secret, clock.now()) });
    assert.equal(enabled.status, 200);
    clock.advance(90_000);
    return { email: user.email, secret };
  },
  fire: (t, { email, secret }, clock) => {
    const right = totpCode(secret, clock.now());
    const wrong = (i: number) => {
      const code = String((Number(right) + 1 + i * 7919) % 1_000_000).padStart(6, '0');
      return code === right ? String((Number(right) + 500_000) % 1_000_000).padStart(6, '0') : code;
    };
    return Promise.all(Array.from({ length: 100 }, (_, i) => signIn(t, email, PASSWORD, i === 99 ? right : wrong(i))));
  },
  invariant: async (t, { email, secret }, answers, clock) => {
    atMostTenJudged(answers, 'INVALID_TWO_FACTOR_CODE');
    clock.advance(30_000);
    const after = await signIn(t, email, PASSWORD, totpCode(secret, clock.now()));
    assert.equal(after.status, 429, 'a fresh right code is refused afterwards');
    assert.equal(after.body.code, 'ACCOUNT_LOCKED');
  },
};

const unknownRace: Race<{ email: string }> = {
  name: '60 sign-ins at once at an unknown address: answered as a known one (ten judged, then locked)',
  setup: async () => ({ email: `nobody-${Math.random().toString(36).slice(2, 8)}@shop.example` }),
  fire: (t, { email }) => Promise.all(Array.from({ length: 60 }, () => signIn(t, email, WRONG))),
  invariant: async (t, { email }, answers) => {
    atMostTenJudged(answers, 'INVALID_CREDENTIALS');
    assert.equal(answers.filter((a) => a.status === 401).length, 9, "nine wrong, the tenth already locked");
    assert.equal((await signIn(t, email)).body.code, 'ACCOUNT_LOCKED');
  },
};

const removalRace: Race<{ owner: UserClient; developer: UserClient }> = {
  name: '20 keys made by a developer while an owner removes them: none of them works afterwards',
  setup: async (t, merchantId) => ({ owner: await signedInUser(t, merchantId, 'owner'), developer: await signedInUser(t, merchantId, 'developer') }),
  fire: (_t, { owner, developer }) => Promise.all([
    ...Array.from({ length: 20 }, () => developer.call('POST', '/dashboard/api/keys', {})),
    owner.call('DELETE', `/dashboard/api/users/${developer.id}`),
  ]),
  invariant: async (t, _state, answers) => {
    assert.equal(answers.at(-1)!.status, 204);
    const keys = answers.slice(0, -1).filter((a) => a.status === 201) as unknown as { body: { secretKey: string } }[];
    for (const a of answers.slice(0, -1)) assert.ok([201, 401].includes(a.status), JSON.stringify(a.body));
    for (const key of keys) assert.equal((await t.api(key.body.secretKey, 'GET', '/api/v1/customers')).status, 401, 'a removed maker’s key');
  },
};

const demotionRace: Race<{ owner: UserClient; developer: UserClient }> = {
  name: '20 keys made by a developer while an owner makes them analyst: none of them changes anything afterwards',
  setup: async (t, merchantId) => ({ owner: await signedInUser(t, merchantId, 'owner'), developer: await signedInUser(t, merchantId, 'developer') }),
  fire: (_t, { owner, developer }) => Promise.all([
    ...Array.from({ length: 20 }, () => developer.call('POST', '/dashboard/api/keys', {})),
    owner.call('PATCH', `/dashboard/api/users/${developer.id}`, { role: 'analyst' }),
  ]),
  invariant: async (t, _state, answers) => {
    assert.equal(answers.at(-1)!.status, 200);
    const keys = answers.slice(0, -1).filter((a) => a.status === 201) as unknown as { body: { secretKey: string } }[];
    for (const a of answers.slice(0, -1)) assert.ok([201, 403].includes(a.status), JSON.stringify(a.body));
    for (const key of keys) assert.equal((await t.api(key.body.secretKey, 'POST', '/api/v1/customers', { name: 'x' })).status, 403, 'an analyst’s key');
  },
};

const RACES = [signInRace, totpRace, unknownRace, removalRace, demotionRace] as Race<unknown>[];

eachDatabase('sign-in races', (dialect) => {
  const clock = new ManualClock(new Date('2027-05-03T09:00:00.000Z'));
  const { t, m } = withMerchantApp(dialect, { clock });
  for (const race of RACES) {
    it(race.name, async () => {
      const state = await race.setup(t, m.id, clock);
      const answers = await race.fire(t, state, clock);
      await race.invariant(t, state, answers, clock);
    });
  }
});
