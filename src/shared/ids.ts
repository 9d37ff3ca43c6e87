import { createHash, createHmac, randomBytes, randomFillSync } from 'node:crypto';

// Identifiers: prefix + 22 base62 characters from 128 random bits (unguessable: a session id is a bearer capability),
// or from the creation time and 80 random bits for the rows that are no capability (newTimeOrderedId).
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export type IdPrefix =
  | 'plk' | 'obs' | 'obc'
  | 'mer' | 'clk' | 'cn' | 'ipy' | 'cus' | 'pm' | 'pay' | 're' | 'sto' | 'mcf' | 'ses' | 'whe' | 'we' | 'del'
  | 'sub' | 'inv' | 'po' | 'dp' | 'cl' | 'key' | 'lnk' | 'att' | 'mail' | 'txn' | 'lpo' | 'mat' | 'ba' | 'usr' | 'aud'
  | 'mdt' | 'agi';

/**
 * The last `length` base62 digits of the big-endian number `bytes` (leading zeros kept). Long division on 32-bit
 * words with plain numbers (remainder × 2^32 + word < 2^38, exact): the same digits as BigInt arithmetic, without
 * allocating one per step. `bytes.length` is a multiple of 4 (16 for identifiers), or the words start with a partial one.
 */
export function base62(bytes: Uint8Array, length: number): string {
  const words: number[] = [];
  const head = bytes.length % 4;
  let word = 0;
  for (let i = 0; i < bytes.length; i++) {
    word = word * 256 + bytes[i]!;
    if ((i + 1 - head) % 4 === 0) {
      words.push(word);
      word = 0;
    }
  }
  let out = '';
  for (let i = 0; i < length; i++) {
    let remainder = 0;
    for (let j = 0; j < words.length; j++) {
      const value = remainder * 4294967296 + words[j]!;
      const quotient = Math.floor(value / 62);
      remainder = value - quotient * 62;
      words[j] = quotient;
    }
    out = ALPHABET[remainder] + out;
  }
  return out;
}

