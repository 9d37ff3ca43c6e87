// Monext's Retail API (REST v1) over HTTP: Basic authentication (merchant id : access key), JSON both ways, every call
// bounded by a timeout. What comes back is sorted into three kinds, and only three:
// - an answer: a 2xx with a JSON object (its `result` read by the connector),
// - a rejection: a 4xx with Monext's problem body ({title, detail, code?}): Monext refused the request itself,
// - unknown: no answer in time, a network error, a 5xx, or a body that is not the JSON object promised. Monext may
//   or may not have acted: MonextUnavailable is thrown, the caller records nothing final, and the recovery reads the
//   state back from Monext later. Nothing of the request or the answer is logged: no access key, no card data.
//
// Over kept-alive connections (monext.http.ts), neither fetch nor node:http's client: a call costs Motu's event loop a
// fraction of their CPU (bench/checkout-monext, docs/performance.md), and every live card payment makes three of them.
import { AcquirerOutcomeUnknown } from '../acquirer.js';
import { MONEXT_API_URLS, type MonextCredentials } from './monext.config.js';
import { HttpFailure, HttpPool, type HttpAnswer, type HttpTarget } from './monext.http.js';

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
  private readonly pool: HttpPool;
  /** The base URL's path, and the request's fixed lines, written once (a call only adds its path, its length and its body). */
  private readonly prefix: string;
  private readonly head: string;
  private readonly bodyHead: string;
  private readonly hostHead: string;

  constructor(credentials: MonextCredentials, private readonly options: MonextClientOptions) {
    const base = (options.baseUrl ?? MONEXT_API_URLS[credentials.environment]).replace(/\/+$/, '');
    const authorization = `Basic ${Buffer.from(`${credentials.merchantId}:${credentials.accessKey}`).toString('base64')}`;
    const url = new URL(base);
    const secure = url.protocol === 'https:';
    this.pool = poolOf({ secure, host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (secure ? 443 : 80)) });
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.hostHead = `Host: ${this.pool.hostHeader}\r\nConnection: keep-alive\r\n`;
    this.head = `authorization: ${authorization}\r\naccept: application/json\r\n${this.hostHead}`;
    this.bodyHead = `authorization: ${authorization}\r\naccept: application/json\r\ncontent-type: application/json\r\n`;
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

  /** One request and its whole answer; MonextUnavailable when no complete answer came in time. Redirects are not followed. */
  private async send(method: string, path: string, payload: string | undefined): Promise<HttpAnswer> {
    // The request as node:http would write it for these headers (theirs first, in this order, then Host and Connection).
    const request = payload === undefined
      ? `${method} ${this.prefix}${path} HTTP/1.1\r\n${this.head}\r\n`
      : `${method} ${this.prefix}${path} HTTP/1.1\r\n${this.bodyHead}content-length: ${Buffer.byteLength(payload)}\r\n${this.hostHead}\r\n${payload}`;
    try {
      return await this.pool.send(request, this.options.timeoutMs);
    } catch (err) {
      if (err instanceof HttpFailure) throw new MonextUnavailable(err.message);
      throw err;
    }
  }
}

/** The kept-alive connections of every client, one pool per origin (a contract's client is made again when its credentials change). */
const POOLS = new Map<string, HttpPool>();

function poolOf(target: HttpTarget): HttpPool {
  const key = `${target.secure ? 'https' : 'http'}://${target.host}:${target.port}`;
  let pool = POOLS.get(key);
  if (!pool) POOLS.set(key, pool = new HttpPool(target));
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
