// The SQLite that Motu runs on: better-sqlite3 rebuilt with the page cache fix of scripts/patch-sqlite.mjs (npm's
// postinstall; docs/performance.md, "Sessions on SQLite: the page cache's full scan at COMMIT").
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.js';

describe('the SQLite build', () => {
  it("is the one with Motu's page cache fix, on Motu's own connection", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'motu-sqlite-build-'));
    const db = openDatabase({ dataDir: dir });
    try {
      const { rows } = await sql<{ id: string }>`select sqlite_source_id() as id`.execute(db.kysely);
      assert.ok(
        rows[0]!.id.endsWith(' motu-pcache-rekey'),
        `sqlite_source_id() is "${rows[0]!.id}": run \`node scripts/patch-sqlite.mjs\` (npm install does)`,
      );
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps every row through page splits, savepoint rollbacks and transaction rollbacks on random keys', () => {
    // The fix is in the page cache's bookkeeping of page numbers, which b-tree splits move around (the rekeys it
    // concerns) and rollbacks truncate: random 128-bit keys on 2 KiB pages split pages all the time, and a cache of 64
    // pages evicts and reads them back. The table must hold exactly what committed, and be well formed.
    const dir = mkdtempSync(path.join(tmpdir(), 'motu-sqlite-split-'));
    const db = new SQLite(path.join(dir, 'split.sqlite'));
    try {
      db.pragma('page_size = 2048');
      db.pragma('journal_mode = WAL');
      db.pragma('cache_size = 64');
      db.exec('create table t (id text primary key, body text not null)');
      const insert = db.prepare('insert into t (id, body) values (?, ?)');
      const remove = db.prepare('delete from t where id = ?');
      const model = new Map<string, string>();
      for (let batch = 0; batch < 300; batch++) {
        const rollbackAll = batch % 7 === 3;
        const committed = new Map(model);
        db.exec('BEGIN IMMEDIATE');
        for (let item = 0; item < 12; item++) {
          db.exec('SAVEPOINT s');
          const staged = new Map<string, string | undefined>();
          for (let row = 0; row < 4; row++) {
            const id = randomBytes(16).toString('base64url');
            const body = randomBytes(40 + (row * 37) % 200).toString('hex');
            insert.run(id, body);
            staged.set(id, body);
          }
          const victim = batch > 0 && item % 3 === 0 ? [...committed.keys()][(batch * 31 + item) % committed.size] : undefined;
          if (victim !== undefined && model.has(victim)) {
            remove.run(victim);
            staged.set(victim, undefined);
          }
          if (item % 4 === 1) {
            db.exec('ROLLBACK TO SAVEPOINT s');
          } else {
            for (const [id, body] of staged) body === undefined ? model.delete(id) : model.set(id, body);
          }
          db.exec('RELEASE SAVEPOINT s');
        }
        if (rollbackAll) {
          db.exec('ROLLBACK');
          model.clear();
          for (const [id, body] of committed) model.set(id, body);
        } else {
          db.exec('COMMIT');
        }
      }
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const rows = db.prepare('select id, body from t').all() as { id: string; body: string }[];
      assert.equal(rows.length, model.size);
      assert.ok(model.size > 2000, `${model.size} rows`);
      for (const row of rows) assert.equal(model.get(row.id), row.body, row.id);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
