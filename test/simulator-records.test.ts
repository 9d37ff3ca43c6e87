// The simulator's records are rows of Motu's own database: the checkout's card attempt, the simulator's authorization
// and Motu's record of its answer commit together or not at all, and so do a capture's claim, the simulator's capture
// and Motu's record of it. The database itself is made to refuse Motu's record (a trigger, dropped after): what a
// failing disk or a stopped process would leave, nothing is left of the step, and the same request succeeds at once.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import type { Dialect } from '../src/db/adapter.js';
import type { Database } from '../src/db/database.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paidPayment, tokenize } from './support/payments.js';
import { paymentEvents } from './support/events.js';
import { onlyOn } from './support/profile.js';

const SIMULATOR = onlyOn('simulator', "the simulator's rows are read");

/** Makes the database refuse to move payment `paymentId` to `status` until the returned function drops the trigger. */
async function refuseStatus(db: Database, dialect: Dialect, paymentId: string, status: string): Promise<() => Promise<void>> {
  const name = `refuse_${status}_${paymentId.replace(/[^a-zA-Z0-9]/g, '_')}`.toLowerCase();
  if (dialect === 'sqlite') {
    await sql.raw(`create trigger ${name} before update of status on payments
      when new.id = '${paymentId}' and new.status = '${status}' begin select raise(abort, 'refused by the test'); end`).execute(db.kysely);
    return async () => void await sql.raw(`drop trigger ${name}`).execute(db.kysely);
  }
  await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`).execute(db.kysely);
  await sql.raw(`create trigger ${name} before update on payments for each row
    when (new.id = '${paymentId}' and new.status = '${status}') execute function ${name}()`).execute(db.kysely);
  return async () => {
    await sql.raw(`drop trigger ${name} on payments`).execute(db.kysely);
    await sql.raw(`drop function ${name}()`).execute(db.kysely);
  };
}

eachDatabase('the simulator writes with Motu, all or nothing', (dialect) => {
  const { t, m } = withMerchantApp(dialect);
  const authorizations = (paymentId: string) => t.db.kysely.selectFrom('acquirer_authorizations')
    .select(['status', 'amount', 'captured_amount']).where('merchant_reference', '=', paymentId).execute();
  const cardAttempts = async (sessionId: string) => {
    const res = await t.api(m.key, 'GET', `/api/v1/payments/sessions/${sessionId}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.cardAttempts as number;
  };
  const payment = async (id: string) => (await t.api(m.key, 'GET', `/api/v1/payments/${id}`)).body;

  it('a pay call whose record fails leaves no authorization, no attempt spent and the token usable', { skip: SIMULATOR }, async () => {
    const { sessionId, paymentId } = await createSession(t, m.key, { captureMode: 'MANUAL', amount: 4_200 });
    const token = await tokenize(t, sessionId);
    const allow = await refuseStatus(t.db, dialect, paymentId, 'transit');
    try {
      const failed = await t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token });
      assert.equal(failed.status, 500, JSON.stringify(failed.body));
    } finally {
      await allow();
    }
    assert.deepEqual(await authorizations(paymentId), [], 'the simulator kept no authorization');
    assert.equal(await cardAttempts(sessionId), 0, 'no attempt spent');
    assert.equal((await payment(paymentId)).status, 'pending');
    assert.deepEqual(await paymentEvents(t, paymentId), []);

    // The same token pays at once: it was never spent.
    const paid = await t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.url, `/checkout/success?sessionId=${sessionId}`);
    assert.deepEqual(await authorizations(paymentId), [{ status: 'authorized', amount: 4_200, captured_amount: 0 }]);
    assert.equal(await cardAttempts(sessionId), 1);
    const after = await payment(paymentId);
    assert.equal(after.status, 'transit');
    assert.equal(after.authorizedAmount, 4_200);
    assert.deepEqual((await paymentEvents(t, paymentId)).map((e) => e.type), ['payment.authorized']);
  });

  it('a capture whose record fails leaves the authorization uncaptured and no claim: the next capture succeeds at once', { skip: SIMULATOR }, async () => {
    const paymentId = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 7_500 });
    const allow = await refuseStatus(t.db, dialect, paymentId, 'captured');
    try {
      const failed = await t.api(m.key, 'POST', `/api/v1/payments/${paymentId}/capture`);
      assert.equal(failed.status, 500, JSON.stringify(failed.body));
    } finally {
      await allow();
    }
    assert.deepEqual(await authorizations(paymentId), [{ status: 'authorized', amount: 7_500, captured_amount: 0 }], 'the simulator captured nothing');
    const held = await payment(paymentId);
    assert.equal(held.status, 'transit');
    assert.equal(held.capturedAmount, 0);

    // No claim was left for the recovery to find: the merchant's retry is not told to wait.
    const captured = await t.api(m.key, 'POST', `/api/v1/payments/${paymentId}/capture`);
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    assert.equal(captured.body.status, 'captured');
    assert.equal(captured.body.capturedAmount, 7_500);
    assert.deepEqual(await authorizations(paymentId), [{ status: 'captured', amount: 7_500, captured_amount: 7_500 }]);
    assert.deepEqual((await paymentEvents(t, paymentId)).map((e) => e.type), ['payment.authorized', 'payment.captured']);
  });

  it('a capture above what was authorized changes nothing, at the simulator or in Motu', { skip: SIMULATOR }, async () => {
    const paymentId = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 3_000 });
    const res = await t.api(m.key, 'POST', `/api/v1/payments/${paymentId}/capture`, { amount: 3_001 });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.code, 'PAYMENT_NOT_CAPTURABLE');
    assert.deepEqual(await authorizations(paymentId), [{ status: 'authorized', amount: 3_000, captured_amount: 0 }]);
    const partial = await t.api(m.key, 'POST', `/api/v1/payments/${paymentId}/capture`, { amount: 2_000 });
    assert.equal(partial.status, 200, JSON.stringify(partial.body));
    assert.equal(partial.body.capturedAmount, 2_000);
    const again = await t.api(m.key, 'POST', `/api/v1/payments/${paymentId}/capture`);
    assert.equal(again.status, 422, 'captured once');
    assert.deepEqual(await authorizations(paymentId), [{ status: 'captured', amount: 3_000, captured_amount: 2_000 }]);
  });
});
