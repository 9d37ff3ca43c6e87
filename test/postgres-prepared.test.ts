// PostgreSQL: a statement run a few times is kept prepared on its connection (src/db/postgres/postgres.ts,
// PreparedTexts), and a prepared `select *` keeps answering after another process adds a column to its table
// (PostgreSQL refuses such a plan: the statement runs unprepared from then on).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.js';
import type { Database } from '../src/db/database.js';
import { freshDatabase, type TestDatabase } from './support/harness.js';

describe('statements kept prepared [postgres]', { skip: !process.env.DATABASE_URL && 'needs DATABASE_URL' }, () => {
  let database: TestDatabase;
  let one: Database; // one connection, so that what it prepared can be read on it
  before(async () => {
    database = await freshDatabase('postgres');
    one = database.db.withPool(1);
    await database.db.kysely.insertInto('merchants').values({ id: 'mer_prepared', name: 'Prepared', created_at: new Date().toISOString() }).execute();
  });
  after(async () => {
    await one?.close();
    await database?.drop();
  });

  const read = () => one.kysely.selectFrom('merchants').selectAll().where('id', '=', 'mer_prepared').executeTakeFirstOrThrow();
  const preparedHere = async () => (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(one.kysely)).rows
    .filter((r) => /from "merchants"/.test(r.statement));

  it('a read run three times is prepared on its connection; it answers the same', async () => {
    assert.equal((await read()).name, 'Prepared');
    assert.equal((await preparedHere()).length, 0, 'not prepared after one run');
    await read();
    const third = await read();
    assert.equal(third.name, 'Prepared');
    assert.equal((await preparedHere()).length, 1);
    assert.equal((await read()).name, 'Prepared');
  });

  it('another process adds a column to the table: the prepared select * still answers, with the new column', async () => {
    const other = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
    try {
      await sql`alter table merchants add column prepared_test text default 'added'`.execute(other.kysely);
    } finally {
      await other.close();
    }
    const row = (await read()) as unknown as Record<string, unknown>;
    assert.equal(row.name, 'Prepared');
    assert.equal(row.prepared_test, 'added');
    assert.equal(((await read()) as unknown as Record<string, unknown>).prepared_test, 'added');
  });
});
