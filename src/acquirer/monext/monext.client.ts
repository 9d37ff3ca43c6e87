// Monext's Retail API (REST v1) over HTTP: Basic authentication (merchant id : access key), JSON both ways, every call
// bounded by a timeout. What comes back is sorted into three kinds, and only three:
// - an answer: a 2xx with a JSON object (its `result` read by the connector),
// - a rejection: a 4xx with Monext's problem body ({title, detail, code?}): Monext refused the request itself,
// - unknown: no answer in time, a network error, a 5xx, or a body that is not the JSON object promised. Monext may
//   or may not have acted: MonextUnavailable is thrown, the caller records nothing final, and the recovery reads the
//   state back from Monext later. Nothing of the request or the answer is logged: no access key, no card data.
//
// Over undici's Pool (the Node.js project's HTTP/1.1 client, on which fetch is built), called directly: kept-alive
// connections, an answer read whole, and about a third of node:http's client's CPU per call (bench/checkout-monext,
// docs/performance.md, "The Monext path"); every live card payment makes three of them.
import { Pool } from 'undici';
import { AcquirerOutcomeUnknown } from '../acquirer.js';
import { MONEXT_API_URLS, type MonextCredentials } from './monext.config.js';

/** Monext could not be asked, or its answer cannot be read: the outcome is unknown. Answered 503 to a caller. */
export class MonextUnavailable extends AcquirerOutcomeUnknown {
  constructor(reason: string) {
    super(`Monext did not give a usable answer (${reason}); nothing is final: the operation is resolved from Monext's records`);
  }
}

export interface MonextResult {
  title: string;
  code: string;
  detail?: string;
}

export type MonextAnswer =
  | { kind: 'answer'; status: number; body: Record<string, unknown> }
  | { kind: 'rejected'; status: number; title: string; detail: string; code: string | null };

export interface MonextClientOptions {
  /** Overrides the environment's base URL (tests: the fake Monext on 127.0.0.1). */
  baseUrl?: string;
  /** Overrides the origin of the widget's script and style (tests: the fake's stand-in widget). */
  widgetUrl?: string;
  timeoutMs: number;
  /** Seconds from a capture to the remittance that pays it (MOTU_MONEXT_SETTLEMENT_DELAY, default one day). */
  settlementDelaySeconds?: number;
}

export class MonextClient {
  private readonly pool: Pool;
  /** The base URL's path, which every call's path follows. */
  private readonly prefix: string;
  private readonly headers: Record<string, string>;
  private readonly bodyHeaders: Record<string, string>;

  constructor(credentials: MonextCredentials, private readonly options: MonextClientOptions) {
    const base = (options.baseUrl ?? MONEXT_API_URLS[credentials.environment]).replace(/\/+$/, '');
    const authorization = `Basic ${Buffer.from(`${credentials.merchantId}:${credentials.accessKey}`).toString('base64')}`;
    const url = new URL(base);
    this.pool = poolOf(url.origin);
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.headers = { authorization, accept: 'application/json' };
    this.bodyHeaders = { ...this.headers, 'content-type': 'application/json' };
  }

  async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<MonextAnswer> {
    const res = await this.send(method, path, body === undefined ? undefined : JSON.stringify(body));
    const text = res.text;
    if (res.status >= 500) throw new MonextUnavailable(`HTTP ${res.status}`);
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new MonextUnavailable(`HTTP ${res.status} with a body that is not JSON`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new MonextUnavailable(`HTTP ${res.status} with a body that is not a JSON object`);
    const obj = parsed as Record<string, unknown>;
    if (res.status >= 200 && res.status < 300) {
      // Monext answers bad credentials with a 200 {title: "Unauthorized"} on some calls (its Sylius plugin checks it).
      if (obj.title === 'Unauthorized' && obj.result === undefined) return { kind: 'rejected', status: 401, title: 'Unauthorized', detail: 'Monext refused the credentials', code: null };
      return { kind: 'answer', status: res.status, body: obj };
    }
    if (res.status >= 400) {
      return {
        kind: 'rejected', status: res.status, title: str(obj.title) ?? `HTTP ${res.status}`, detail: str(obj.detail) ?? '',
        code: str(obj.code) ?? str((obj.result as Record<string, unknown> | undefined)?.code) ?? null,
      };
    }
    throw new MonextUnavailable(`HTTP ${res.status}`);
  }

  /**
   * One request and its whole answer; MonextUnavailable when no complete answer came in time. Redirects are not
   * followed. Through the pool's dispatch: the answer's bytes gathered as they come, no stream or AbortSignal per call.
   */
  private send(method: 'GET' | 'POST', path: string, payload: string | undefined): Promise<{ status: number; text: string }> {
    const timeoutMs = this.options.timeoutMs;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let status = 0;
      let abort: ((reason?: Error) => void) | undefined;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        abort?.(new Error('timeout'));
      }, timeoutMs);
      this.pool.dispatch(
        { method, path: `${this.prefix}${path}`, headers: payload === undefined ? this.headers : this.bodyHeaders, body: payload },
        {
          onConnect: (abortCall) => {
            abort = abortCall;
            if (timedOut) abortCall(new Error('timeout'));
          },
          onHeaders: (statusCode) => {
            status = statusCode;
            return true;
          },
          onData: (chunk) => {
            chunks.push(chunk);
            return true;
          },
          onComplete: () => {
            clearTimeout(timer);
            resolve({ status, text: Buffer.concat(chunks).toString('utf8') });
          },
          onError: (err) => {
            clearTimeout(timer);
            // The reason in a few words (a code or an error's name: never the request, which holds the access key).
            const code = (err as Error & { code?: string }).code;
            reject(new MonextUnavailable(timedOut ? `no answer within ${timeoutMs} ms` : code ?? err.name));
          },
        },
      );
    });
  }
}

/**
 * The kept-alive connections of every client, one pool per origin (a contract's client is made again when its
 * credentials change). A connection idle for 4 s is closed, or a second before the server said it would close it (its
 * `Keep-Alive: timeout=N`): one the server closes for idleness could otherwise be picked for the next call while its
 * close was on the way, and that call fail (a 503, the outcome then read back from Monext) although Monext was there.
 * Idle connections keep no process alive; an answer above 1 MiB is refused (Monext's are a few KiB).
 */
const POOLS = new Map<string, Pool>();

function poolOf(origin: string): Pool {
  let pool = POOLS.get(origin);
  if (!pool) {
    pool = new Pool(origin, { connections: 64, keepAliveTimeout: 4_000, keepAliveTimeoutThreshold: 1_000, maxResponseSize: 1024 * 1024 });
    POOLS.set(origin, pool);
  }
  return pool;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The `result` of an answer, checked: a title and a five-digit code; undefined when missing or malformed. */
export function resultOf(body: Record<string, unknown>): MonextResult | undefined {
  const r = body.result as Record<string, unknown> | undefined;
  if (!r || typeof r !== 'object' || typeof r.title !== 'string' || typeof r.code !== 'string') return undefined;
  return { title: r.title, code: r.code, ...(typeof r.detail === 'string' ? { detail: r.detail } : {}) };
}