// Identifiers are drawn from a pool of CSPRNG bytes refilled 4 KiB at a time (as uuid and Node's randomUUID
// do): one system call per 256 identifiers instead of one each.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** `size` (≤ 64) fresh random bytes; valid until the next call. */
export function pooledRandom(size: number): Uint8Array {
  if (poolOffset + size > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += size;
  return pool.subarray(poolOffset - size, poolOffset);
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62(pooledRandom(16), 22)}`;
}

/**
 * An identifier of the same shape whose leading digits are its creation time: `prefix_` + 22 base62 digits of the
 * 128-bit number (milliseconds since 2020-01-01, 48 bits) × 2^80 + 80 random bits. For the rows a payment writes that
 * are never a bearer capability: the books (a balance transaction, a posting), the payment and its refunds, the events,
 * their deliveries and attempts, the simulator's cards and authorizations. With random ids each row went to a random
 * leaf page of every index keyed by its id or by its parent's (the primary keys, `ledger_postings_once`,
 * `webhook_deliveries_event`, `balance_transactions_payment`, …), each page then written whole to SQLite's WAL, fsynced
 * and copied by the checkpoint, and on PostgreSQL to its WAL and shared buffers. Ids made close together share their
 * leading digits (base62 digits sort as characters in this alphabet), so a payment's rows land together at the end of
 * those indexes (docs/performance.md). Unique by their 80 random bits (within a millisecond). Not secret: they tell
 * the creation time, which the row shows anyway; an id that is a bearer capability (a session, a card token, the page
 * of a 3-D Secure challenge) stays wholly random. Rows made before keep their random ids, and both kinds live side
 * by side: nothing may take ids to sort by time (lists order by `created_at`, then by id only to break ties; events
 * by their `seq`).
 */
export function newTimeOrderedId(prefix: IdPrefix, now = Date.now()): string {
  return `${prefix}_${timeOrderedDigits(now)}`;
}

/** The 22 digits of newTimeOrderedId, for an id whose prefix is not one of IdPrefix (the simulated acquirer's). */
export function timeOrderedDigits(now = Date.now()): string {
  orderedBytes.writeUIntBE(Math.min(Math.max(now - REFERENCE_EPOCH_MS, 0), 2 ** 48 - 1), 0, 6);
  orderedBytes.set(pooledRandom(10), 6);
  return base62(orderedBytes, 22);
}

const orderedBytes = Buffer.alloc(16);

/**
 * The id of the object a request under an Idempotency-Key creates: `prefix_` + 22 base62 digits of the first 128
 * bits of SHA-256(parts joined by newlines). The same parts always name the same object, so a retry that runs the
 * route again after the first run was killed mid-way finds what that run committed instead of creating a second
 * one (docs/reliability.md). Same shape and uniformity as a random id. Parts must not contain newlines (ids,
 * modes and Idempotency-Keys, which are printable ASCII, never do).
 *
 * Not secret: anyone who knows the parts can compute the id. For an id that is a bearer capability (a `ses_` the
 * browser holds), pass `secret` (a server-side key): the digest is then an HMAC-SHA-256 and the id stays unguessable.
 */
export function idFromKey(prefix: IdPrefix, parts: readonly string[], secret?: Uint8Array): string {
  const data = parts.join('\n');
  const digest = secret ? createHmac('sha256', secret).update(data).digest() : createHash('sha256').update(data).digest();
  return `${prefix}_${base62(digest.subarray(0, 16), 22)}`;
}

/**
 * An object created under an Idempotency-Key more than this long ago belongs to an earlier use of the key: keys live
 * 24 hours, after which the same key is a new request and names a new object. Half the
 * lifetime leaves hours of margin both ways (a retry comes within minutes; an earlier use ended ≥ 24 h ago).
 */
export const KEY_REUSE_AFTER_MS = 12 * 3600 * 1000;

/**
 * The id the current use of an Idempotency-Key names, and the object an earlier run of the same request created
 * under it (undefined: none, create it with `id`). `derive(use)` is the id of the key's `use`-th use (0 for the first,
 * so ids derived before reuse was told apart are unchanged); `find` reads the object with that id and its
 * `created_at`. An object older than KEY_REUSE_AFTER_MS belongs to an earlier use: the next use's id is tried.
 */
export async function idForKeyUse<T extends { created_at: string }>(
  derive: (use: number) => string,
  find: (id: string) => Promise<T | undefined>,
  now: Date,
): Promise<{ id: string; use: number; earlier: T | undefined }> {
  for (let use = 0; ; use++) {
    const id = derive(use);
    const earlier = await find(id);
    if (!earlier || Date.parse(earlier.created_at) > now.getTime() - KEY_REUSE_AFTER_MS) return { id, use, earlier };
  }
}

/** The parts of a key's `use`-th use: the first use's alone, later ones with `#use` appended. */
export function keyUseParts(parts: readonly string[], use: number): string[] {
  return use === 0 ? [...parts] : [...parts, `#${use}`];
}

/** A random base62 string of the given length (secret keys, webhook secrets). */
export function randomToken(length: number): string {
  // 6 bytes of entropy per 8 characters is ample; draw enough bytes for the length asked.
  return base62(randomBytes(Math.ceil(length * 0.75) + 1), length);
}

/**
 * Payment reference in events: `SPR-` + 16 base32 characters, the 80-bit number (milliseconds since 2020-01-01) × 2^38
 * + a counter: as numbers they increase with creation time, and references made close together share their
 * leading characters, so each new one lands on the page of the unique index on `payments.reference` that the last one
 * went to, instead of on a random page of it. (As strings they do not sort by time: in this alphabet the digits 2–7,
 * worth 26–31, sort before A.) On SQLite a random key dirties one more index page per
 * payment, written to the WAL, fsynced and checkpointed (docs/performance.md, "Sessions on SQLite"). The 42 bits of
 * time last until 2159. Within a process references only increase (the counter goes on within a millisecond, and
 * over a clock set back); the counter starts each new millisecond at a random number below 2^37, so that two processes
 * (PostgreSQL) collide only if they start within a few counts of each other in the same millisecond: about 2^-34 per
 * millisecond in which both create payments, and then the unique index refuses the second (an error, never a
 * duplicate). A reference is no secret: it tells the creation time, which the payment shows anyway.
 */
export function newPaymentReference(now = Date.now()): string {
  const ms = Math.max(now - REFERENCE_EPOCH_MS, 0);
  if (ms > referenceMs) {
    referenceMs = ms;
    const random = pooledRandom(5);
    // 37 random bits: 5 from the first byte, 32 from the rest.
    referenceCount = (random[0]! & 0x1f) * 2 ** 32 + (((random[1]! << 24) | (random[2]! << 16) | (random[3]! << 8) | random[4]!) >>> 0);
  } else if (++referenceCount >= 2 ** 38) {
    referenceMs++; // a quarter of a trillion in one millisecond: borrow the next one
    referenceCount = 0;
  }
  // 80 bits as base32: the high 40 (ms's top 40) and the low 40 (ms's last 2 bits, then the 38 of the counter).
  const high = Math.floor(referenceMs / 4);
  const low = (referenceMs % 4) * 2 ** 38 + referenceCount;
  return `SPR-${base32(high)}${base32(low)}`;
}

const REFERENCE_EPOCH_MS = Date.UTC(2020, 0, 1);
let referenceMs = -1;
let referenceCount = 0;

/** 8 base32 digits of a number below 2^40 (leading zeros kept). */
function base32(value: number): string {
  let out = '';
  for (let i = 0; i < 8; i++) {
    const digit = value % 32;
    out = BASE32[digit] + out;
    value = (value - digit) / 32;
  }
  return out;
}
