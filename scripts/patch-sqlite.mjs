// `npm run sqlite:patched` (opt-in): rebuilds better-sqlite3's SQLite with one fix to its page cache (docs/performance.md,
// "Sessions on SQLite: the page cache's full scan at COMMIT", where the report for SQLite's maintainers is written).
// `npm install` does not run it: it takes about a minute and needs a C compiler and Node's headers.
//
// SQLite's b-tree, when it splits a page and the new pages' numbers are out of order, swaps two of them through a
// temporary page number: the lock page, 1 GiB into the file (balance_nonroot). The page cache then records that number
// as the largest it has seen (pcache1Rekey), although no page keeps it. At the next COMMIT the pager drops the pages past
// the end of the database (pcache1Truncate), finds a largest number far beyond the end, and walks its whole hash table,
// every bucket and every page, instead of the few buckets past the end. With indexes on random identifiers most
// batches split a page, so most COMMITs walked the whole cache (16 MiB of 2 KiB pages). The fix: a rekey to the lock
// page does not raise the largest number seen. No page ever stays on the lock page (the swap moves it on at once, and
// SQLite never stores a page there), so the cache's invariant, every page's number at most the largest seen, holds.
//
// What it does: if the installed binary does not carry the fix (its sqlite_source_id() ends with MARK), it copies the
// package to a temporary directory, patches deps/sqlite3/sqlite3.c there, builds it with npm's node-gyp (about a
// minute), checks the result and only then puts the new binary in place. If anything fails, it says so, exits 1 and
// leaves the installed binary as it was: Motu works unchanged, its COMMITs are only slower. Motu logs which build it
// runs on at start (`motu started`, `sqlite.pageCacheFix`). The way back to better-sqlite3's own build is
// `npm rebuild better-sqlite3`; run `npm run sqlite:patched` again after that, or after an `npm install` that updated
// better-sqlite3. MARK is also src/db/sqlite/build.ts's PAGE_CACHE_FIX_MARK.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const MARK = 'motu-pcache-rekey';

const REKEY = `  pCache->apHash[hNew] = pPage;
  if( iNew>pCache->iMaxKey ){
    pCache->iMaxKey = iNew;
  }`;
const REKEY_FIXED = `  pCache->apHash[hNew] = pPage;
  /* ${MARK}: balance_nonroot() parks a page on the lock page's number for an instant; no page stays there, and
  ** counting it would make the next pcache1Truncate() walk the whole hash table. */
  if( iNew>pCache->iMaxKey && iNew!=(unsigned int)(PENDING_BYTE/pCache->szPage)+1 ){
    pCache->iMaxKey = iNew;
  }`;
const SOURCE_ID = /^(#define SQLITE_SOURCE_ID\s+"[^"]*)"/m;

function say(message) {
  console.log(`motu: ${message}`);
}

/** The fix was asked for and is not there: said, and `npm run sqlite:patched` exits 1. */
function notApplied(reason) {
  process.exitCode = 1;
  say(`SQLite page cache fix NOT applied: ${reason}`);
}

/** The sqlite_source_id() of the better_sqlite3.node at `binary`, or undefined if it does not load. */
function sourceId(packageDir, binary) {
  const probe = `const D = require(${JSON.stringify(packageDir)});` +
    `const db = new D(':memory:', { nativeBinding: ${JSON.stringify(binary)} });` +
    `process.stdout.write(db.prepare('select sqlite_source_id()').pluck().get());`;
  const result = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout : undefined;
}

function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    path.join(path.dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'),
  ];
  return candidates.find((file) => file && existsSync(file));
}

function main() {
  const require = createRequire(import.meta.url);
  let packageDir;
  try {
    packageDir = path.dirname(require.resolve('better-sqlite3/package.json'));
  } catch {
    return notApplied('better-sqlite3 is not installed (run npm install first)');
  }
  const binary = path.join(packageDir, 'build/Release/better_sqlite3.node');
  const installed = existsSync(binary) ? sourceId(packageDir, binary) : undefined;
  if (installed?.endsWith(MARK)) return say('SQLite already carries the page cache fix; nothing to do');

  const sourceFile = path.join(packageDir, 'deps/sqlite3/sqlite3.c');
  const source = existsSync(sourceFile) ? readFileSync(sourceFile, 'utf8') : '';
  if (source.split(REKEY).length !== 2 || !SOURCE_ID.test(source)) {
    return notApplied('this better-sqlite3 has no SQLite source Motu knows (docs/performance.md)');
  }
  const gyp = nodeGyp();
  if (!gyp) return notApplied("npm's node-gyp was not found");

  const work = mkdtempSync(path.join(tmpdir(), 'motu-sqlite-'));
  try {
    say('building SQLite with the page cache fix (about a minute)');
    const copy = path.join(work, 'better-sqlite3');
    cpSync(packageDir, copy, { recursive: true, filter: (from) => !from.startsWith(path.join(packageDir, 'build')) });
    writeFileSync(
      path.join(copy, 'deps/sqlite3/sqlite3.c'),
      source.replace(REKEY, REKEY_FIXED).replace(SOURCE_ID, `$1 ${MARK}"`),
    );
    // Node's own headers when they are installed beside it (npm passes its `nodedir` setting in the environment):
    // otherwise node-gyp downloads them.
    const prefix = path.resolve(path.dirname(process.execPath), '..');
    const nodedir = process.env.npm_config_nodedir || (existsSync(path.join(prefix, 'include/node/node.h')) ? prefix : undefined);
    const args = [gyp, 'rebuild', '--release', ...(nodedir ? [`--nodedir=${nodedir}`] : [])];
    const build = spawnSync(process.execPath, args, { cwd: copy, encoding: 'utf8' });
    const built = path.join(copy, 'build/Release/better_sqlite3.node');
    if (build.status !== 0 || !existsSync(built)) {
      process.stderr.write(build.stderr.slice(-4000));
      return notApplied('the build failed (output above); the installed binary is unchanged');
    }
    if (!sourceId(packageDir, built)?.endsWith(MARK)) {
      return notApplied('the new build does not load; the installed binary is unchanged');
    }
    // Into the package's directory first, then renamed over the old binary: a process loading it sees one or the other.
    const staged = `${binary}.motu`;
    cpSync(built, staged);
    renameSync(staged, binary);
    say('SQLite built with the page cache fix (the way back: npm rebuild better-sqlite3)');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
