// The one way the application talks to Motu: the merchant API (/api/v1/…) and the back-office's own routes
// (/dashboard/api/…), with the session cookie. Every change carries the session's CSRF token; every POST an
// Idempotency-Key, so a request the network cut and the browser retried never acts twice. A failure is an ApiError
// carrying the server's `{code, message, details?, fields?}`; pages show it in the user's language from its code and
// details (errors.ts), never its English message. An agency's user acting for a client (acting.ts) sends the client's
// account in `Motu-Account` on the merchant API.
import { accountHeader } from './acting.js';

export interface ApiErrorBody {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  fields?: Record<string, string> | Array<{ field?: string; message?: string }>;
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ApiErrorBody, readonly retryAfterSeconds: number | null = null) {
    super(body.message);
  }
  get code(): string {
    return this.body.code;
  }
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

let csrfToken = '';
const unauthorizedListeners = new Set<() => void>();

/** Given at sign-in and by GET /dashboard/api/me; sent with every change. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called when the session has ended (401 UNAUTHORIZED on any request): the application goes back to sign-in. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

type Query = Record<string, string | number | boolean | null | undefined>;

/** `path?query` without the empty values (an empty filter is no filter). */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function send(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<Response> {
  const headers: Record<string, string> = { accept };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (method === 'POST') headers['idempotency-key'] = crypto.randomUUID();
  if (body !== undefined) headers['content-type'] = 'application/json';
  const account = accountHeader(path);
  if (account) headers['motu-account'] = account;
  let response: Response;
  try {
    response = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { code: 'NETWORK_ERROR', message: 'The connection to Motu failed. Check your connection and try again.' });
  }
  if (response.ok) return response;
  let error: ApiErrorBody = { code: 'HTTP_' + response.status, message: response.statusText || `HTTP ${response.status}` };
  try {
    const parsed = (await response.json()) as Partial<ApiErrorBody>;
    if (parsed && typeof parsed.code === 'string') error = { ...parsed, code: parsed.code, message: parsed.message ?? parsed.code };
  } catch {
    /* not JSON: keep the status line */
  }
  if (response.status === 401 && error.code === 'UNAUTHORIZED') unauthorizedListeners.forEach((listener) => listener());
  const retryAfter = Number(response.headers.get('retry-after'));
  throw new ApiError(response.status, error, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
}

async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await send(method, path, body);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const api = {
  get: <T>(path: string, query?: Query) => json<T>('GET', withQuery(path, query)),
  post: <T>(path: string, body: unknown = {}) => json<T>('POST', path, body),
  patch: <T>(path: string, body: unknown) => json<T>('PATCH', path, body),
  put: <T>(path: string, body: unknown) => json<T>('PUT', path, body),
  del: <T>(path: string) => json<T>('DELETE', path),
  /** A GET answered in another format (CSV exports: `Accept: text/csv`), as a Blob. */
  async blob(path: string, query: Query, accept: string): Promise<Blob> {
    return (await send('GET', withQuery(path, query), undefined, accept)).blob();
  },
};

/** Saves a Blob under a file name, as a download of the browser. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
