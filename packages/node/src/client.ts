// The HTTP core every resource goes through: authentication, an Idempotency-Key on every POST (generated when the
// caller gives none, so a retry replays instead of acting twice), a timeout, and retries with backoff of what is safe
// to send again (network failures, timeouts, 5xx, 429, an idempotent request still in flight).
import { randomUUID } from 'node:crypto';
import { errorFromResponse, MotuConnectionError, MotuError, MotuTimeoutError } from './errors.js';
import type { ApiPath, HttpMethod, MethodOf, PathParams, QueryParams, RequestBody, ResponseBody } from './types.js';

export const VERSION = '0.1.0';

export interface MotuOptions {
  /** Where your Motu answers, e.g. `https://pay.example.com` (no trailing `/api/v1`). */
  baseUrl: string;
  /** Milliseconds before a request is abandoned (and retried when safe). Default 30 000. */
  timeoutMs?: number;
  /** Retries of a request that is safe to send again. Default 2. */
  maxRetries?: number;
  /** Longest wait between two attempts, in milliseconds (a Retry-After above it is not waited for). Default 10 000. */
  maxRetryDelayMs?: number;
  /** A fetch of your own (a proxy agent, instrumentation). Default: Node's global fetch. */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  /** The Idempotency-Key of a POST; by default a random one, kept across the retries of this call. */
  idempotencyKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * An agency acting for its client under a mandate: the client's merchant id (`mer_…`), sent as `Motu-Account`.
   * `motu.withAccount('mer_…')` sends it on every call.
   */
  account?: string;
}

export interface CallArgs<P extends ApiPath, M extends MethodOf<P>> {
  path?: PathParams<P, M>;
  query?: QueryParams<P, M>;
  body?: RequestBody<P, M>;
}

/** A raw answer: for operations that answer a file (PDFs) or a stream. */
export interface RawResponse {
  status: number;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
  requestId: string | null;
  response: Response;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });

function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get('retry-after');
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

export class MotuClient {
  readonly baseUrl: string;
  readonly #key: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #maxDelayMs: number;
  readonly #fetch: typeof fetch;
  readonly #headers: Record<string, string>;

  constructor(secretKey: string, options: MotuOptions) {
    if (typeof secretKey !== 'string' || !/^sk_(test|live)_\S+$/.test(secretKey)) {
      throw new TypeError('new Motu(secretKey, { baseUrl }): the secret key starts with sk_test_ or sk_live_');
    }
    if (!options || typeof options.baseUrl !== 'string') throw new TypeError('new Motu(secretKey, { baseUrl }): baseUrl is required');
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('baseUrl must be an http(s) URL');
    this.baseUrl = url.href.replace(/\/+$/, '');
    this.#key = secretKey;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxRetries = options.maxRetries ?? 2;
    this.#maxDelayMs = options.maxRetryDelayMs ?? 10_000;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#headers = { ...options.headers };
  }

  /** The mode the key acts in. */
  get mode(): 'test' | 'live' {
    return this.#key.startsWith('sk_live_') ? 'live' : 'test';
  }

  /** Calls one operation of the document and answers its JSON (typed from the document). */
  async request<P extends ApiPath, M extends MethodOf<P>>(
    method: M,
    path: P,
    args: CallArgs<P, M> = {},
    options: RequestOptions = {},
  ): Promise<ResponseBody<P, M>> {
    const res = await this.send(method, path, args as CallArgs<ApiPath, never>, options, 'application/json');
    const text = await res.response.text();
    if (text === '') return undefined as ResponseBody<P, M>;
    try {
      return JSON.parse(text) as ResponseBody<P, M>;
    } catch (cause) {
      throw new MotuError({ status: res.status, code: 'INVALID_RESPONSE', message: 'Motu answered something that is not JSON', requestId: res.requestId, cause });
    }
  }

