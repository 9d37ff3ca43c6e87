// Signing secrets as the delivery worker needs them, opened (decrypted) once per merchant and mode instead of
// read and opened for every claimed batch.
//
// Freshness:
// - In this process, `forgetSigningSecrets(merchantId, mode)` is called by the rotation (WebhooksService) after its
//   transaction commits and before the call returns. It drops the entry and bumps a generation counter; a load
//   that was already reading the database when the generation moved is thrown away and read again. So once
//   `rotate` has returned, nothing in this process signs with the secret it replaced.
// - Another process (a `--role worker` process on PostgreSQL) learns of a rotation only when its entry expires:
//   entries live SECRET_TTL_MS (5 s). For up to that long after a rotation made elsewhere, a worker process may
//   still sign with the old secret (as the only secret, without X-Service-Signature-V2-Previous).
// - The previous secret's 24-hour grace is checked at signing time against the clock, not when loading.
import type { Database } from '../db/database.js';
import type { Mode } from '../modules/merchants/merchants.table.js';
import type { SecretBox } from '../shared/secret-box.js';
import type { SigningSecrets } from './signer.js';

export const SECRET_TTL_MS = 5_000;

interface Entry {
  secret: string;
  previous: string | null;
  previousValidUntil: number;
  loadedAt: number;
}

let generation = 0;
const caches = new Set<Map<string, Entry>>();

/** Called by the rotation once its transaction has committed: no signing with the old secret from here on. */
export function forgetSigningSecrets(merchantId: string, mode: Mode): void {
  generation++;
  for (const cache of caches) cache.delete(`${merchantId}:${mode}`);
}

export class SigningSecretCache {
  private readonly entries = new Map<string, Entry>();
  /** The read under way for a key, which a caller wanting the same key waits for. */
  private readonly loading = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly ttlMs = SECRET_TTL_MS,
  ) {
    caches.add(this.entries);
  }

  /** Drops this cache from the rotation's reach (worker stopped). */
  close(): void {
    caches.delete(this.entries);
    this.entries.clear();
  }

  /**
   * The secrets to sign with at `now` (business time, for the previous secret's grace) if this cache holds a fresh
   * entry; undefined when it must be loaded first (`load`). Synchronous, so a caller that signs right after this
   * call cannot be overtaken by a rotation.
   */
  cached(merchantId: string, mode: Mode, now: number): SigningSecrets | undefined {
    const entry = this.entries.get(`${merchantId}:${mode}`);
    if (!entry || Date.now() - entry.loadedAt >= this.ttlMs) return undefined;
    return toSecrets(entry, now);
  }

  /**
   * Loads, in one query, the secrets of every `merchantId:mode` key given that is missing or expired. A key another
   * call is loading already is waited for, not read again: when the entries expire together (every 5 s, or at the
   * start), each send in flight would otherwise read the same rows at the same moment.
   */
  async load(keys: Iterable<string>): Promise<void> {
    const wall = Date.now();
    const waits: Promise<void>[] = [];
    const toRead: string[] = [];
    for (const k of new Set(keys)) {
      const e = this.entries.get(k);
      if (e && wall - e.loadedAt < this.ttlMs) continue;
      const loading = this.loading.get(k);
      if (loading) waits.push(loading);
      else toRead.push(k);
    }
    if (toRead.length > 0) {
      const read = this.read(toRead);
      for (const k of toRead) this.loading.set(k, read);
      waits.push(read);
    }
    await Promise.all(waits);
  }

  private async read(keys: string[]): Promise<void> {
    const merchantIds = [...new Set(keys.map((k) => k.slice(0, k.lastIndexOf(':'))))];
    try {
      for (;;) {
        const seen = generation;
        const loadedAt = Date.now();
        const rows = await this.db.kysely.selectFrom('webhook_secrets').selectAll().where('merchant_id', 'in', merchantIds).execute();
        // A rotation committed while we were reading: what we read may be the old secret. Read again.
        if (seen !== generation) continue;
        for (const s of rows) {
          this.entries.set(`${s.merchant_id}:${s.mode}`, {
            secret: this.box.open(s.secret),
            previous: s.previous_secret ? this.box.open(s.previous_secret) : null,
            previousValidUntil: s.previous_valid_until ? Date.parse(s.previous_valid_until) : 0,
            loadedAt,
          });
        }
        return;
      }
    } finally {
      // In the same turn as the entries are set: a caller after this either finds them or reads again.
      for (const k of keys) this.loading.delete(k);
    }
  }
}

function toSecrets(e: Entry, now: number): SigningSecrets {
  return { secret: e.secret, previous: e.previous && e.previousValidUntil > now ? e.previous : null };
}
