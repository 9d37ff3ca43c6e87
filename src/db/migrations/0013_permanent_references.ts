import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// Merchants, stores and contracts are permanent: deactivated, never deleted, and their ids never change (a trigger
// refuses both, on both databases). Every payment and session names them, so a row that names one can never dangle.
//
// On PostgreSQL that lets the two tables written for every session, payments and payment_sessions, drop their foreign
// keys to those three tables. A foreign key check there is a query run for every row inserted, plus a lock on the
// referenced row, and every concurrent payment locks the same merchant and contract rows: measured on
// POST /payments/sessions, about a quarter of PostgreSQL's CPU per session (docs/performance.md, "PostgreSQL: step by
// step", P5). Motu writes only ids it has just read (the API key's merchant, the store and contract resolved for the
// request). SQLite keeps these foreign keys: its checks are index reads in the same process, and dropping one would
// rebuild the table. The other foreign keys (the session's payment, customers, payment methods…) stay on both.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  if (postgres) {
    await sql`create function motu_reference_permanent() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'TRUNCATE') then
          raise exception 'motu: % rows are permanent (deactivate them instead)', tg_table_name using errcode = 'restrict_violation';
        end if;
        if new.id is distinct from old.id then
          raise exception 'motu: % ids never change', tg_table_name using errcode = 'restrict_violation';
        end if;
        return new;
      end $$`.execute(db);
  }
  for (const table of ['merchants', 'stores', 'contracts']) {
    if (postgres) {
      await sql`create trigger ${sql.id(`${table}_permanent`)} before delete or update of id on ${sql.table(table)}
        for each row execute function motu_reference_permanent()`.execute(db);
      await sql`create trigger ${sql.id(`${table}_not_truncated`)} before truncate on ${sql.table(table)}
        for each statement execute function motu_reference_permanent()`.execute(db);
    } else {
      await sql.raw(`create trigger ${table}_permanent before delete on ${table}
        begin select raise(abort, 'motu: ${table} rows are permanent (deactivate them instead)'); end`).execute(db);
      await sql.raw(`create trigger ${table}_id_kept before update of id on ${table} when new.id is not old.id
        begin select raise(abort, 'motu: ${table} ids never change'); end`).execute(db);
    }
  }
  if (!postgres) return;
  for (const [table, column] of [['payments', 'merchant_id'], ['payments', 'store_id'], ['payments', 'contract_id'], ['payment_sessions', 'merchant_id']] as const) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_${column}_fkey`)}`.execute(db);
  }
}
