import { sql, type Kysely } from 'kysely';

// The indexes a card payment writes (docs/performance.md, History, "2026-11-28 (evening): the indexes a
// payment writes"). Every row a payment inserts, and every change of an indexed column, writes an entry in each index of its
// table; these held rows no query looks for, or served one query another index serves as well:
// - `payments_test_clock`, `payment_sessions_test_clock` (test_clock_id) and `payments_subscription`
//   (subscription_id, due_date) held an entry for every payment and session, nearly all of them null: every query of
//   them names one clock or one subscription (`= ?`, which implies `is not null` on both databases, bound value or
//   not), so they keep only the rows on a clock or of a subscription.
// - `payment_sessions_expiry` (status, expires_at) held every session ever made, and a session's completion moved its
//   entry. Only the expiry job reads it, for the open sessions: `payment_sessions_open` (expires_at) holds those alone
//   (a partial index serves only a condition naming its status as a literal: the job does, in payments.scheduler.ts).
//   A session enters it when created and leaves it when completed, expired or cancelled.
// - `ledger_lines_balance` (merchant_id, mode, account, currency) took a page per merchant and account at every
//   capture; since the running balances (migration 0050) only `motu ledger verify` reads lines by account, a read of
//   the whole table either way.
// - `webhook_attempts_event` (event_id): an event's attempts are read through its deliveries (delivery_id, the
//   leading column of the unique `webhook_attempts_once`), as the resend already did.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_test_clock').execute();
  await db.schema.createIndex('payments_test_clock').on('payments').column('test_clock_id').where(sql.ref('test_clock_id'), 'is not', null).execute();
  await db.schema.dropIndex('payment_sessions_test_clock').execute();
  await db.schema.createIndex('payment_sessions_test_clock').on('payment_sessions').column('test_clock_id').where(sql.ref('test_clock_id'), 'is not', null).execute();
  await db.schema.dropIndex('payments_subscription').execute();
  await db.schema.createIndex('payments_subscription').on('payments').columns(['subscription_id', 'due_date']).where(sql.ref('subscription_id'), 'is not', null).execute();
  await db.schema.createIndex('payment_sessions_open').on('payment_sessions').column('expires_at').where(sql.ref('status'), '=', sql.lit('open')).execute();
  await db.schema.dropIndex('payment_sessions_expiry').execute();
  await db.schema.dropIndex('ledger_lines_balance').execute();
  await db.schema.dropIndex('webhook_attempts_event').execute();
}
