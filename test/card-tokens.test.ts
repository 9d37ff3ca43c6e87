// The anonymous token endpoint cannot fill the disk: POST /acquirer/v1/tokens is bounded per client address
// (MOTU_TOKENS_PER_MINUTE; 429 RATE_LIMITED with Retry-After), and the tokens never used are deleted with their cards
// once expired by the purge-card-tokens job, which leaves every used token, saved card and authorization alone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Acquirers } from '../src/acquirer/acquirers.js';
import { scheduledJobs } from '../src/start/workers.js';
import { eachDatabase, ManualClock, startApp, type TestApp } from './support/harness.js';
import { createMerchant, type MerchantFixture, createCustomer } from './support/factories.js';
import { paidPayment } from './support/payments.js';
import { cardToken, saveCard } from './support/wallet.js';

const CARD = { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' };

const count = async (t: TestApp, table: 'acquirer_tokens' | 'acquirer_cards') =>
  Number((await t.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

eachDatabase('card tokens', (dialect) => {
  describe('bound per client address', () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(dialect, { env: { MOTU_TOKENS_PER_MINUTE: '5' } });
    });
    after(async () => t.close());

    const tokenFrom = (remoteAddress: string) =>
      t.app.inject({ method: 'POST', url: '/acquirer/v1/tokens', payload: CARD, remoteAddress });

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
      const abandoned = await Promise.all(Array.from({ length: 7 }, () => cardToken(t, '4242424242424242')));
      clock.advance(20 * 60_000);
      const young = await cardToken(t, '5555555555554444');
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
      await Promise.all(Array.from({ length: 5 }, () => cardToken(t, '4242424242424242')));
      clock.advance(31 * 60_000);
      const acquirers = new Acquirers(t.db, clock, { publicUrl: t.config.publicUrl, settlementDelaySeconds: t.config.testSettlementDelaySeconds });
      const unusedBefore = await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('used_at', 'is', null).execute();
      assert.ok(unusedBefore.length >= 5);
      assert.equal(await acquirers.simulator.purgeUnusedTokens(clock.now(), 2), unusedBefore.length);
      assert.equal((await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('used_at', 'is', null).execute()).length, 0);
    });
  });
});
