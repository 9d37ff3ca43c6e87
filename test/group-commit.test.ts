// db.transaction under concurrency: on SQLite concurrent transactions share one durable commit (group commit,
// src/db/group-commit.ts); on PostgreSQL each has its own. The contract is the same on both.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { GroupCommitter } from '../src/db/sqlite/group-commit.js';
import { readTogether } from '../src/db/together.js';
import { eachDatabase, freshDatabase, type TestDatabase } from './support/harness.js';
import { eventually } from './support/wait.js';

eachDatabase('concurrent transactions', (dialect) => {
  let d: TestDatabase;
  before(async () => {
    d = await freshDatabase(dialect);
  });
  after(async () => d.drop());

  const names = async (prefix: string) =>
    (await d.db.kysely.selectFrom('settings').select('name').where('name', 'like', `${prefix}%`).orderBy('name').execute()).map((r) => r.name);

  it('a failing transaction rolls back alone; the others of the same moment commit and resolve with their value', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        d.db.transaction(async (trx) => {
          const name = `a-${String(i).padStart(2, '0')}`;
          await trx.insertInto('settings').values({ name, value: 'first' }).execute();
          await trx.updateTable('settings').set({ value: 'second' }).where('name', '=', name).execute();
          if (i % 4 === 0) throw new Error(`fail ${i}`);
          return i * 10;
        }),
      ),
    );
    outcomes.forEach((o, i) => {
      if (i % 4 === 0) {
        assert.equal(o.status, 'rejected');
        assert.equal((o as PromiseRejectedResult).reason.message, `fail ${i}`, 'each caller gets its own error');
      } else {
        assert.deepEqual(o, { status: 'fulfilled', value: i * 10 });
      }
    });
    const expected = Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 4 !== 0).map((i) => `a-${String(i).padStart(2, '0')}`);
    assert.deepEqual(await names('a-'), expected);
    const values = await d.db.kysely.selectFrom('settings').select('value').where('name', 'like', 'a-%').execute();
    assert.ok(values.every((v) => v.value === 'second'), 'every statement of a successful transaction is kept');
  });

  it('a unique violation in one transaction is reported to it alone and leaves no partial write', async () => {
    await d.db.transaction((trx) => trx.insertInto('settings').values({ name: 'u-taken', value: 'x' }).execute());
    const results = await Promise.allSettled([
      d.db.transaction(async (trx) => {
        await trx.insertInto('settings').values({ name: 'u-1', value: 'x' }).execute();
      }),
      d.db.transaction(async (trx) => {
        await trx.insertInto('settings').values({ name: 'u-partial', value: 'x' }).execute();
        await trx.insertInto('settings').values({ name: 'u-taken', value: 'again' }).execute();
      }),
      d.db.transaction(async (trx) => {
        await trx.insertInto('settings').values({ name: 'u-2', value: 'x' }).execute();
      }),
    ]);
    assert.equal(results[0]!.status, 'fulfilled');
    assert.equal(results[1]!.status, 'rejected');
    assert.ok(d.db.isUniqueViolation((results[1] as PromiseRejectedResult).reason));
    assert.equal(results[2]!.status, 'fulfilled');
    assert.deepEqual(await names('u-'), ['u-1', 'u-2', 'u-taken']);
  });

  it('a resolved transaction is committed: visible at once, and to another connection', async () => {
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        d.db.transaction(async (trx) => {
          await trx.insertInto('settings').values({ name: `v-${i}`, value: 'x' }).execute();
        }).then(async () => {
          const row = await d.db.kysely.selectFrom('settings').select('name').where('name', '=', `v-${i}`).executeTakeFirst();
          assert.ok(row, `v-${i} visible right after its transaction resolved`);
        }),
      ),
    );
    if (dialect === 'sqlite') {
      // A separate connection sees only what is committed to the database file.
      const other = new SQLite(path.join(d.dataDir, 'motu.sqlite'), { readonly: true });
      try {
        const rows = other.prepare("select count(*) as n from settings where name like 'v-%'").get() as { n: number };
        assert.equal(rows.n, 10);
      } finally {
        other.close();
      }
    }
  });

  it('a transaction started from inside a resolved one’s continuation still runs (no deadlock across batches)', async () => {
    const value = await d.db.transaction(async (trx) => {
      await trx.insertInto('settings').values({ name: 'n-1', value: 'x' }).execute();
      return 'first';
    }).then((first) =>
      d.db.transaction(async (trx) => {
        await trx.insertInto('settings').values({ name: 'n-2', value: first }).execute();
        return 'second';
      }),
    );
    assert.equal(value, 'second');
    assert.deepEqual(await names('n-'), ['n-1', 'n-2']);
  });

  it('reads taken together (readTogether) see the committed rows; on SQLite no write comes between them', async () => {
    await d.db.transaction((trx) => trx.insertInto('settings').values({ name: 'r-1', value: 'x' }).execute());
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const reads = readTogether(d.db, async (q) => {
      const first = (await q.selectFrom('settings').select('name').where('name', 'like', 'r-%').execute()).length;
      entered();
      await gate;
      const second = (await q.selectFrom('settings').select('name').where('name', 'like', 'r-%').execute()).length;
      return { first, second };
    });
    await inside;
    const write = d.db.transaction((trx) => trx.insertInto('settings').values({ name: 'r-2', value: 'x' }).execute());
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    release();
    const { first, second } = await reads;
    await write;
    assert.equal(first, 1);
    // SQLite: the one connection is held for the reads, so the transaction waited; PostgreSQL: it may come between.
    if (dialect === 'sqlite') assert.equal(second, 1, 'the transaction waited for the reads');
    assert.deepEqual(await names('r-'), ['r-1', 'r-2']);
  });
});

