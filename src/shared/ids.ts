import { randomBytes, randomFillSync } from 'node:crypto';

// Identifiers: prefix + 22 base62 characters from 128 random bits (DESIGN.md section 3).
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export type IdPrefix =
  | 'mer' | 'cus' | 'pm' | 'pay' | 're' | 'sto' | 'mcf' | 'ses' | 'whe' | 'we' | 'del'
  | 'sub' | 'inv' | 'po' | 'dp' | 'cl' | 'key' | 'lnk' | 'att' | 'mail';

/**
 * The last `length` base62 digits of the big-endian number `bytes` (leading zeros kept). Long division on
 * the bytes with small integers: the same digits as BigInt arithmetic, without allocating one per step.
 */
export function base62(bytes: Uint8Array, length: number): string {
  const digits = Array.from(bytes);
  let out = '';
  for (let i = 0; i < length; i++) {
    let remainder = 0;
    for (let j = 0; j < digits.length; j++) {
      const value = remainder * 256 + digits[j]!;
      digits[j] = Math.floor(value / 62);
      remainder = value % 62;
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
