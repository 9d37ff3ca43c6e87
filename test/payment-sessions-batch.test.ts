// Sessions created at the same moment share their write: on PostgreSQL one INSERT statement (src/db/compiled.ts,
// compiledInsertPair), on SQLite one group commit. What a merchant sees is the same as one by one: every session
// created, distinct, readable; and a pair that cannot be written fails only its own caller.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { compiledInsertPair } from '../src/db/compiled.js';
import type { PaymentRow, PaymentSessionRow } from '../src/modules/payments/payments.table.js';
import { newId } from '../src/shared/ids.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession } from './support/payments.js';

eachDatabase('sessions created together', (dialect) => {
  const { t, m } = withMerchantApp(dialect, { merchantName: 'Together' });

  it('40 concurrent POST /payments/sessions: all 201, distinct, each readable with its own amount', async () => {
    const created = await Promise.all(Array.from({ length: 40 }, (_, i) => createSession(t, m.testKey, { amount: 1000 + i })));
    assert.equal(new Set(created.map((c) => c.paymentId)).size, 40);
    assert.equal(new Set(created.map((c) => c.sessionId)).size, 40);
    for (const [i, c] of created.entries()) {
      const payment = await t.api(m.testKey, 'GET', `/api/v1/payments/${c.paymentId}`);
      assert.equal(payment.status, 200);
      assert.equal(payment.body.amount, 1000 + i);
      assert.equal(payment.body.status, 'pending');
      const page = await t.api(undefined, 'GET', `/checkout/${c.sessionId}`);
      assert.equal(page.status, 200, `the hosted page of session ${i}`);
    }
    if (dialect === 'postgres') {
      // Rows written by one statement carry the same transaction id: the 40 were not 40 commits.
      const { rows } = await sql<{ n: number }>`select count(distinct xmin::text)::int as n from payments where id = any(${created.map((c) => c.paymentId)})`.execute(t.db.kysely);
      assert.ok(rows[0]!.n < 40, `${rows[0]!.n} transactions for 40 sessions`);
    }
  });

  it('a pair that cannot be written (a payment id already taken) fails alone; the others of its batch are written', async () => {
    const { paymentId } = await createSession(t, m.testKey);
    const template = (await t.db.kysely.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow()) as PaymentRow;
    const sessionTemplate = (await t.db.kysely.selectFrom('payment_sessions').selectAll().where('payment_id', '=', paymentId).executeTakeFirstOrThrow()) as PaymentSessionRow;
    const insert = compiledInsertPair('payments', 'payment_sessions');
    const pairs = Array.from({ length: 12 }, (_, i) => {
      const id = i === 5 ? paymentId : newId('pay');
      const sessionId = newId('ses');
      return {
        payment: { ...template, id, session_id: sessionId, reference: `SPR-BATCHTEST${String(i).padStart(5, '0')}`, amount: 500 + i },
        session: { ...sessionTemplate, id: sessionId, payment_id: id },
      };
    });
    const outcomes = await Promise.allSettled(pairs.map((p) => t.db.singleWrite((q) => insert(t.db, q, p.payment, p.session))));
    for (const [i, o] of outcomes.entries()) {
      if (i === 5) {
        assert.equal(o.status, 'rejected');
        assert.ok(t.db.isUniqueViolation((o as PromiseRejectedResult).reason), 'the duplicate gets the unique violation');
      } else assert.equal(o.status, 'fulfilled', `pair ${i}: ${String((o as PromiseRejectedResult).reason)}`);
    }
    const written = await t.db.kysely.selectFrom('payment_sessions').select('id').where('id', 'in', pairs.map((p) => p.session.id)).execute();
    assert.deepEqual(
      written.map((r) => r.id).sort(),
      pairs.filter((_, i) => i !== 5).map((p) => p.session.id).sort(),
      'every other pair is written, and the duplicate wrote no session',
    );
    const original = await t.api(m.testKey, 'GET', `/api/v1/payments/${paymentId}`);
    assert.equal(original.body.amount, 10_000, 'the payment whose id was reused is unchanged');
  });

  it('a batch retried pair by pair after its answer was lost: the pairs it had written count as written', { skip: dialect === 'sqlite' && 'no batched statement on SQLite (the group commit)' }, async () => {
    // What the retry pair by pair meets when the batched statement committed and its connection dropped before the
    // answer: its pairs already there, as given. Made here by sending the same pairs again, with new ones.
    const { paymentId } = await createSession(t, m.testKey);
    const template = (await t.db.kysely.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow()) as PaymentRow;
    const sessionTemplate = (await t.db.kysely.selectFrom('payment_sessions').selectAll().where('payment_id', '=', paymentId).executeTakeFirstOrThrow()) as PaymentSessionRow;
    const insert = compiledInsertPair('payments', 'payment_sessions');
    const pair = (i: number) => {
      const id = newId('pay');
      const sessionId = newId('ses');
      return {
        payment: { ...template, id, session_id: sessionId, reference: `SPR-LOSTANSWER${String(i).padStart(4, '0')}`, amount: 700 + i },
        session: { ...sessionTemplate, id: sessionId, payment_id: id },
      };
    };
    const send = (pairs: ReturnType<typeof pair>[]) => Promise.allSettled(pairs.map((p) => t.db.singleWrite((q) => insert(t.db, q, p.payment, p.session))));
    const committed = Array.from({ length: 4 }, (_, i) => pair(i));
    assert.deepEqual((await send(committed)).map((o) => o.status), Array(4).fill('fulfilled'));
    const fresh = Array.from({ length: 4 }, (_, i) => pair(10 + i));
    // The same payment id with another session is not the lost answer: still a unique violation.
    const other = { payment: committed[0]!.payment, session: { ...pair(20).session, payment_id: committed[0]!.payment.id } };
    const outcomes = await send([...committed, ...fresh, other]);
    assert.deepEqual(outcomes.slice(0, 8).map((o) => o.status), Array(8).fill('fulfilled'), JSON.stringify(outcomes.map((o) => o.status === 'rejected' ? String(o.reason) : 'ok')));
    assert.equal(outcomes[8]!.status, 'rejected');
    assert.ok(t.db.isUniqueViolation((outcomes[8] as PromiseRejectedResult).reason));
    const sessions = await t.db.kysely.selectFrom('payment_sessions').select('id')
      .where('id', 'in', [...committed, ...fresh, other].map((p) => p.session.id)).execute();
    assert.deepEqual(sessions.map((r) => r.id).sort(), [...committed, ...fresh].map((p) => p.session.id).sort(), 'each written once');
  });
});
