// Identifiers (DESIGN.md section 3): prefix + 22 base62 characters from 128 random bits; SPR- references.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { base62, newId, newPaymentReference } from '../src/shared/ids.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The definition, in BigInt arithmetic. */
function reference(bytes: Buffer, length: number): string {
  let n = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

describe('identifiers', () => {
  it('encodes 128 bits in 22 base62 digits exactly as the BigInt definition', () => {
    assert.equal(base62(Buffer.alloc(16), 22), '0'.repeat(22));
    assert.equal(base62(Buffer.alloc(16, 255), 22), reference(Buffer.alloc(16, 255), 22));
    assert.equal(base62(Buffer.from([0, 61]), 2), '0z');
    assert.equal(base62(Buffer.from([0, 62]), 2), '10');
    for (let size = 1; size <= 33; size++) {
      const bytes = randomBytes(size);
      assert.equal(base62(bytes, 45), reference(bytes, 45), `${size} bytes`);
    }
    for (let i = 0; i < 2000; i++) {
      const bytes = randomBytes(i % 2 ? 16 : 24);
      const length = i % 2 ? 22 : 32;
      assert.equal(base62(bytes, length), reference(bytes, length));
    }
  });

  it('makes distinct ids of the documented shape', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = newId('pay');
      assert.match(id, /^pay_[0-9A-Za-z]{22}$/);
      ids.add(id);
    }
    assert.equal(ids.size, 20_000);
    // 22 base62 digits hold 131 bits: the first digit of a 128-bit number is at most "7".
    assert.ok([...ids].some((id) => id[4] !== '0'));
    assert.ok([...ids].every((id) => id[4]! <= '7'));
    assert.match(newPaymentReference(), /^SPR-[A-Z2-7]{16}$/);
  });
});
