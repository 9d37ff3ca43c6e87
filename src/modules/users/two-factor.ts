// Two-factor authentication: TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps; otpauth) and single-use recovery
// codes. A code is accepted one step either side of now (clock drift), and never twice: the step it was accepted for
// is kept, and a code of that step or an earlier one is refused afterwards (RFC 6238 section 5.2).
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { sha256Hex } from '../../shared/hash.js';

const PERIOD_SECONDS = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function totpFor(secretBase32: string, email: string): TOTP {
  return new TOTP({ issuer: 'Motu', label: email, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** The time step `code` is valid for (now ± 1 step), or null. */
export function totpStep(secretBase32: string, code: string, now: Date): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpFor(secretBase32, '').validate({ token, timestamp: now.getTime(), window: 1 });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / PERIOD_SECONDS) + delta;
}

// RFC 4648's base32 alphabet in lower case: 32 symbols, so a byte modulo 32 is uniform.
const RECOVERY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** Ten codes such as `k7dm-x2qp-9h`, to write down; each signs in once instead of a TOTP code. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: 10 }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 10)}`;
  });
}

/** A recovery code as stored: its hash, whatever the case and dashes it was typed with. */
export function recoveryCodeHash(code: string): string {
  return sha256Hex(code.toLowerCase().replace(/[^a-z0-9]/g, ''));
}
