// Rows that nearly every request reads and that almost never change (API keys, a merchant's stores and contracts, a
// platform's links to its sellers, the agencies' mandates), kept in the process while Database.referenceStamp stays the
// same: any write naming their tables by this process, any rollback of one, and any commit by another process (SQLite:
// PRAGMA data_version; PostgreSQL: NOTIFY motu_reference) changes the stamp and empties the cache. While the stamp is
// unknown (PostgreSQL before its listener is connected, or after it was lost) every call loads.
import type { Database } from './adapter.js';

/** The tables whose rows may be cached in the process (Database.referenceStamp tells when they may have changed). */
export const REFERENCE_TABLES = /\b(merchants|stores|contracts|api_keys|platform_links|agency_mandates)\b/i;

export class ReferenceCache {
  private readonly entries = new Map<string, unknown>();
  private stamp: number | undefined;

  constructor(private readonly db: Database, private readonly maxEntries = 10_000) {}

  /**
   * The value `load` gives for `key`, from the cache when nothing it could depend on has changed since. Values are
   * frozen. `keep` decides which values are kept (say, not an unknown key's `undefined`).
   */
  async get<T>(key: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    const stamp = this.db.referenceStamp();
    if (stamp === undefined) return load();
    if (stamp !== this.stamp) {
      this.entries.clear();
      this.stamp = stamp;
    }
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const value = deepFreeze(await load());
    if (keep(value) && this.db.referenceStamp() === stamp) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
