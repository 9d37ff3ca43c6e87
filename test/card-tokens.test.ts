// The anonymous token endpoint cannot fill the disk: POST /acquirer/v1/tokens is bounded per client address
// (MOTU_TOKENS_PER_MINUTE; 429 RATE_LIMITED with Retry-After) and per open session (MOTU_TOKENS_PER_SESSION; unknown
// 404, closed 410, spent 429 TOO_MANY_ATTEMPTS), and the tokens never used are deleted with their cards once expired
// by the purge-card-tokens job, which leaves every used token, saved card and authorization alone.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Acquirers } from '../src/acquirer/acquirers.js';
import { parseConfig } from '../src/config.js';
import { scheduledJobs } from '../src/start/workers.js';
import { eachDatabase, ManualClock, type TestApp } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createCustomer } from './support/factories.js';
import { createSession, paidPayment, paySession, tokenize } from './support/payments.js';
import { saveCard, walletSession } from './support/wallet.js';

const CARD = { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' };

const count = async (t: TestApp, table: 'acquirer_tokens' | 'acquirer_cards') =>
  Number((await t.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

test('MOTU_TOKENS_PER_SESSION: three tokens per card attempt by default, 1 to 10000', () => {
  assert.equal(parseConfig({}).tokensPerSession, 30);
  assert.equal(parseConfig({ MOTU_MAX_CARD_ATTEMPTS: '4' }).tokensPerSession, 12);
  assert.equal(parseConfig({ MOTU_TOKENS_PER_SESSION: '5' }).tokensPerSession, 5);
  for (const bad of ['0', '10001', 'many', '-3']) assert.throws(() => parseConfig({ MOTU_TOKENS_PER_SESSION: bad }), /MOTU_TOKENS_PER_SESSION/);
});

eachDatabase('card tokens', (dialect) => {
  describe('bound per client address', () => {
    const { t, m } = withMerchantApp(dialect, { env: { MOTU_TOKENS_PER_MINUTE: '5' } });
    let session: string;
    before(async () => {
      session = (await createSession(t, m.testKey)).sessionId;
    });

    const tokenFrom = (remoteAddress: string) =>
      t.app.inject({ method: 'POST', url: '/acquirer/v1/tokens', payload: { ...CARD, session }, remoteAddress });

    test('beyond MOTU_TOKENS_PER_MINUTE from one address: 429 RATE_LIMITED with Retry-After, nothing written; another address is not affected', async () => {
      for (let i = 0; i < 5; i++) assert.equal((await tokenFrom('198.51.100.7')).statusCode, 201);
      const rows = await count(t, 'acquirer_tokens');
      for (let i = 0; i < 3; i++) {
        const res = await tokenFrom('198.51.100.7');
        assert.equal(res.statusCode, 429, res.body);
        const body = JSON.parse(res.body);
        assert.equal(body.code, 'RATE_LIMITED');
        assert.equal(typeof body.message, 'string');
        assert.ok(Number(res.headers['retry-after']) >= 1 && Number(res.headers['retry-after']) <= 60, String(res.headers['retry-after']));
        assert.equal(body.details.retryAfterSeconds, Number(res.headers['retry-after']));
      }
      assert.equal(await count(t, 'acquirer_tokens'), rows);
      assert.equal(await count(t, 'acquirer_cards'), rows);
      assert.equal((await tokenFrom('203.0.113.9')).statusCode, 201);
    });
  });

  describe('bound per session', () => {
    const BOUND = 4;
    const clock = new ManualClock(new Date('2026-05-01T08:00:00Z'));
    const { t, m } = withMerchantApp(dialect, { clock, env: { MOTU_TOKENS_PER_SESSION: String(BOUND), MOTU_TOKENS_PER_MINUTE: '10000' } });

    const token = (session: string | undefined, mode = 'test', card: Partial<typeof CARD> = {}) =>
      t.api(undefined, 'POST', '/acquirer/v1/tokens', { ...CARD, ...card, mode, ...(session === undefined ? {} : { session }) });
    const rows = async () => [await count(t, 'acquirer_tokens'), await count(t, 'acquirer_cards')];
    const issued = async (sessionId: string) =>
      (await t.db.kysely.selectFrom('payment_sessions').select('tokens_issued').where('id', '=', sessionId).executeTakeFirstOrThrow()).tokens_issued;

    test(`beyond ${BOUND} tokens a session is refused: 429 TOO_MANY_ATTEMPTS without Retry-After, nothing written; another session is not affected`, async () => {
      const { sessionId } = await createSession(t, m.testKey);
      for (let i = 0; i < BOUND; i++) assert.equal((await token(sessionId)).status, 201);
      const before = await rows();
      for (let i = 0; i < 3; i++) {
        const res = await token(sessionId);
        assert.equal(res.status, 429, JSON.stringify(res.body));
        assert.equal(res.body.code, 'TOO_MANY_ATTEMPTS');
        assert.equal(typeof res.body.message, 'string');
        assert.equal(res.body.details.maxTokens, BOUND);
        assert.equal(res.headers['retry-after'], undefined, 'the budget of a session never refills');
      }
      assert.deepEqual(await rows(), before);
      assert.equal(await issued(sessionId), BOUND);
      // The payer can still pay with a token already made; another session, and a wallet session, get theirs.
      const other = await createSession(t, m.testKey);
      assert.equal((await token(other.sessionId)).status, 201);
      const wallet = await walletSession(t, m.testKey, await createCustomer(t, m.testKey));
      assert.equal((await token(wallet.sessionId)).status, 201);
    });

    test('an unknown session, none, or a session of the other mode: refused, nothing written', async () => {
      const before = await rows();
      const unknown = await token('ses_doesnotexist0000000000');
      assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
      assert.equal(unknown.body.code, 'NOT_FOUND');
      assert.equal(typeof unknown.body.message, 'string');
      const none = await token(undefined);
      assert.equal(none.status, 400);
      assert.equal(none.body.code, 'VALIDATION_ERROR');
      const live = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
        order: { reference: 'LIVE-1', amount: 1_000, currency: 'EUR' }, email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/n',
      });
      assert.equal(live.status, 201, JSON.stringify(live.body));
      assert.equal((await token(live.body.sessionId, 'test')).status, 404, 'a live session does not fund test tokens');
      assert.deepEqual(await rows(), before);
    });

    test('an expired, a paid or a cancelled session: 410 SESSION_EXPIRED, nothing written', async () => {
      const expiring = await createSession(t, m.testKey, { expiresIn: 60 });
      const paid = await createSession(t, m.testKey);
      await paySession(t, paid.sessionId);
      const cancelled = await createSession(t, m.testKey, { captureMode: 'MANUAL' });
      assert.equal((await t.api(m.testKey, 'POST', `/api/v1/payments/${cancelled.paymentId}/cancel`, {})).status, 200);
      assert.equal((await token(expiring.sessionId)).status, 201);
      clock.advance(61_000);
      const before = await rows();
      for (const sessionId of [expiring.sessionId, paid.sessionId, cancelled.sessionId]) {
        const res = await token(sessionId);
        assert.equal(res.status, 410, `${sessionId}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'SESSION_EXPIRED');
      }
      assert.deepEqual(await rows(), before);
    });

    test('a card number the acquirer refuses spends a token all the same; a spent session refuses it as spent, not as invalid', async () => {
      const { sessionId } = await createSession(t, m.testKey);
      const before = await rows();
      const invalid = await token(sessionId, 'test', { number: '4242424242424241' });
      assert.equal(invalid.status, 400, JSON.stringify(invalid.body));
      assert.equal(invalid.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(await rows(), before, 'no card kept');
      assert.equal(await issued(sessionId), 1, "a card tester's try counts");
      for (let i = 1; i < BOUND; i++) assert.equal((await token(sessionId)).status, 201);
      const spent = await token(sessionId, 'test', { number: '4242424242424241' });
      assert.equal(spent.status, 429, JSON.stringify(spent.body));
      assert.equal(spent.body.code, 'TOO_MANY_ATTEMPTS');
      assert.equal(await issued(sessionId), BOUND);
    });

    test(`20 requests of one session at once: exactly ${BOUND} tokens, the others 429`, async () => {
      const { sessionId } = await createSession(t, m.testKey);
      const before = await rows();
      const answers = await Promise.all(Array.from({ length: 20 }, () => token(sessionId)));
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [...Array(BOUND).fill(201), ...Array(20 - BOUND).fill(429)], JSON.stringify(answers.map((a) => a.body)));
      assert.deepEqual(await rows(), [before[0]! + BOUND, before[1]! + BOUND]);
      assert.equal(await issued(sessionId), BOUND);
    });
  });

  describe('purge of unused tokens', () => {
    const clock = new ManualClock(new Date('2026-05-01T08:00:00Z'));
    const { t, m } = withMerchantApp(dialect, { clock });

    const purgeJob = () => {
      const job = scheduledJobs(t.db, clock, t.config).find((j) => j.name === 'purge-card-tokens');
      assert.ok(job, 'the worker runs purge-card-tokens');
      return job;
    };

    test('deletes only the tokens never used past their lifetime, with their cards; paid payments and saved cards keep theirs', async () => {
      const paid = await paidPayment(t, m.testKey);
      const customer = await createCustomer(t, m.testKey);
      const saved = await saveCard(t, m.testKey, customer);
      const { sessionId } = await createSession(t, m.testKey);
      const abandoned = await Promise.all(Array.from({ length: 7 }, () => tokenize(t, sessionId, '4242424242424242')));
      clock.advance(20 * 60_000);
      const young = await tokenize(t, sessionId, '5555555555554444');
      const used = await t.db.kysely.selectFrom('acquirer_tokens').select(['id', 'card_id']).where('used_at', 'is not', null).execute();
      assert.equal(used.length, 2); // the payment's and the saved card's
      const tokensBefore = await count(t, 'acquirer_tokens');
      const cardsBefore = await count(t, 'acquirer_cards');

      // Within their 30 minutes nothing goes.
      assert.equal(await purgeJob().run(clock.now()), 0);
      assert.equal(await count(t, 'acquirer_tokens'), tokensBefore);

      clock.advance(11 * 60_000); // the 7 abandoned tokens are now 31 minutes old, the young one 11
      assert.equal(await purgeJob().run(clock.now()), 7);
      const left = await t.db.kysely.selectFrom('acquirer_tokens').select('id').execute();
      assert.deepEqual(left.map((r) => r.id).sort(), [...used.map((u) => u.id), young].sort());
      for (const id of abandoned) assert.ok(!left.some((r) => r.id === id));
      assert.equal(await count(t, 'acquirer_cards'), cardsBefore - 7);
      const cards = await t.db.kysely.selectFrom('acquirer_cards').select('id').execute();
      for (const u of used) assert.ok(cards.some((c) => c.id === u.card_id), 'a used token keeps its card');

      // What was paid and saved still works: the payment reads, the saved card is charged.
      assert.equal((await t.api(m.testKey, 'GET', `/api/v1/payments/${paid}`)).status, 200);
      const charge = await t.api(m.testKey, 'POST', '/api/v1/payments', {
        paymentMethodId: saved.result.paymentMethodId, order: { reference: 'AFTER-PURGE', amount: 500, currency: 'EUR' }, notificationUrl: 'https://shop.example/n',
      });
      assert.equal(charge.status, 201, JSON.stringify(charge.body));
      assert.equal(charge.body.status, 'captured');
      // A second run finds nothing more (restart-safe: the job is its own state).
      assert.equal(await purgeJob().run(clock.now()), 0);
    });

    test('works in batches until none is left', async () => {
      const { sessionId } = await createSession(t, m.testKey);
      await Promise.all(Array.from({ length: 5 }, () => tokenize(t, sessionId, '4242424242424242')));
      clock.advance(31 * 60_000);
      const acquirers = new Acquirers(t.db, clock, { publicUrl: t.config.publicUrl, settlementDelaySeconds: t.config.testSettlementDelaySeconds });
      const unusedBefore = await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('used_at', 'is', null).execute();
      assert.ok(unusedBefore.length >= 5);
      assert.equal(await acquirers.simulator.purgeUnusedTokens(clock.now(), 2), unusedBefore.length);
      assert.equal((await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('used_at', 'is', null).execute()).length, 0);
    });
  });
});
