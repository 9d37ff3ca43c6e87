import { hash } from 'node:crypto';

/** SHA-256 of a UTF-8 string or of bytes, hex. One-shot `crypto.hash`: a third of `createHash(…).update(…).digest(…)`'s cost. */
export function sha256Hex(value: string | Buffer): string {
  return hash('sha256', value, 'hex');
}
