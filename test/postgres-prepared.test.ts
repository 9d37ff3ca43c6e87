// PostgreSQL: a statement run a few times is kept prepared on its connection (src/db/postgres/postgres.ts,
// PreparedTexts), and a prepared `select *` keeps answering after another process adds a column to its table
// (PostgreSQL refuses such a plan: the statement runs unprepared from then on).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { compiledQuery, readAll } from '../src/db/compiled.js';
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

// compiledQuery's statements run by name from their first run, on every connection; readAll sends several in one
// message (src/db/compiled.ts).
const merchantById = compiledQuery((db, p: { id: string }) => db.selectFrom('merchants').selectAll().where('id', '=', p.id));
const merchantName = compiledQuery((db, p: { id: string }) => db.selectFrom('merchants').select(['id', 'name']).where('id', '=', p.id));
const merchantCount = compiledQuery((db, p: { prefix: string }) => db.selectFrom('merchants').select((eb) => eb.fn.countAll<number>().as('n')).where('id', 'like', p.prefix));

describe('compiled statements by name, alone and read together [postgres]', { skip: !process.env.DATABASE_URL && 'needs DATABASE_URL' }, () => {
  let database: TestDatabase;
  let one: Database;
  before(async () => {
    database = await freshDatabase('postgres');
    one = database.db.withPool(1);
    const at = new Date().toISOString();
    await database.db.kysely.insertInto('merchants').values([
      { id: 'mer_batch_a', name: 'Batch A', created_at: at },
      { id: 'mer_batch_b', name: 'Batch B', created_at: at },
    ]).execute();
  });
  after(async () => {
    await one?.close();
    await database?.drop();
  });

  const together = (db: Database) => readAll(db.kysely, [
    merchantById.bind(db.kysely, { id: 'mer_batch_a' }),
    merchantName.bind(db.kysely, { id: 'mer_batch_b' }),
    merchantById.bind(db.kysely, { id: 'mer_none' }),
    merchantCount.bind(db.kysely, { prefix: 'mer_batch_%' }),
  ]);
  const preparedHere = async () => (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(one.kysely)).rows.map((r) => r.name);

  it('several reads in one message answer each its own rows, in order, on a fresh connection and once prepared on it', async () => {
    for (let run = 0; run < 4; run++) {
      const [a, b, none, count] = await together(one);
      assert.equal(a.length, 1);
      assert.equal(a[0]!.name, 'Batch A');
      assert.deepEqual(b, [{ id: 'mer_batch_b', name: 'Batch B' }]);
      assert.deepEqual(none, []);
      assert.equal(count[0]!.n, 2);
    }
    // Each batch prepares one statement it runs, until all three texts are prepared on the connection.
    assert.ok((await preparedHere()).filter((name) => name.startsWith('motu_c')).length >= 3, 'the texts are prepared on the connection');
    // And from a connection of the main pool, which prepares its own.
    assert.equal((await together(database.db))[1][0]!.name, 'Batch B');
  });

  it('the table changes under the prepared statements (a column added, an index): every read still answers right', async () => {
    for (let run = 0; run < 3; run++) await together(one);
    const other = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
    try {
      await sql`alter table merchants add column batch_test text default 'added'`.execute(other.kysely);
      await sql`create index merchants_batch_test on merchants (name)`.execute(other.kysely);
    } finally {
      await other.close();
    }
    for (let run = 0; run < 3; run++) {
      const [a, b, , count] = await together(one);
      assert.equal((a[0] as unknown as Record<string, unknown>).batch_test, 'added', 'select * has the new column');
      assert.deepEqual(b, [{ id: 'mer_batch_b', name: 'Batch B' }]);
      assert.equal(count[0]!.n, 2);
      assert.equal((await merchantName.executeTakeFirst(one.kysely, { id: 'mer_batch_a' }))?.name, 'Batch A');
    }
  });

  it('a statement of the batch that fails fails the batch, and the connection answers the next one', async () => {
    const failing = { sql: 'select 1 / (0 * $1::int) as x', parameters: [1] };
    await assert.rejects(readAll(one.kysely, [merchantName.bind(one.kysely, { id: 'mer_batch_a' }), failing]), /division by zero/);
    await assert.rejects(readAll(one.kysely, [failing, merchantById.bind(one.kysely, { id: 'mer_batch_a' })]), /division by zero/);
    const [a, b] = await readAll(one.kysely, [merchantById.bind(one.kysely, { id: 'mer_batch_a' }), merchantName.bind(one.kysely, { id: 'mer_batch_b' })]);
    assert.equal(a[0]!.name, 'Batch A');
    assert.equal(b[0]!.name, 'Batch B');
  });

  it('inside a transaction the reads run one after the other in it, and see its writes', async () => {
    await database.db.transaction(async (trx) => {
      await trx.updateTable('merchants').set({ name: 'Renamed' }).where('id', '=', 'mer_batch_a').execute();
      const [a, b] = await readAll(trx, [merchantName.bind(trx, { id: 'mer_batch_a' }), merchantName.bind(trx, { id: 'mer_batch_b' })]);
      assert.equal(a[0]!.name, 'Renamed');
      assert.equal(b[0]!.name, 'Batch B');
      throw new Error('roll back');
    }).catch((error: Error) => assert.equal(error.message, 'roll back'));
    assert.equal((await merchantName.executeTakeFirst(database.db.kysely, { id: 'mer_batch_a' }))?.name, 'Batch A');
  });
});
