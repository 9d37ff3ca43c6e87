import { sql, type Kysely } from 'kysely';

// Two changes of the input hardening.
//
// 1. Idempotency keys belong to the merchant, the mode and the sending key's store: `scope` is the store id of a
// store-bound API key, '' for the merchant's unbound keys (which share theirs, so a retry after a key rotation still
// replays). The scope joins the primary key: two stores sending the same key (their order numbers) each get their
// own answer. The table is rebuilt (SQLite cannot change a primary key in place); its rows are kept and given the
// unbound scope (which API key sent them was not recorded): a retry across the upgrade still replays.
//
// 2. The test-mode acquirer's card tokens never used are deleted with their cards once expired
// (SimulatorAcquirer.purgeUnusedTokens, a scheduled job); this partial index finds them without reading the tokens
// that were used.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys_scoped')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_scope_pk', ['merchant_id', 'mode', 'scope', 'key'])
    .execute();
  await sql`insert into idempotency_keys_scoped
    (merchant_id, mode, scope, key, request_hash, state, status_code, response_body, created_at, expires_at)
    select merchant_id, mode, '', key, request_hash, state, status_code, response_body, created_at, expires_at
    from idempotency_keys`.execute(db);
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.alterTable('idempotency_keys_scoped').renameTo('idempotency_keys').execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
  await db.schema.createIndex('acquirer_tokens_unused').on('acquirer_tokens').column('expires_at')
    .where(sql.ref('used_at'), 'is', null).execute();
}
