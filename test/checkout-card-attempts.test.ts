// Card testing: a payment session sends at most MOTU_MAX_CARD_ATTEMPTS cards to the acquirer, through the hosted
// page's pay call and the card component's submit alike, also when the requests arrive together.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../src/config.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, tokenize } from './support/payments.js';
import { CARDS } from './support/cards.js';
import { paymentEvents } from './support/events.js';

const MAX = 3;

test('MOTU_MAX_CARD_ATTEMPTS: 10 by default, 1 to 1000', () => {
  assert.equal(parseConfig({}).maxCardAttempts, 10);
  assert.equal(parseConfig({ MOTU_MAX_CARD_ATTEMPTS: '4' }).maxCardAttempts, 4);
  assert.throws(() => parseConfig({ MOTU_MAX_CARD_ATTEMPTS: '0' }), /MOTU_MAX_CARD_ATTEMPTS/);
  assert.throws(() => parseConfig({ MOTU_MAX_CARD_ATTEMPTS: 'ten' }), /MOTU_MAX_CARD_ATTEMPTS/);
});

eachDatabase('card attempts per payment session', (dialect) => {
  const { t, m } = withMerchantApp(dialect, { env: { MOTU_MAX_CARD_ATTEMPTS: String(MAX), MOTU_TOKENS_PER_SESSION: '50' } });

  const pay = async (sessionId: string, card: string) =>
    t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token: await tokenize(t, sessionId, card) });
  /** What the acquirer was asked for this payment (the simulator's own record). */
  const authorizations = async (paymentId: string) =>
    (await t.db.kysely.selectFrom('acquirer_authorizations').select('id').where('merchant_reference', '=', paymentId).execute()).length;
  const page = async (url: string) => t.api(undefined, 'GET', url);

  test(`the ${MAX}th refused card closes the session to cards: 429 TOO_MANY_ATTEMPTS after, nothing reaches the acquirer, the page says why`, async () => {
    const { sessionId, paymentId } = await createSession(t, m.testKey);
    const seen = async () => {
      const res = await t.api(m.testKey, 'GET', `/api/v1/payments/sessions/${sessionId}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return [res.body.cardAttempts, res.body.cardAttemptsLeft];
    };
    assert.deepEqual(await seen(), [0, MAX], 'the merchant sees what is left');
    for (let i = 1; i <= MAX; i++) {
      const res = await pay(sessionId, CARDS.declined);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(await seen(), [i, MAX - i]);
      assert.equal(res.body.url, `/checkout/failed?sessionId=${sessionId}`);
      const failed = await page(res.body.url);
      assert.equal(failed.status, 200);
      if (i < MAX) {
        assert.match(failed.body, new RegExp(`href="/checkout/${sessionId}"`), 'a retry is offered while attempts remain');
        assert.doesNotMatch(failed.body, /attempts-exhausted/);
      } else {
        assert.doesNotMatch(failed.body, new RegExp(`href="/checkout/${sessionId}"`), 'no retry once the attempts are spent');
        assert.match(failed.body, /id="attempts-exhausted">Trop de tentatives/);
        assert.match(failed.body, /https:\/\/shop\.example\/return\?/, 'the way back to the merchant stays');
      }
    }
    const events = await paymentEvents(t, paymentId);

    // Even a good card is not sent now.
    const refused = await pay(sessionId, CARDS.visa);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, 'TOO_MANY_ATTEMPTS');
    assert.equal(refused.body.details.maxAttempts, MAX);
    assert.equal(typeof refused.body.message, 'string');
    assert.equal(await authorizations(paymentId), MAX);
    const payment = await t.api(m.testKey, 'GET', `/api/v1/payments/${paymentId}`);
    assert.equal(payment.body.status, 'failed');
    assert.equal(payment.body.refusalCode, 'card_declined');
    assert.deepEqual(await paymentEvents(t, paymentId), events, 'the refused attempt wrote no event');
    assert.deepEqual(events.map((e) => e.type), Array(MAX).fill('payment.failed'));

    // The page and the card component both know the session is spent.
    const checkout = await page(`/checkout/${sessionId}`);
    assert.equal(checkout.status, 302);
    assert.equal(checkout.headers.location, `/checkout/failed?sessionId=${sessionId}`);
    const sdk = await page(`/api/v1/sdk/sessions/${sessionId}`);
    assert.equal(sdk.status, 429);
    assert.equal(sdk.body.code, 'TOO_MANY_ATTEMPTS');
    const submit = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${sessionId}/submit`, { token: await tokenize(t, sessionId, CARDS.visa) });
    assert.equal(submit.status, 429);
    assert.equal(submit.body.code, 'TOO_MANY_ATTEMPTS');
    assert.equal(await authorizations(paymentId), MAX);
    assert.deepEqual(await seen(), [MAX, 0], 'refused calls take no attempt');
  });

  test('a good card within the limit pays as before, and the hosted page and the component share the count', async () => {
    const { sessionId, paymentId } = await createSession(t, m.testKey);
    assert.equal((await pay(sessionId, CARDS.declined)).status, 200);
    const viaSdk = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${sessionId}/submit`, { token: await tokenize(t, sessionId, CARDS.declined) });
    assert.equal(viaSdk.status, 200);
    assert.equal(viaSdk.body.code, 'PAIEMENT_REFUSE');
    const paid = await pay(sessionId, CARDS.visa);
    assert.equal(paid.status, 200);
    assert.notEqual(paid.body.url, `/checkout/failed?sessionId=${sessionId}`);
    const payment = await t.api(m.testKey, 'GET', `/api/v1/payments/${paymentId}`);
    assert.equal(payment.body.status, 'captured');
    assert.equal(await authorizations(paymentId), 3);
  });

  test(`20 cards sent together: ${MAX} reach the acquirer, the others are 429`, async () => {
    const { sessionId, paymentId } = await createSession(t, m.testKey);
    const tokens = await Promise.all(Array.from({ length: 20 }, () => tokenize(t, sessionId, CARDS.declined)));
    const answers = await Promise.all(tokens.map((token) => t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token })));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [...Array(MAX).fill(200), ...Array(20 - MAX).fill(429)], JSON.stringify(answers.map((a) => a.body)));
    assert.ok(answers.filter((a) => a.status === 429).every((a) => a.body.code === 'TOO_MANY_ATTEMPTS'));
    assert.equal(await authorizations(paymentId), MAX);
    const session = await t.db.kysely.selectFrom('payment_sessions').select('card_attempts').where('id', '=', sessionId).executeTakeFirstOrThrow();
    assert.equal(session.card_attempts, MAX);
  });

  test('an expired session still answers SESSION_EXPIRED, not TOO_MANY_ATTEMPTS', async () => {
    const { sessionId } = await createSession(t, m.testKey);
    // A token made while it was open (its fields get none once it has expired).
    const token = await tokenize(t, sessionId, CARDS.visa);
    await t.db.kysely.updateTable('payment_sessions').set({ status: 'expired' }).where('id', '=', sessionId).execute();
    const res = await t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token });
    assert.equal(res.status, 410);
    assert.equal(res.body.code, 'SESSION_EXPIRED');
  });
});
