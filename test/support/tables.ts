// Whole-database views for invariant tests: the list of tables, a row count of each in one query, and every
// stored value as text (for scanning). Read-only, both dialects.
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.js';

export async function tableNames(db: Database): Promise<string[]> {
  if (db.dialect === 'postgres') {
    const rows = await sql<{ name: string }>`select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`.execute(db.kysely);
    return rows.rows.map((r) => r.name);
  }
  const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'table'
    and name not like 'sqlite_%' order by 1`.execute(db.kysely);
  return rows.rows.map((r) => r.name);
}

/** Row count of every table, read in one statement (one consistent snapshot). */
export async function rowCounts(db: Database, tables: string[]): Promise<Record<string, number>> {
  const columns = tables.map((name) => sql`(select count(*) from ${sql.ref(name)}) as ${sql.ref(name)}`);
  const result = await sql<Record<string, number | string>>`select ${sql.join(columns)}`.execute(db.kysely);
  const row = result.rows[0] ?? {};
  return Object.fromEntries(tables.map((name) => [name, Number(row[name])]));
}

/** Every row of every table as a list of {table, column, value} with the value rendered as text. */
export async function everyStoredValue(db: Database): Promise<Array<{ table: string; column: string; value: string }>> {
  const out: Array<{ table: string; column: string; value: string }> = [];
  for (const table of await tableNames(db)) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.ref(table)}`.execute(db.kysely);
    for (const row of rows.rows) {
      for (const [column, value] of Object.entries(row)) {
        if (value === null || value === undefined) continue;
        const text = Buffer.isBuffer(value) ? `${value.toString('utf8')} ${value.toString('hex')} ${value.toString('base64')}`
          : value instanceof Date ? value.toISOString()
          : typeof value === 'object' ? JSON.stringify(value) : String(value);
        out.push({ table, column, value: text });
      }
    }
  }
  return out;
}
