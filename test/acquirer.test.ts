// The acquirer's browser-facing endpoints: tokenization, the card-data boundary, live mode without a connector.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { buildServices } from '../src/app.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { CARDS } from './support/cards.js';
import { createSession, paySession } from './support/payments.js';

eachDatabase('acquirer secure fields and tokens', (dialect) => {
  const { t, m } = withMerchantApp(dialect);
  let sessionId: string;
  before(async () => {
    // The fields are mounted for a session: every token request names it.
    sessionId = (await createSession(t, m.testKey)).sessionId;
  });

  const card = (number: string, extra: Record<string, unknown> = {}) =>
    t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number, expMonth: 12, expYear: 2034, cvc: '123', session: sessionId, ...extra });

  it('tokenizes a card and answers only a one-time token with brand, network and last four digits', async () => {
    const res = await card('4242424242424242');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.token, /^tok_[0-9A-Za-z]{22}$/);
    assert.equal(res.body.brand, 'VISA');
    assert.equal(res.body.network, 'VISA');
    assert.equal(res.body.last4, '4242');
    assert.equal(JSON.stringify(res.body).includes('424242424242'), false);
  });

  it('authorizes once per idempotency reference, also for calls made at the same time', async () => {
    const acquirer = buildServices(t.config, t.db, t.clock).acquirers.forMode('test');
    const token = (await card('4242424242424242')).body.token as string;
    const ask = (source: { token: string } | { cardRef: string }, reference: string | undefined, amount = 1500) =>
      acquirer.authorize({ mode: 'test', source, amount, currency: 'EUR', merchantReference: 'pay_ref_test', reference, capture: true });
    const first = await ask({ token }, 'pay_ref_1');
    assert.equal(first.status, 'authorized');
    const { authorizationId, card: info } = first as Extract<typeof first, { status: 'authorized' }>;
    // The token is spent: without the reference the same call is refused; with it, the first answer comes back.
    assert.equal((await ask({ token }, undefined)).status, 'error');
    assert.deepEqual(await ask({ token }, 'pay_ref_1', 999_999), first, 'the first authorization, not a new one for another amount');
    const ours = () => t.db.kysely.selectFrom('acquirer_authorizations').select(['id', 'reference', 'amount', 'captured_amount'])
      .where('merchant_reference', '=', 'pay_ref_test').execute();
    assert.deepEqual(await ours(), [{ id: authorizationId, reference: 'pay_ref_1', amount: 1500, captured_amount: 1500 }]);

    // Ten calls at once on a saved card (not spent by use): one authorization, the same answer to all.
    const saving = await acquirer.verify({ mode: 'test', token: (await card('5555555555554444')).body.token as string });
    assert.equal(saving.status, 'verified');
    const cardRef = (saving as Extract<typeof saving, { status: 'verified' }>).cardRef;
    const answers = await Promise.all(Array.from({ length: 10 }, () => ask({ cardRef }, 'pay_ref_2')));
    const ids = new Set(answers.map((a) => (a.status === 'authorized' ? a.authorizationId : a.status)));
    assert.equal(ids.size, 1, JSON.stringify(answers));
    assert.equal(answers[0]!.status, 'authorized');
    assert.equal((await ours()).filter((a) => a.reference === 'pay_ref_2').length, 1);
    // Without a reference every call is an authorization of its own (the hosted page's attempts).
    await ask({ cardRef }, undefined);
    await ask({ cardRef }, undefined);
    assert.equal((await ours()).length, 4);
    assert.equal(info.last4, '4242');
  });

  it('chooses the CB network for co-badged cards', async () => {
    const visa = await card('4970100000000006');
    assert.deepEqual([visa.body.brand, visa.body.network, visa.body.networks], ['VISA', 'CB', ['CB', 'VISA']]);
    const mc = await card('5131000000000001');
    assert.deepEqual([mc.body.brand, mc.body.network], ['MASTERCARD', 'CB']);
    const plain = await card('5555555555554444');
    assert.deepEqual([plain.body.brand, plain.body.network], ['MASTERCARD', 'MASTERCARD']);
  });

  it('refuses a Luhn-invalid number, a past expiry and a malformed security code', async () => {
    const luhn = await card('4242424242424241');
    assert.equal(luhn.status, 400);
    assert.equal(luhn.body.details.field, 'number');
    assert.equal(JSON.stringify(luhn.body).includes('4242424242424241'), false);
    const past = await card('4242424242424242', { expMonth: 1, expYear: 2020 });
    assert.equal(past.status, 400);
    assert.equal(past.body.details.field, 'expYear');
    const cvc = await card('4242424242424242', { cvc: '12a' });
    assert.equal(cvc.status, 400);
  });

  it('keeps no card number and no security code in any table', async () => {
    await card('4000000000003220', { cvc: '987' });
    const tables = ['acquirer_cards', 'acquirer_tokens', 'acquirer_authorizations', 'settings'];
    for (const table of tables) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(t.db.kysely);
      const text = JSON.stringify(rows.rows);
      assert.equal(text.includes('4000000000003220'), false, table);
      assert.equal(text.includes('000000000000'), false, table);
    }
    const cards = await t.db.kysely.selectFrom('acquirer_cards').select(['behaviour', 'last4']).where('last4', '=', '3220').execute();
    assert.deepEqual(cards, [{ behaviour: 'challenge', last4: '3220' }]);
  });

  it("gives a payment's rows time-ordered ids, and keeps random those that open something: the session, the card token, a challenge's page", async () => {
    // An id's 22 digits as a number; a time-ordered one's leading 48 bits are its milliseconds since 2020-01-01.
    const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const madeAt = (id: string) => Number([...id.slice(-22)].reduce((n, c) => n * 62n + BigInt(ALPHABET.indexOf(c)), 0n) / 2n ** 80n) + Date.UTC(2020, 0, 1);
    const from = Date.now();
    const made = await createSession(t, m.testKey, { captureMode: 'MANUAL' });
    const token = (await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123', session: made.sessionId })).body.token as string;
    assert.equal((await t.api(undefined, 'POST', `/checkout/${made.sessionId}/pay`, { token })).status, 200);
    assert.equal((await t.api(m.testKey, 'POST', `/api/v1/payments/${made.paymentId}/capture`, {})).status, 200);
    const refund = await t.api(m.testKey, 'POST', `/api/v1/payments/${made.paymentId}/refund`, { amountCents: 300 });
    assert.ok(refund.status < 300, JSON.stringify(refund.body));
    const to = Date.now();
    const k = t.db.kysely;
    const events = await k.selectFrom('webhook_events').select('id').where('payment_id', '=', made.paymentId).execute();
    const deliveries = await k.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', events.map((e) => e.id)).execute();
    const authorization = await k.selectFrom('acquirer_authorizations').select(['id', 'card_id']).where('merchant_reference', '=', made.paymentId).executeTakeFirstOrThrow();
    const refunds = await k.selectFrom('refunds').select('id').where('payment_id', '=', made.paymentId).execute();
    assert.ok(events.length >= 2 && deliveries.length >= 2 && refunds.length === 1);
    const ordered = [made.paymentId, ...events.map((e) => e.id), ...deliveries.map((d) => d.id), authorization.id, authorization.card_id, refunds[0]!.id];
    for (const id of ordered) {
      assert.match(id, /^[a-z]+_[0-9A-Za-z]{22}$/);
      assert.ok(madeAt(id) >= from && madeAt(id) <= to, `${id} tells when it was made`);
    }
    // A challenge's authorization: its id is the simulated bank page's address, a capability of its own.
    const challenged = await createSession(t, m.testKey);
    await paySession(t, challenged.sessionId, CARDS.challenge);
    const challenge = await k.selectFrom('acquirer_authorizations').select(['id', 'status']).where('merchant_reference', '=', challenged.paymentId).executeTakeFirstOrThrow();
    assert.equal(challenge.status, 'challenge');
    // 128 random bits: read as a time, a date anywhere in some nine thousand years, not within the test's seconds.
    for (const id of [made.sessionId, token, challenged.sessionId, challenge.id]) {
      assert.match(id, /^[a-z]+_[0-9A-Za-z]{22}$/);
      assert.ok(madeAt(id) < from - 86_400_000 || madeAt(id) > to + 86_400_000, `${id} is random`);
    }
  });

  it('refuses live mode without a connector: 503 ACQUIRER_NOT_CONFIGURED', async () => {
    const res = await card('4242424242424242', { mode: 'live' });
    assert.equal(res.status, 503);
    assert.equal(res.body.code, 'ACQUIRER_NOT_CONFIGURED');
    assert.match(res.body.message, /connector/);
  });

  it('serves the three fields with their accessible names and a strict policy', async () => {
    for (const [field, lang, name] of [['number', 'en', 'Card number'], ['expiry', 'fr', "Date d&#39;expiration"], ['cvc', 'fr', 'Cryptogramme']]) {
      const res = await t.app.inject({ method: 'GET', url: `/acquirer/v1/fields/${field}?lang=${lang}&channel=abcdefgh12` });
      assert.equal(res.statusCode, 200);
      assert.ok(res.body.includes(`aria-label="${name}"`), res.body);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'/);
      assert.doesNotMatch(csp, /unsafe-inline/);
    }
  });
});
