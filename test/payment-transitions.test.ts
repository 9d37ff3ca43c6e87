// The payment transitions on every database: the hosted page's AUTO capture runs under the capture claim its
// authorization took (two completions of one session capture at the acquirer once and record one payment.captured),
// a session completes only with the capture that moved its payment, and migration 0021 gives the payments made
// before it the attempt count the test-mode acquirer recorded for them.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { Migrator, type Kysely, type Migration } from 'kysely';
import { migrate } from '../src/db/migrate.js';
import * as transitions from '../src/modules/payment-transitions/transitions.js';
import { CARDS } from './support/cards.js';
import { paymentEvents } from './support/events.js';
import { eachDatabase, freshDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paySession, tokenize } from './support/payments.js';

const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '..', 'src', 'db', 'migrations');

/** The app's migrations that come before `name`, as the migrator reads them. */
async function migrationsBefore(name: string): Promise<Record<string, Migration>> {
  const out: Record<string, Migration> = {};
  for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.ts')).sort()) {
    const migration = file.replace(/\.ts$/, '');
    if (migration < name) out[migration] = (await import(path.join(MIGRATIONS_DIR, file))) as Migration;
  }
  return out;
}

const acquirerCaptures = (t: { db: { kysely: Kysely<any> } }, paymentId: string) =>
  t.db.kysely.selectFrom('acquirer_authorizations').select(['status', 'captured_amount'])
    .where('merchant_reference', '=', paymentId).where('status', '=', 'captured').execute();

eachDatabase('payment transitions: the hosted page AUTO capture', (dialect) => {
  const { t, m } = withMerchantApp(dialect);

  const sessionStatus = async (sessionId: string) =>
    (await t.db.kysely.selectFrom('payment_sessions').select('status').where('id', '=', sessionId).executeTakeFirstOrThrow()).status;
  const paymentStatus = async (paymentId: string) =>
    (await t.db.kysely.selectFrom('payments').select('status').where('id', '=', paymentId).executeTakeFirstOrThrow()).status;

  it('two concurrent completions of one session: one capture at the acquirer, one payment.captured, the session complete', async () => {
    for (let round = 0; round < 5; round++) {
      const session = await createSession(t, m.testKey, { amount: 4200, captureMode: 'AUTO' });
      const tokens = [await tokenize(t, session.sessionId, CARDS.visa), await tokenize(t, session.sessionId, CARDS.mastercard)];
      const answers = await Promise.all(tokens.map((token) => t.api(undefined, 'POST', `/checkout/${session.sessionId}/pay`, { token })));
      // Both calls race: one pays; the other either lost the race inside (200, sent to the success page, its
      // authorization given back) or came after the session completed (410 SESSION_EXPIRED, its card never sent).
      assert.ok(answers.some((a) => a.status === 200), JSON.stringify(answers.map((a) => a.body)));
      for (const a of answers) {
        if (a.status !== 200) assert.deepEqual([a.status, a.body.code], [410, 'SESSION_EXPIRED'], JSON.stringify(a.body));
      }

      assert.deepEqual(await acquirerCaptures(t, session.paymentId), [{ status: 'captured', captured_amount: 4200 }], `round ${round}`);
      const events = (await paymentEvents(t, session.paymentId)).map((e) => e.type);
      assert.deepEqual(events.filter((type) => type === 'payment.captured'), ['payment.captured'], `round ${round}: ${events}`);
      assert.deepEqual(events.filter((type) => type === 'payment.authorized'), ['payment.authorized']);
      assert.equal(await paymentStatus(session.paymentId), 'captured');
      assert.equal(await sessionStatus(session.sessionId), 'complete');
      const claim = await t.db.kysely.selectFrom('payments').select('operation').where('id', '=', session.paymentId).executeTakeFirstOrThrow();
      assert.equal(claim.operation, null, 'the capture claim is released');
    }
  });

  it('a capture that does not move the payment leaves its session open and records nothing', async () => {
    const session = await createSession(t, m.testKey, { amount: 1500, captureMode: 'AUTO' });
    const moved = await t.db.transaction((trx) =>
      transitions.capture(trx, { paymentId: session.paymentId, amount: 1500, operation: null, at: t.clock.now() }));
    assert.equal(moved, null, 'a pending payment is not in transit');
    assert.equal(await paymentStatus(session.paymentId), 'pending');
    assert.equal(await sessionStatus(session.sessionId), 'open');
    assert.deepEqual(await paymentEvents(t, session.paymentId), []);
    // Paid afterwards, it captures once and completes.
    await paySession(t, session.sessionId);
    assert.equal(await paymentStatus(session.paymentId), 'captured');
    assert.equal(await sessionStatus(session.sessionId), 'complete');
  });
});

eachDatabase('payment transitions: migration 0021 counts the attempts of earlier payments', (dialect) => {
  // Payments made by the app (with its own attempt counts), copied into a database migrated up to 0020.
  const { t, m } = withMerchantApp(dialect);

  it('a payment made before 0021 gets the number of authorizations the acquirer recorded for it, as the transitions count them', async () => {
    const retried = await createSession(t, m.testKey, { amount: 2000 });
    await paySession(t, retried.sessionId, CARDS.declined);
    await paySession(t, retried.sessionId, CARDS.declined);
    await paySession(t, retried.sessionId, CARDS.visa);
    const once = await createSession(t, m.testKey, { amount: 3000, captureMode: 'MANUAL' });
    await paySession(t, once.sessionId);
    const unpaid = await createSession(t, m.testKey, { amount: 4000 });
    const ids = [retried.paymentId, once.paymentId, unpaid.paymentId];
    const kept = await t.db.kysely.selectFrom('payments').select(['id', 'authorization_attempts']).where('id', 'in', ids).orderBy('id').execute();
    assert.deepEqual(
      Object.fromEntries(kept.map((r) => [r.id, r.authorization_attempts])),
      { [retried.paymentId]: 3, [once.paymentId]: 1, [unpaid.paymentId]: 0 },
      'the transitions count every authorization asked for',
    );

    const d = await freshDatabase(dialect, { migrate: false });
    try {
      const old = await new Migrator({ db: d.db.kysely, provider: { getMigrations: () => migrationsBefore('0021') } }).migrateToLatest();
      assert.equal(old.error, undefined);
      const columns = new Map((await d.db.kysely.introspection.getTables()).map((table) => [table.name, table.columns.map((c) => c.name)]));
      assert.ok(!columns.get('payments')!.includes('authorization_attempts'), 'the database is as it was before 0021');
      // The rows the app wrote, parents first, with the columns that existed before 0021.
      for (const table of ['merchants', 'contracts', 'acquirer_cards', 'payments', 'acquirer_authorizations']) {
        const rows = await t.db.kysely.selectFrom(table as 'payments').selectAll().execute();
        const known = columns.get(table)!;
        for (const row of rows) {
          const values = Object.fromEntries(Object.entries(row).filter(([column]) => known.includes(column)));
          await d.db.kysely.insertInto(table as 'payments').values(values as never).execute();
        }
      }

      assert.ok((await migrate(d.db)).includes('0021_authorization_attempts'));
      const backfilled = await d.db.kysely.selectFrom('payments').select(['id', 'authorization_attempts']).where('id', 'in', ids).orderBy('id').execute();
      assert.deepEqual(backfilled, kept);
    } finally {
      await d.drop();
    }
  });
});
