import { randomBytes } from 'node:crypto';

// Identifiers: prefix + 22 base62 characters from 128 random bits (DESIGN.md section 3).
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export type IdPrefix =
  | 'mer' | 'cus' | 'pm' | 'pay' | 're' | 'sto' | 'mcf' | 'ses' | 'whe' | 'we' | 'del'
  | 'sub' | 'inv' | 'po' | 'dp' | 'cl' | 'key' | 'lnk' | 'att';

export function base62(bytes: Buffer, length: number): string {
  let n = BigInt('0x' + bytes.toString('hex'));
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62(randomBytes(16), 22)}`;
}

/** A random base62 string of the given length (secret keys, webhook secrets). */
export function randomToken(length: number): string {
  // 6 bytes of entropy per 8 characters is ample; draw enough bytes for the length asked.
  return base62(randomBytes(Math.ceil(length * 0.75) + 1), length);
}

/** Payment reference in events: `SPR-` + 16 base32 characters. */
export function newPaymentReference(): string {
  const bytes = randomBytes(10);
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
