// The anonymous token endpoint cannot fill the disk: POST /acquirer/v1/tokens is bounded per client address
// (MOTU_TOKENS_PER_MINUTE; 429 RATE_LIMITED with Retry-After) and per session (each call names the payment or wallet
// session its fields serve and spends one of its MOTU_TOKENS_PER_SESSION tokens), and the tokens never used are
// deleted with their cards once expired by the purge-card-tokens job, which leaves every used token, saved card and
// authorization alone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Acquirers } from '../src/acquirer/acquirers.js';
import { scheduledJobs } from '../src/start/workers.js';
import { parseConfig } from '../src/config.js';
import { eachDatabase, ManualClock, startApp, type TestApp } from './support/harness.js';
import { createMerchant, type MerchantFixture } from './support/factories.js';
import { createSession, paidPayment } from './support/payments.js';
import { cardToken, createCustomer, saveCard, walletSession } from './support/wallet.js';

const CARD = { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' };

const count = async (t: TestApp, table: 'acquirer_tokens' | 'acquirer_cards') =>
  Number((await t.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

test('MOTU_TOKENS_PER_SESSION: 50 by default, 1 to 10000', () => {
  assert.equal(parseConfig({}).tokensPerSession, 50);
  assert.equal(parseConfig({ MOTU_TOKENS_PER_SESSION: '7' }).tokensPerSession, 7);
  for (const bad of ['0', '10001', 'many', '2.5']) assert.throws(() => parseConfig({ MOTU_TOKENS_PER_SESSION: bad }), /MOTU_TOKENS_PER_SESSION/);
});

eachDatabase('card tokens', (dialect) => {
  describe('bound per client address', () => {
    let t: TestApp;
    let session: string;
    before(async () => {
      t = await startApp(dialect, { env: { MOTU_TOKENS_PER_MINUTE: '5' } });
      session = (await createSession(t, (await createMerchant(t)).testKey)).sessionId;
    });
    after(async () => t.close());

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

  describe('purge of unused tokens', () => {
    let t: TestApp;
    let m: MerchantFixture;
    const clock = new ManualClock(new Date('2026-05-01T08:00:00Z'));
    before(async () => {
      t = await startApp(dialect, { clock });
      m = await createMerchant(t);
    });
    after(async () => t.close());

    const purgeJob = () => {
      const job = scheduledJobs(t.db, clock, t.config).find((j) => j.name === 'purge-card-tokens');
      assert.ok(job, 'the worker runs purge-card-tokens');
      return job;
    };

    test('deletes only the tokens never used past their lifetime, with their cards; paid payments and saved cards keep theirs', async () => {
      const paid = await paidPayment(t, m.testKey);
      const customer = await createCustomer(t, m.testKey);
      const saved = await saveCard(t, m.testKey, customer);
      const open = (await createSession(t, m.testKey)).sessionId;
      const abandoned = await Promise.all(Array.from({ length: 7 }, () => cardToken(t, open, '4242424242424242')));
      clock.advance(20 * 60_000);
      const young = await cardToken(t, open, '5555555555554444');
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
      const open = (await createSession(t, m.testKey)).sessionId;
      await Promise.all(Array.from({ length: 5 }, () => cardToken(t, open, '4242424242424242')));
      clock.advance(31 * 60_000);
      const acquirers = new Acquirers(t.db, clock, { publicUrl: t.config.publicUrl, settlementDelaySeconds: t.config.testSettlementDelaySeconds });
      const unusedBefore = await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('used_at', 'is', null).execute();
      assert.ok(unusedBefore.length >= 5);
      assert.equal(await acquirers.simulator.purgeUnusedTokens(clock.now(), 2), unusedBefore.length);
      assert.equal((await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('used_at', 'is', null).execute()).length, 0);
    });
  });

  describe('bound per session', () => {
    let t: TestApp;
    let m: MerchantFixture;
    const clock = new ManualClock(new Date('2026-05-01T08:00:00Z'));
    before(async () => {
      t = await startApp(dialect, { clock, env: { MOTU_TOKENS_PER_SESSION: '4' } });
      m = await createMerchant(t);
    });
    after(async () => t.close());

    const tokenFor = (session: string) => t.api(undefined, 'POST', '/acquirer/v1/tokens', { ...CARD, session });

    test('MOTU_TOKENS_PER_SESSION tokens per payment or wallet session, then 429 TOO_MANY_ATTEMPTS and nothing written; another session is not affected', async () => {
      const payment = (await createSession(t, m.testKey)).sessionId;
      const wallet = (await walletSession(t, m.testKey, await createCustomer(t, m.testKey))).sessionId;
      for (const session of [payment, wallet]) {
        for (let i = 0; i < 4; i++) assert.equal((await tokenFor(session)).status, 201);
        const rows = await count(t, 'acquirer_tokens');
        const refused = await tokenFor(session);
        assert.equal(refused.status, 429, JSON.stringify(refused.body));
        assert.equal(refused.body.code, 'TOO_MANY_ATTEMPTS');
        assert.equal(refused.body.details.maxTokens, 4);
        assert.equal(await count(t, 'acquirer_tokens'), rows);
        assert.equal(await count(t, 'acquirer_cards'), rows);
      }
      // The spent session's customer can still pay: its tokens were made, and another session has its own budget.
      const other = (await createSession(t, m.testKey)).sessionId;
      assert.equal((await tokenFor(other)).status, 201);
    });

    test('20 concurrent calls for one session make exactly MOTU_TOKENS_PER_SESSION tokens', async () => {
      const session = (await createSession(t, m.testKey)).sessionId;
      const rows = await count(t, 'acquirer_tokens');
      const answers = await Promise.all(Array.from({ length: 20 }, () => tokenFor(session)));
      assert.deepEqual(answers.map((a) => a.status).sort(), [...Array(4).fill(201), ...Array(16).fill(429)]);
      assert.equal(await count(t, 'acquirer_tokens'), rows + 4);
    });

    test('an unknown session and a session no longer open are refused, nothing written', async () => {
      const rows = await count(t, 'acquirer_tokens');
      const unknown = await tokenFor('ses_0000000000000000000000');
      assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
      assert.equal(unknown.body.code, 'NOT_FOUND');
      const missing = await t.api(undefined, 'POST', '/acquirer/v1/tokens', CARD);
      assert.equal(missing.status, 400);
      assert.equal(missing.body.code, 'VALIDATION_ERROR');
      assert.equal(missing.body.details.field, 'session');

      const expiring = (await createSession(t, m.testKey, { expiresIn: 60 })).sessionId;
      clock.advance(61_000);
      const expired = await tokenFor(expiring);
      assert.equal(expired.status, 410, JSON.stringify(expired.body));
      assert.equal(expired.body.code, 'SESSION_EXPIRED');

      const cancelled = await createSession(t, m.testKey);
      assert.equal((await t.api(m.testKey, 'POST', `/api/v1/payments/${cancelled.paymentId}/cancel`, {})).status, 200);
      assert.equal((await tokenFor(cancelled.sessionId)).status, 410);
      assert.equal(await count(t, 'acquirer_tokens'), rows);
    });
  });
});
