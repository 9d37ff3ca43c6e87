// The registered endpoints an event may go to, kept in the process per merchant and mode: every event read them before
// (one statement in the event's transaction). What is kept is what only the merchant changes, through WebhooksService:
// which endpoints exist (not deleted), the types each accepts and its store. Whether an endpoint is in service and its
// URL are read again by the statement that writes the deliveries (src/events/outbox.ts): the delivery worker takes an
// endpoint out of service on its own, and that write must neither be missed nor empty any cache.
//
// A list is kept while nothing it could depend on has changed: in this process, a WebhooksService write to the
// endpoints (before it, and again once its transaction has ended, committed or not); in another process, a commit seen
// through Database.referenceStamp (SQLite: PRAGMA data_version; PostgreSQL: NOTIFY motu_reference, sent by migration
// 0057's triggers when an endpoint is created or deleted or its types, store or deletion change, never for the
// worker's taking it out of service).
//
// recordEvent is handed a transaction, not the Database: the cache of a Database is found through what its
// transactions share with it (Kysely's adapter, one per Kysely instance). A Database the application did not register
// (keepEndpointsCached) reads the endpoints on every event, as before.
import type { Database, Trx } from '../db/database.js';
import type { Mode } from '../modules/merchants/merchants.table.js';

/** An endpoint as the outbox chooses targets: its id, URL, accepted types (parsed) and store. */
export interface EndpointTarget {
  readonly id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly store_id: string | null;
}

/** Changed by every WebhooksService write to the endpoints of this process (before it, and after its transaction). */
let generation = 0;

/** Runs a write of endpoints (a transaction or one statement): no list read across it is kept. */
export async function changingEndpoints<T>(write: () => Promise<T>): Promise<T> {
  generation++;
  try {
    return await write();
  } finally {
    generation++;
  }
}

export class EndpointCache {
  private readonly entries = new Map<string, readonly EndpointTarget[]>();
  private stamp: number | undefined;
  private generation = -1;

  constructor(private readonly db: Database, private readonly maxEntries = 10_000) {}

  /** The endpoints of `merchantId` and `mode` that are not deleted: from the cache, or `load` (then kept). */
  async get(merchantId: string, mode: Mode, load: () => Promise<EndpointTarget[]>): Promise<readonly EndpointTarget[]> {
    const stamp = this.db.referenceStamp();
    if (stamp === undefined) return load();
    const seen = generation;
    if (stamp !== this.stamp || seen !== this.generation) {
      this.entries.clear();
      this.stamp = stamp;
      this.generation = seen;
    }
    const key = `${merchantId}:${mode}`;
    const kept = this.entries.get(key);
    if (kept !== undefined) return kept;
    const value = Object.freeze((await load()).map((e) => Object.freeze({ ...e, events: Object.freeze([...e.events]) })));
    if (this.db.referenceStamp() === stamp && generation === seen) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }
}

/** A Database's cache, by the adapter its Kysely instance and every transaction of it share. */
const caches = new WeakMap<object, EndpointCache>();

const adapterOf = (kysely: Trx | Database['kysely']): object => kysely.getExecutor().adapter;

/** From now on recordEvent on a transaction of `db` reads the endpoints from a cache of this process. */
export function keepEndpointsCached(db: Database): void {
  const adapter = adapterOf(db.kysely);
  if (!caches.has(adapter)) caches.set(adapter, new EndpointCache(db));
}

/** The cache of the Database `trx` belongs to, if it was registered. */
export function endpointCacheOf(trx: Trx): EndpointCache | undefined {
  return caches.get(adapterOf(trx));
}
