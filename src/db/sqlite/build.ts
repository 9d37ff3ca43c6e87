// Which SQLite Motu runs on: better-sqlite3's own build (what `npm install` gives), or the one `npm run sqlite:patched`
// rebuilds with the page cache fix of scripts/patch-sqlite.mjs, which marks it at the end of sqlite_source_id()
// (docs/performance.md, "Sessions on SQLite: the page cache's full scan at COMMIT").
import { sql, type Kysely } from 'kysely';

/** What scripts/patch-sqlite.mjs appends to SQLITE_SOURCE_ID (keep the two in step). */
export const PAGE_CACHE_FIX_MARK = 'motu-pcache-rekey';

export interface SqliteBuild {
  /** sqlite_source_id(): the release's date and check-in hash, and the mark when patched. */
  sourceId: string;
  version: string;
  /** Whether this build carries the page cache fix (`npm run sqlite:patched`). */
  pageCacheFix: boolean;
}

export async function sqliteBuild(kysely: Kysely<any>): Promise<SqliteBuild> {
  const { rows } = await sql<{ id: string; version: string }>`select sqlite_source_id() as id, sqlite_version() as version`.execute(kysely);
  const sourceId = rows[0]!.id;
  return { sourceId, version: rows[0]!.version, pageCacheFix: sourceId.endsWith(` ${PAGE_CACHE_FIX_MARK}`) };
}
