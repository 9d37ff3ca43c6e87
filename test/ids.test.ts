// Identifiers: prefix + 22 base62 characters from 128 random bits, or from the time and 80 random bits (the books'
// rows); SPR- references.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { base62, newId, newPaymentReference, newTimeOrderedId } from '../src/shared/ids.js';

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

  it('makes SPR- references that are distinct and sort in the order they were made, within a millisecond and over a clock set back', () => {
    const made: string[] = [];
    const start = Date.now();
    for (let i = 0; i < 5_000; i++) made.push(newPaymentReference(start)); // one millisecond
    made.push(newPaymentReference(start - 60_000)); // the clock set back a minute
    made.push(newPaymentReference(start + 1), newPaymentReference(start + 3_600_000));
    for (const r of made) assert.match(r, /^SPR-[A-Z2-7]{16}$/);
    assert.equal(new Set(made).size, made.length);
    // Base32 digits in this alphabet do not sort as characters (A…Z before 2…7): compare their values.
    const value = (r: string) => [...r.slice(4)].reduce((n, c) => n * 32n + BigInt('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(c)), 0n);
    for (let i = 1; i < made.length; i++) assert.ok(value(made[i]!) > value(made[i - 1]!), `${made[i]} after ${made[i - 1]}`);
    // The high digits are the time: an hour later is a larger number by about 3.6e6 × 2^38.
    const hour = value(made.at(-1)!) - value(made.at(-2)!);
    assert.ok(hour > 3_599_000n * 2n ** 38n && hour < 3_601_000n * 2n ** 38n, String(hour));
  });

  it('makes time-ordered ids of the same shape, distinct within a millisecond, sorting as characters by their time', () => {
    const now = Date.now();
    const oneMs = Array.from({ length: 20_000 }, () => newTimeOrderedId('txn', now));
    for (const id of oneMs) assert.match(id, /^txn_[0-9A-Za-z]{22}$/);
    assert.equal(new Set(oneMs).size, oneMs.length);
    // The 80 low bits are random: within one millisecond the ids are not all alike past the time's digits.
    assert.ok(new Set(oneMs.map((id) => id.slice(-8))).size > 19_000);
    const later = [now + 1, now + 1_000, now + 3_600_000, now + 86_400_000 * 365].map((t) => newTimeOrderedId('lpo', t));
    const all = [newTimeOrderedId('lpo', now - 1), ...oneMs.map((id) => `lpo${id.slice(3)}`), ...later];
    const sorted = [...all].sort();
    // Every id of an earlier millisecond sorts before every id of a later one, as plain strings.
    assert.equal(sorted[0], all[0]);
    assert.deepEqual(sorted.slice(-later.length), later);
    // The leading digits are the milliseconds since 2020-01-01: decoded, the number divided by 2^80.
    const value = (id: string) => [...id.slice(4)].reduce((n, c) => n * 62n + BigInt(ALPHABET.indexOf(c)), 0n);
    assert.equal(value(oneMs[0]!) / 2n ** 80n, BigInt(now - Date.UTC(2020, 0, 1)));
    assert.equal(value(newTimeOrderedId('txn', Date.UTC(2000, 0, 1))) / 2n ** 80n, 0n);
  });
});