// The fsync off the event loop (SQLite): the batch's COMMIT is left unsynced and its callers wait for `sync()`.
// The disk is the one thing stood in for here: `sync` is a promise the test settles.
describe('group commit waiting for its fsync', () => {
  const open = () => {
    const native = new SQLite(':memory:');
    native.exec('create table t (name text primary key)');
    const kysely = new Kysely<{ t: { name: string } }>({ dialect: new SqliteDialect({ database: native }) });
    const syncs: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
    let deferred = 0;
    const committer = new GroupCommitter(kysely, {
      deferSync: () => void deferred++,
      sync: () => new Promise<void>((resolve, reject) => syncs.push({ resolve, reject })),
    });
    const insert = (name: string) => committer.run((trx) => trx.insertInto('t').values({ name }).execute().then(() => name));
    const count = () => (native.prepare('select count(*) as n from t').get() as { n: number }).n;
    return { kysely, syncs, insert, count, deferred: () => deferred };
  };
  const settled = async (p: Promise<unknown>) => {
    let done = false;
    void p.then(() => (done = true), () => (done = true));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    return done;
  };

  it('resolves no caller before the fsync that follows its COMMIT, and lets no statement see its rows before then', async () => {
    const { kysely, syncs, insert, count, deferred } = open();
    const first = [insert('a'), insert('b')];
    // Wait (bounded) until the batch committed and asked for its fsync: a loaded machine may take more than a few ms.
    await eventually('the batch asks for its fsync', () => syncs.length > 0, 2000, 10);
    assert.equal(count(), 2, 'committed');
    assert.equal(deferred(), 1, 'its COMMIT was not synced by the database');
    assert.equal(syncs.length, 1);
    assert.equal(await settled(first[0]!), false, 'not resolved before its fsync returned');
    // A reader through the database's one connection waits for the fsync: nobody sees rows a power cut could take back.
    const reader = kysely.selectFrom('t').select('name').execute();
    const second = insert('c');
    await eventually('the next batch asks for its fsync', () => syncs.length >= 2, 2000, 10);
    assert.equal(count(), 3, 'the next batch commits while the first fsync runs (same hold of the connection)');
    assert.equal(syncs.length, 2, 'and asks for an fsync of its own');
    assert.equal(await settled(reader), false, 'a read waits for the fsyncs in flight');
    assert.equal(await settled(second), false);
    syncs[0]!.resolve();
    assert.deepEqual(await Promise.all(first), ['a', 'b'], 'the first batch resolves with its own fsync');
    assert.equal(await settled(second), false, 'the second batch waits for its own fsync');
    assert.equal(await settled(reader), false, 'the reader too: the second batch is not durable yet');
    syncs[1]!.resolve();
    assert.equal(await second, 'c');
    assert.equal((await reader).length, 3);
    await kysely.destroy();
  });

  it('a failed fsync fails every caller of the batch', async () => {
    const { kysely, syncs, insert } = open();
    const calls = [insert('x'), insert('y')];
    await eventually('the batch asks for its fsync', () => syncs.length > 0, 2000, 10); // a loaded machine is slow
    assert.equal(syncs.length, 1, 'the batch committed and asked for its fsync');
    syncs[0]!.reject(new Error('EIO'));
    for (const c of calls) await assert.rejects(c, /EIO/);
    await kysely.destroy();
  });
});

