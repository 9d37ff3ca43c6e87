// The data folder holds the database (every payment, customer and webhook secret) and secrets.key: only the
// service's own user may read it. Created 0700, files 0600; a folder or file found looser (made by an older version,
// or by hand) is tightened at start, as secrets.key always was.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir, 0o700);
}

/** Creates `file` empty with mode 0600 if it does not exist; tightens it to 0600 if it does and is looser. */
export function ensurePrivateFile(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  tighten(file, 0o600);
}

/** Tightens an existing file to 0600 when group or others may read it; a missing one is left missing. */
export function tightenIfPresent(file: string): void {
  if (existsSync(file)) tighten(file, 0o600);
}

function tighten(target: string, mode: number): void {
  if ((statSync(target).mode & 0o077) !== 0) chmodSync(target, mode);
}
