// PostgreSQL's transactions (src/db/postgres/postgres.ts): the BEGIN sent with the first statement makes that
// statement part of the transaction; a write held back goes with the next statement or the COMMIT, and its failure
// fails the transaction; a notification sent with the COMMIT reaches another connection's LISTEN once the
// rows are committed, never for a rollback, and concurrent commits share one; concurrent transactions of a process hold
// distinct indexes, which is what keeps concurrent captures of one merchant off each other's running-balance row.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { alongside, compiledQuery, deferWrite } from '../src/db/compiled.js';
import type { DB } from '../src/db/schema.js';
import { notifyAfterCommit } from '../src/db/notify.js';
import { transactionIndex } from '../src/db/postgres/postgres.js';
import { freshDatabase, type TestDatabase } from './support/harness.js';
import { eventually, sleep } from './support/wait.js';

describe('transactions [postgres]', { skip: !process.env.DATABASE_URL && 'needs DATABASE_URL' }, () => {
  let database: TestDatabase;
  let listener: pg.Client;
  const heard: string[] = [];
  before(async () => {
    database = await freshDatabase('postgres');
    listener = new pg.Client({ connectionString: database.databaseUrl });
    await listener.connect();
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query('listen motu_test_channel');
  });
  after(async () => {
    await listener?.end();
    await database?.drop();
  });

  const count = async () => Number((await sql<{ n: number }>`select count(*) as n from settings where name like 'tx-%'`.execute(database.db.kysely)).rows[0]!.n);

  it('the first statement, sent with the BEGIN, rolls back with the transaction, on a connection that prepared it or not', async () => {
    const one = database.db.withPool(1);
    try {
      for (let i = 0; i < 4; i++) { // the insert's text is kept prepared from its third run (PreparedTexts)
        await assert.rejects(one.transaction(async (trx) => {
          await trx.insertInto('settings').values({ name: `tx-undone-${i}`, value: 'x' }).execute();
          throw new Error('undo');
        }), /undo/);
        await assert.rejects(one.transaction(async (trx) => {
          await trx.insertInto('settings').values({ name: `tx-undone-${i}`, value: 'x' }).execute();
          await trx.insertInto('settings').values({ name: `tx-undone-${i}`, value: 'twice' }).execute(); // duplicate key
        }));
      }
      const left = await one.kysely.selectFrom('settings').select('name').where('name', 'like', 'tx-undone-%').execute();
      assert.deepEqual(left, []);
      await one.transaction(async (trx) => {
        await trx.insertInto('settings').values({ name: 'tx-kept', value: 'x' }).execute();
      });
      const kept = await one.kysely.selectFrom('settings').select('name').where('name', '=', 'tx-kept').execute();
      assert.equal(kept.length, 1);
      await one.kysely.deleteFrom('settings').where('name', '=', 'tx-kept').execute();
    } finally {
      await one.close();
    }
  });

  it('a write held back (deferWrite) runs before the next statement, commits with the COMMIT, and fails its transaction when it fails', async () => {
    const insert = compiledQuery((db, p: { name: string }) => db.insertInto('settings').values({ name: p.name, value: 'x' }));
    const named = (db: Kysely<DB>, name: string) => db.selectFrom('settings').select('name').where('name', '=', name).execute();
    const one = database.db.withPool(1);
    heard.length = 0;
    try {
      for (let i = 0; i < 4; i++) { // the insert is prepared by name on the connection from a run on (PreparedTexts)
        await one.transaction(async (trx) => {
          await insert.defer(trx, { name: `tx-held-${i}` });
          assert.equal((await named(trx, `tx-held-${i}`)).length, 1, 'the next statement sees it');
        });
        await one.transaction((trx) => insert.defer(trx, { name: `tx-alone-${i}` })); // sent with BEGIN and COMMIT
        await one.transaction(async (trx) => {
          await deferWrite(trx, insert.bind(trx, { name: `tx-notified-${i}` }));
          await notifyAfterCommit(trx, 'motu_test_channel', () => {});
        });
        // A duplicate key: the statement after it fails, or the COMMIT; either way nothing of the transaction stays.
        await assert.rejects(one.transaction(async (trx) => {
          await insert.run(trx, { name: `tx-lost-${i}` });
          await insert.defer(trx, { name: `tx-held-${i}` });
          await named(trx, `tx-held-${i}`);
        }), (error: { code?: string }) => error.code === '23505');
        await assert.rejects(one.transaction(async (trx) => {
          await insert.run(trx, { name: `tx-lost-${i}` });
          await insert.defer(trx, { name: `tx-held-${i}` });
        }), (error: { code?: string }) => error.code === '23505');
        // Rolled back before it was sent: never sent, and not sent with the next transaction on the connection either.
        await assert.rejects(one.transaction(async (trx) => {
          await insert.run(trx, { name: `tx-lost-${i}` });
          await insert.defer(trx, { name: `tx-dropped-${i}` });
          throw new Error('undo');
        }), /undo/);
        await one.transaction((trx) => insert.run(trx, { name: `tx-after-${i}` }));
      }
      const rows = (await one.kysely.selectFrom('settings').select('name').where('name', 'like', 'tx-%').orderBy('name').execute()).map((r) => r.name);
      const expected = [0, 1, 2, 3].flatMap((i) => [`tx-after-${i}`, `tx-alone-${i}`, `tx-held-${i}`, `tx-notified-${i}`]).sort();
      assert.deepEqual(rows, expected);
      await eventually('each notification is heard', () => heard.length === 4, 5000, 10);
      assert.equal((await named(one.kysely, 'tx-dropped-0')).length, 0);
      await one.kysely.deleteFrom('settings').where('name', 'like', 'tx-%').execute();
    } finally {
      await one.close();
    }
  });

  it('a statement sent alongside the next one (alongside) runs first, is given its answer, and fails or rolls back with its transaction', async () => {
    const insert = compiledQuery((db, p: { name: string }) => db.insertInto('settings').values({ name: p.name, value: 'x' }));
    const rename = compiledQuery((db, p: { from: string; to: string }) => db.updateTable('settings').set({ name: p.to }).where('name', '=', p.from));
    const named = (db: Kysely<DB>, name: string) => db.selectFrom('settings').select('name').where('name', '=', name).execute();
    const one = database.db.withPool(1);
    const sent: string[] = [];
    try {
      for (let i = 0; i < 4; i++) { // prepared by name on the connection from a run on (PreparedTexts)
        await insert.run(one.kysely, { name: `tx-side-${i}` });
        await one.transaction(async (trx) => {
          const [renamed, seen] = await alongside(trx, rename.bind(trx, { from: `tx-side-${i}`, to: `tx-moved-${i}` }), () => named(trx, `tx-moved-${i}`));
          assert.equal(renamed.changed, 1, 'its answer: one row changed');
          assert.equal(seen.length, 1, 'the next statement sees what it wrote');
          const [none] = await alongside(trx, rename.bind(trx, { from: 'tx-nothing', to: 'tx-never' }), () => named(trx, 'tx-never'));
          assert.equal(none.changed, 0);
        });
        // Its failure fails the statement it went with, and the transaction.
        await assert.rejects(one.transaction(async (trx) => {
          await alongside(trx, insert.bind(trx, { name: `tx-moved-${i}` }), () => named(trx, 'tx-anything'));
        }), (error: { code?: string }) => error.code === '23505');
        // Undone once its answer is read: nothing of the transaction stays.
        await assert.rejects(one.transaction(async (trx) => {
          const [renamed] = await alongside(trx, rename.bind(trx, { from: `tx-moved-${i}`, to: `tx-undone-${i}` }), () => insert.run(trx, { name: `tx-lost-${i}` }));
          sent.push(`${renamed.changed}`);
          throw new Error('undo');
        }), /undo/);
        // Nothing sent after it: the caller is told, instead of waiting for an answer that cannot come.
        await assert.rejects(one.transaction(async (trx) => {
          await alongside(trx, insert.bind(trx, { name: `tx-orphan-${i}` }), async () => undefined);
        }), /no statement followed/);
      }
      assert.deepEqual(sent, ['1', '1', '1', '1']);
      const rows = (await one.kysely.selectFrom('settings').select('name').where('name', 'like', 'tx-%').orderBy('name').execute()).map((r) => r.name);
      assert.deepEqual(rows, [0, 1, 2, 3].map((i) => `tx-moved-${i}`));
      await one.kysely.deleteFrom('settings').where('name', 'like', 'tx-%').execute();
    } finally {
      await one.close();
    }
  });

  it('a notification sent with the COMMIT arrives once the rows it announces are visible, and local listeners run after it', async () => {
    heard.length = 0;
    let rowsWhenLocal = -1;
    await database.db.transaction(async (trx) => {
      await trx.insertInto('settings').values({ name: 'tx-1', value: 'one' }).execute();
      await notifyAfterCommit(trx, 'motu_test_channel', () => void count().then((n) => { rowsWhenLocal = n; }));
      await sleep(100);
      assert.deepEqual(heard, [], 'nothing heard before the commit');
    });
    await eventually('the notification is heard', () => heard.length === 1, 5000, 10);
    assert.equal(await count(), 1);
    await eventually('the local listener ran', () => rowsWhenLocal === 1, 5000, 10);
  });

  it('a transaction that rolls back notifies no one and leaves no notification for the next one on its connection', async () => {
    heard.length = 0;
    const one = database.db.withPool(1);
    try {
      await assert.rejects(one.transaction(async (trx) => {
        await trx.insertInto('settings').values({ name: 'tx-2', value: 'two' }).execute();
        await notifyAfterCommit(trx, 'motu_test_channel', () => {});
        throw new Error('changed my mind');
      }), /changed my mind/);
      await one.transaction(async (trx) => {
        await trx.insertInto('settings').values({ name: 'tx-3', value: 'three' }).execute();
      });
      await sleep(300);
      assert.deepEqual(heard, []);
      assert.equal(await count(), 2); // tx-1 and tx-3
    } finally {
      await one.close();
    }
  });

  it('concurrent commits share their notifications, and a listener hears one after the last of them is visible', async () => {
    heard.length = 0;
    const many = async () => Number((await sql<{ n: number }>`select count(*) as n from settings where name like 'tx-many-%'`.execute(database.db.kysely)).rows[0]!.n);
    // What another process's worker does when woken: it reads what has committed.
    const seenWhenHeard: number[] = [];
    const onNotification = () => void many().then((n) => seenWhenHeard.push(n));
    listener.on('notification', onNotification);
    try {
      for (let round = 0; round < 3; round++) {
        await Promise.all(Array.from({ length: 20 }, (_, i) => database.db.transaction(async (trx) => {
          await trx.insertInto('settings').values({ name: `tx-many-${round}-${i}`, value: 'x' }).execute();
          await notifyAfterCommit(trx, 'motu_test_channel', () => {});
        })));
        const committed = 20 * (round + 1);
        await eventually(`round ${round}: a notification heard once its ${committed} rows are visible`, () => seenWhenHeard.includes(committed), 5000, 10);
      }
      assert.ok(heard.length < 60, `${heard.length} notifications for 60 commits`);
      // This process's own listeners are not woken by its own notifications: the commits' hooks woke them already.
      let ownHeard = 0;
      const unlisten = database.db.listen('motu_test_channel', () => ownHeard++);
      try {
        await sleep(300); // listening (its connection coming up calls it once)
        ownHeard = 0;
        heard.length = 0;
        await database.db.transaction(async (trx) => {
          await trx.insertInto('settings').values({ name: 'tx-many-own', value: 'x' }).execute();
          await notifyAfterCommit(trx, 'motu_test_channel', () => {});
        });
        await eventually('another connection hears it', () => heard.length === 1, 5000, 10);
        await sleep(100);
        assert.equal(ownHeard, 0);
      } finally {
        unlisten();
      }
    } finally {
      listener.off('notification', onNotification);
      await database.db.kysely.deleteFrom('settings').where('name', 'like', 'tx-many-%').execute();
    }
  });

  it('concurrent transactions hold distinct indexes, and an index is free again once its transaction has ended', async () => {
    const seen: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const open = Array.from({ length: 4 }, () => database.db.transaction(async (trx) => {
      seen.push(transactionIndex(trx)!);
      await held;
    }));
    await eventually('four transactions open', () => seen.length === 4, 5000, 10);
    release();
    await Promise.all(open);
    assert.deepEqual([...seen].sort(), [0, 1, 2, 3]);
    const next = await database.db.transaction(async (trx) => transactionIndex(trx));
    assert.equal(next, 0);
  });
});
