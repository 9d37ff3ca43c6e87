// The HTTP side of `motu listen` and `motu trigger`: calls to a running Motu with a test secret key, each failure
// turned into a CliError with its hint (server unreachable, key refused, the API's own error answers).
import type { ErrorBody } from '../../shared/errors.js';
import { CliError, fromErrorBody, isNetworkError, systemCode } from './errors.js';

export interface ApiTarget {
  /** The server's base URL, without a trailing slash. */
  apiUrl: string;
  secretKey: string;
}

/** `--api-url`, else MOTU_URL, else the server's public URL (MOTU_PUBLIC_URL, or http://localhost:$PORT). */
export function defaultApiUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.MOTU_URL ?? env.MOTU_PUBLIC_URL ?? `http://localhost:${env.PORT || 3000}`).replace(/\/+$/, '');
}

/** Listening and triggering act in test mode only: a live key is refused before any call. */
export function requireTestKey(secretKey: string, command: string): void {
  if (!secretKey.startsWith('sk_test_')) {
    throw new CliError('TEST_KEY_REQUIRED', `${command} needs a test secret key (sk_test_…)`,
      'Pass a test key with --key or MOTU_SECRET_KEY; `motu keys create --merchant ID --mode test` makes one. Live events are never forwarded nor triggered.');
  }
}

/** ECONNREFUSED and the like, else the innermost message (fetch says only "fetch failed"; its cause says why). */
export function reasonOf(err: unknown): string {
  const code = systemCode(err);
  if (code) return code;
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

export function unreachable(apiUrl: string, err: unknown): CliError {
  return new CliError('SERVER_UNREACHABLE', `Cannot reach Motu at ${apiUrl} (${reasonOf(err)})`,
    'Start the server (`motu serve`, or `npm start`) or point --api-url (MOTU_URL) at it.');
}

/** The HTTP status and body of an answer that is not 2xx, as the CliError the user reads. */
export function httpError(status: number, text: string, what: string): CliError {
  let body: { code?: unknown; message?: unknown } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    /* not JSON: not an answer of Motu's API */
  }
  if (body && typeof body.code === 'string' && typeof body.message === 'string') {
    const rendered = fromErrorBody(body as ErrorBody, 'motu');
    if (status === 401) {
      return new CliError('UNAUTHORIZED', `${what}: the key was refused (${rendered.message})`,
        'Pass a current test secret key with --key or MOTU_SECRET_KEY (revoked keys are refused); `motu keys create --merchant ID --mode test` makes one.', 1);
    }
    // A 400 here is the API refusing what this command sent, not a flag of the user's: say which call and field.
    const hint = rendered.code === 'VALIDATION_ERROR'
      ? `The server refused the request (HTTP ${status}) on the field named in "fields": check the values given to this command (--amount, --notification-url) and that the server runs the same version of Motu.`
      : rendered.hint;
    return new CliError(rendered.code, `${what}: ${rendered.message}`, hint, 1, { status, ...rendered.details }, rendered.fields);
  }
  return new CliError('HTTP_ERROR', `${what}: HTTP ${status}`,
    'The address answered but not as Motu does: check --api-url (MOTU_URL) points at the Motu server.', 1, { status });
}

export interface CallOptions {
  signal?: AbortSignal;
  /** false: a call the buyer's browser makes (card token, hosted checkout), without the merchant's key. */
  auth?: boolean;
}

/** One JSON call; `what` names it in the error ("Reading the signing secret"). */
export async function apiCall<T>(target: ApiTarget, method: string, path: string, body: unknown, what: string, options: CallOptions = {}): Promise<T> {
  const { signal } = options;
  let res: Response;
  try {
    res = await fetch(`${target.apiUrl}${path}`, {
      method,
      headers: {
        ...(options.auth === false ? {} : { authorization: `Bearer ${target.secretKey}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    if (isNetworkError(err) || err instanceof TypeError) throw unreachable(target.apiUrl, err);
    throw err;
  }
  const text = await res.text();
  if (!res.ok) throw httpError(res.status, text, what);
  return (text ? JSON.parse(text) : undefined) as T;
}