  /** Calls one operation and hands back the answer unread (files, streams). Errors are thrown as for request(). */
  async raw<P extends ApiPath, M extends MethodOf<P>>(
    method: M,
    path: P,
    args: CallArgs<P, M> = {},
    options: RequestOptions = {},
    accept = '*/*',
  ): Promise<RawResponse> {
    return this.send(method, path, args as CallArgs<ApiPath, never>, options, accept);
  }

  url(path: string, params: Record<string, unknown> = {}, query: Record<string, unknown> = {}): URL {
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params[name];
      if (typeof value !== 'string' || value === '') throw new TypeError(`${path}: the ${name} parameter is required`);
      return encodeURIComponent(value);
    });
    const url = new URL(this.baseUrl + filled);
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue;
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, v instanceof Date ? v.toISOString() : String(v));
    }
    return url;
  }

  private async send(method: HttpMethod, path: string, args: CallArgs<ApiPath, never>, options: RequestOptions, accept: string): Promise<RawResponse> {
    const url = this.url(path, (args.path ?? {}) as Record<string, unknown>, (args.query ?? {}) as Record<string, unknown>);
    const verb = method.toUpperCase();
    const headers: Record<string, string> = {
      accept,
      'user-agent': `motu-node/${VERSION} node/${process.version}`,
      ...this.#headers,
      ...options.headers,
      ...(options.account === undefined ? {} : { 'motu-account': options.account }),
      authorization: `Bearer ${this.#key}`,
    };
    let body: string | undefined;
    if (verb === 'POST' || verb === 'PATCH' || verb === 'PUT') {
      // Motu's POST routes take a JSON object; one with nothing to say sends {}.
      body = JSON.stringify(args.body ?? {});
      headers['content-type'] = 'application/json';
    }
    if (verb === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    // GET and DELETE are idempotent by nature, a POST by its key; a PATCH is sent again only when it was refused
    // before being run (429).
    const idempotent = verb !== 'PATCH';
    const maxRetries = options.maxRetries ?? this.#maxRetries;
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;

    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await this.#fetch(url, { method: verb, headers, body, signal, redirect: 'error' });
      } catch (cause) {
        if (options.signal?.aborted) throw options.signal.reason;
        const timedOut = timeout.aborted;
        if (idempotent && attempt < maxRetries) {
          await sleep(this.backoff(attempt, null), options.signal);
          continue;
        }
        const Class = timedOut ? MotuTimeoutError : MotuConnectionError;
        throw new Class({
          status: 0,
          code: timedOut ? 'TIMEOUT' : 'CONNECTION_ERROR',
          message: timedOut ? `${verb} ${path}: no answer within ${timeoutMs} ms` : `${verb} ${path}: could not reach Motu at ${this.baseUrl}`,
          cause,
        });
      }
      const requestId = response.headers.get('x-request-id');
      if (response.ok) return { status: response.status, headers: response.headers, body: response.body, requestId, response };

      const retryAfter = retryAfterSeconds(response.headers);
      const text = await response.text().catch(() => '');
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      const error = errorFromResponse(response.status, parsed, requestId, retryAfter);
      const inFlight = response.status === 409 && error.code === 'IDEMPOTENCY_KEY_IN_USE';
      const again = response.status === 429 || inFlight || (idempotent && RETRYABLE_STATUS.has(response.status));
      const delay = this.backoff(attempt, retryAfter);
      if (again && attempt < maxRetries && delay <= this.#maxDelayMs) {
        await sleep(delay, options.signal);
        continue;
      }
      throw error;
    }
  }

  /** Exponential backoff with jitter (0.5 s, 1 s, 2 s…), or the server's Retry-After. */
  private backoff(attempt: number, retryAfter: number | null): number {
    if (retryAfter !== null) return retryAfter * 1000;
    const base = Math.min(this.#maxDelayMs, 500 * 2 ** attempt);
    return Math.round(base / 2 + Math.random() * (base / 2));
  }
}
