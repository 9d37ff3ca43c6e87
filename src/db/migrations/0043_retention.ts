import { sql, type Kysely } from 'kysely';

// Retention (src/modules/retention): the worker deletes what has outlived its use, oldest first, a batch at a time.
// Each batch is found by an index in the age it is judged by, so a batch reads its own rows, never the whole table:
// webhook attempts by when they were made, used card tokens by when they were used (partial: the unused ones are
// found by their expiry, migration 0017), audit rows by when they were written.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhook_attempts_started').on('webhook_attempts').column('started_at').execute();
  await db.schema.createIndex('acquirer_tokens_used').on('acquirer_tokens').column('used_at').where(sql.ref('used_at'), 'is not', null).execute();
  await db.schema.createIndex('audit_log_created').on('audit_log').column('created_at').execute();
}
