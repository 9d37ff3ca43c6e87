// Back-office passwords: argon2id (memory-hard; @node-rs/argon2 with its defaults, m = 19 MiB, t = 2, p = 1, the
// parameters OWASP's password storage guidance gives for argon2id). Hashing runs on libuv's thread pool.
import { hash, verify } from '@node-rs/argon2';
import { invalidField } from '../../shared/errors.js';

export const PASSWORD_MIN_LENGTH = 12;
const PASSWORD_MAX_LENGTH = 256;

export function checkPasswordRules(password: string, field = 'password'): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw invalidField(field, `must have ${PASSWORD_MIN_LENGTH} characters or more`);
  if (password.length > PASSWORD_MAX_LENGTH) throw invalidField(field, `must have ${PASSWORD_MAX_LENGTH} characters or fewer`);
}

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

let dummy: Promise<string> | null = null;

/**
 * The hash checked when there is none to check (an unknown address): made by hashPassword, so with the same
 * parameters and the same cost as a user's. Made once per process; UsersService asks for it when it starts, so the
 * first unknown address does not pay for it.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword('motu dummy password, never anyone’s');
  return dummy;
}

/**
 * Whether `password` is the one `stored` was made from. Without a stored hash (an unknown address, a user who has not
 * set a password) the dummy hash is checked all the same, so the answer takes as long and tells nothing.
 */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    await verify(await dummyHash(), password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
