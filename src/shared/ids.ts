import { createHash, createHmac, randomBytes, randomFillSync } from 'node:crypto';

// Identifiers: prefix + 22 base62 characters from 128 random bits (DESIGN.md section 3).
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export type IdPrefix =
  | 'mer' | 'cus' | 'pm' | 'pay' | 're' | 'sto' | 'mcf' | 'ses' | 'whe' | 'we' | 'del'
  | 'sub' | 'inv' | 'po' | 'dp' | 'cl' | 'key' | 'lnk' | 'att' | 'mail';

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
function pooledRandom(size: number): Uint8Array {
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
 * 24 hours (DESIGN.md section 9), after which the same key is a new request and names a new object. Half the
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

/** Payment reference in events: `SPR-` + 16 base32 characters. */
export function newPaymentReference(): string {
  const bytes = pooledRandom(10);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `SPR-${out.slice(0, 16)}`;
}
