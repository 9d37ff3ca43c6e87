// How `motu` fails: three exit codes, and one JSON shape on stdout for every failure, each with a hint telling the
// user what to do next. Expected failures (configuration, validation, an id that does not exist, an unreachable
// database or server, a refused key) never print a stack trace; only a bug does, on stderr.
import { AppError, type ErrorBody, type FieldError } from '../../shared/errors.js';

/** 0: done. 1: the command ran and the operation failed or was refused. 2: the command line itself is wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export interface CliErrorBody {
  code: string;
  message: string;
  fields?: FieldError[];
  details?: Record<string, unknown>;
  hint: string;
}

/** A failure of the command line itself or of what it talks to, with the hint to print and the exit code. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint: string,
    readonly exitCode: number = EXIT.failed,
    readonly details?: Record<string, unknown>,
    readonly fields?: FieldError[],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function usageError(message: string, hint: string): CliError {
  return new CliError('USAGE_ERROR', message, hint, EXIT.usage);
}

/** The next step for an error code of the service (shared/errors.ts); codes not named here get the generic hint. */
const HINTS: Partial<Record<string, string>> = {
  VALIDATION_ERROR: 'Fix the value named in "fields" and run the command again; `{command} --help` lists its options and their values.',
  NOT_FOUND: 'Check the id: the list commands print them (`motu merchants list`, `motu merchants get ID` for its contracts and stores). '
    + 'It must exist in the database this command opened (DATABASE_URL, else the SQLite file in MOTU_DATA_DIR).',
  ALREADY_EXISTS: 'Something with this name or code exists already: pick another, or change the existing one with its update command.',
  UNAUTHORIZED: 'The key was refused: pass a current secret key with --key (or MOTU_SECRET_KEY); `motu keys create --merchant ID --mode test` makes one.',
  PERMISSION_DENIED: 'This key may not do that: use a write key attached to no store (`motu keys create --merchant ID --mode test`).',
  RATE_LIMITED: 'Too many calls with this key: wait a moment and run the command again.',
  OPERATOR_ACCOUNT_NOT_CONFIGURED: 'Set MOTU_OPERATOR_NAME and MOTU_OPERATOR_IBAN (and MOTU_OPERATOR_BIC) in the environment, then run the command again.',
  ACQUIRER_NOT_CONFIGURED: 'Connect the contract to Monext first: `motu contracts update ID --acquirer monext --monext-…` (docs/live.md).',
  BUSINESS_RULE_VIOLATION: 'The object is not in a state that allows this: read the message, and `motu … get` the object to see where it stands.',
  PAYMENT_NOT_DISPUTABLE: 'Only a captured payment with an amount left (not refunded nor disputed yet) can be disputed: `motu payments get ID` shows its amounts.',
  DISPUTE_CLOSED: 'The dispute is closed already: nothing more to record.',
  PAYOUT_NOT_PENDING: 'Only a live payout still waiting for the bank can be answered: `motu payouts transfers-xml --date …` lists them.',
  INSUFFICIENT_BALANCE: 'The balance does not cover this: check it in the back-office or with GET /api/v1/balance.',
  LAST_OWNER: 'A merchant keeps at least one owner: make another user owner first.',
  SERVICE_UNAVAILABLE: 'The service is busy or a dependency is down: run the command again in a moment.',
  INTERNAL_ERROR: 'This is a bug: the server log has the details under the request id.',
};

const GENERIC_HINT = 'The service refused the operation: read the message, correct the input or the object\'s state, and run the command again.';

/** `{command}` in a hint is the command being run (`motu users create`). */
function hintFor(code: string, command: string): string {
  return (HINTS[code] ?? GENERIC_HINT).replaceAll('{command}', command);
}

/** An error answer of the HTTP API (`{code, message, details?, fields?}`) or of a service, with its hint. */
export function fromErrorBody(body: ErrorBody, command: string): CliErrorBody {
  const out: CliErrorBody = { code: body.code, message: body.message, hint: hintFor(body.code, command) };
  if (body.fields) out.fields = body.fields;
  if (body.details) out.details = body.details;
  return out;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/** The `code` of an error or of its cause (fetch and pg wrap the socket's error; an AggregateError holds several). */
export function systemCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const inner = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(inner) && inner.length > 0) {
      const found = systemCode(inner[0]);
      if (found) return found;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isNetworkError(err: unknown): boolean {
  const code = systemCode(err);
  return code !== undefined && NETWORK_CODES.has(code);
}

/** host:port/database of a PostgreSQL URL, never its user or password. */
function databaseAddress(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'the address in DATABASE_URL';
  }
}

/**
 * A database that cannot be opened, as a CliError; undefined for any other error. PostgreSQL: the server cannot be
 * reached (socket errors), refuses the credentials (SQLSTATE class 28) or has no such database (3D000). SQLite: the
 * data folder cannot be written.
 */
export function databaseError(err: unknown, databaseUrl: string | undefined): CliError | undefined {
  const code = systemCode(err);
  if (!code) return undefined;
  if (databaseUrl) {
    const where = databaseAddress(databaseUrl);
    if (NETWORK_CODES.has(code)) {
      return new CliError('DATABASE_UNREACHABLE', `Cannot reach PostgreSQL at ${where} (${code})`,
        'Start PostgreSQL or correct DATABASE_URL (postgres://user:password@host:5432/database); unset DATABASE_URL to use the embedded SQLite database in MOTU_DATA_DIR.');
    }
    if (code.startsWith('28')) {
      return new CliError('DATABASE_UNREACHABLE', `PostgreSQL at ${where} refused the user or password (${code})`,
        'Correct the user and password in DATABASE_URL.');
    }
    if (code === '3D000') {
      return new CliError('DATABASE_UNREACHABLE', `PostgreSQL at ${where} has no such database`,
        'Create the database (createdb …) or correct its name at the end of DATABASE_URL.');
    }
    return undefined;
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'EACCES' || code === 'EROFS' || code === 'ENOTDIR') {
    return new CliError('DATABASE_UNREACHABLE', `Cannot open the SQLite database in MOTU_DATA_DIR (${code})`,
      'Point MOTU_DATA_DIR at a folder this user can write (it is created when missing), or set DATABASE_URL to use PostgreSQL.');
  }
  return undefined;
}

/** What the user sees for an error thrown by a command's action. `command` is the command's path (`motu users create`). */
export async function renderError(err: unknown, command: string): Promise<{ body: CliErrorBody; exitCode: number; bug: boolean }> {
  if (err instanceof CliError) {
    const body: CliErrorBody = { code: err.code, message: err.message, hint: err.hint.replaceAll('{command}', command) };
    if (err.fields) body.fields = err.fields;
    if (err.details) body.details = err.details;
    return { body, exitCode: err.exitCode, bug: false };
  }
  if (err instanceof AppError) return { body: fromErrorBody(err.toBody(), command), exitCode: EXIT.failed, bug: false };
  // Loaded only on this path: the configuration module is not needed by --help.
  const { ConfigError } = await import('../../config.js');
  if (err instanceof ConfigError) {
    return {
      body: { code: 'CONFIG_ERROR', message: err.message, hint: `Correct ${err.variable} in the environment (README, "Configuration", lists every variable) and run the command again.` },
      exitCode: EXIT.failed,
      bug: false,
    };
  }
  return {
    body: {
      code: 'INTERNAL_ERROR',
      message: err instanceof Error ? err.message : String(err),
      hint: 'This is unexpected: the stack trace is on stderr; report it with the command you ran.',
    },
    exitCode: EXIT.failed,
    bug: true,
  };
}