// Which of a batch's transactions fails decides how it is undone (GroupCommitter.runItems): the first of a
// transaction by a ROLLBACK of the whole (then a new BEGIN for the rest), the others by their own savepoint. Each
// must still undo its own writes only, wherever it stands in the batch.
describe('group commit: a failing transaction anywhere in a batch', () => {
  const open = () => {
    const native = new SQLite(':memory:');
    native.exec('create table t (name text primary key, value text not null)');
    const kysely = new Kysely<{ t: { name: string; value: string } }>({ dialect: new SqliteDialect({ database: native }) });
    // As the database runs them (sqlite.ts): straight on the connection.
    const committer = new GroupCommitter(kysely, { exec: (statement) => void native.prepare(statement).run() });
    // Two statements with a turn of the event loop between them, then the failure if asked: a failure after writing.
    const write = (name: string, fail: boolean) => committer.run(async (trx) => {
      await trx.insertInto('t').values({ name, value: 'first' }).execute();
      await new Promise((r) => setImmediate(r));
      await trx.updateTable('t').set({ value: 'second' }).where('name', '=', name).execute();
      if (fail) throw new Error(`fail ${name}`);
      return name;
    });
    const rows = () => native.prepare('select name, value from t order by name').all() as { name: string; value: string }[];
    return { native, kysely, write, rows };
  };

  const cases: Array<{ title: string; fails: boolean[] }> = [
    { title: 'alone in its batch', fails: [true] },
    { title: 'first of the batch', fails: [true, false, false] },
    { title: 'first, and the next one too', fails: [true, true, false, true] },
    { title: 'in the middle', fails: [false, true, false] },
    { title: 'last of the batch', fails: [false, false, true] },
    { title: 'every one', fails: [true, true, true] },
  ];
  for (const { title, fails } of cases) {
    it(`${title}: its writes are undone, the others' committed, each caller answered with its own outcome`, async () => {
      const { native, kysely, write, rows } = open();
      const names = fails.map((_, i) => `n${i}`);
      // Queued in the same turn: one batch.
      const outcomes = await Promise.allSettled(names.map((name, i) => write(name, fails[i]!)));
      outcomes.forEach((o, i) => {
        if (fails[i]) assert.deepEqual(o.status === 'rejected' && (o.reason as Error).message, `fail n${i}`);
        else assert.deepEqual(o, { status: 'fulfilled', value: `n${i}` });
      });
      assert.deepEqual(rows(), names.filter((_, i) => !fails[i]).map((name) => ({ name, value: 'second' })));
      assert.equal(native.inTransaction, false, 'no transaction left open');
      // The committer goes on: a later transaction commits.
      assert.equal(await write('later', false), 'later');
      assert.ok(rows().some((r) => r.name === 'later'));
      await kysely.destroy();
    });
  }
});

// Checkpoints run in their own thread (database.ts, Checkpointer); under continuous writes the WAL must still be reset.
describe('the WAL under continuous writes (SQLite)', () => {
  it('stays bounded (about 64 MiB) while 160 MiB are written through concurrent transactions', async () => {
    const { openDatabase } = await import('../src/db/database.js');
    const { mkdtempSync, rmSync, statSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { sql } = await import('kysely');
    const dir = mkdtempSync(path.join(tmpdir(), 'motu-wal-'));
    const db = openDatabase({ dataDir: dir });
    try {
      await sql`create table filler (id integer primary key, v text)`.execute(db.kysely);
      const row = 'x'.repeat(4000);
      let written = 0;
      const writer = async () => {
        while (written < 160 * 2 ** 20) {
          written += row.length;
          await db.transaction((trx) => sql`insert into filler (v) values (${row})`.execute(trx));
        }
      };
      await Promise.all(Array.from({ length: 32 }, writer));
      const wal = statSync(path.join(dir, 'motu.sqlite-wal')).size;
      assert.ok(wal < 96 * 2 ** 20, `WAL is ${Math.round(wal / 2 ** 20)} MiB after 160 MiB written`);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
