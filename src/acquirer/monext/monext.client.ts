// Monext's Retail API (REST v1) over HTTP: Basic authentication (merchant id : access key), JSON both ways, every call
// bounded by a timeout. What comes back is sorted into three kinds, and only three:
// - an answer: a 2xx with a JSON object (its `result` read by the connector),
// - a rejection: a 4xx with Monext's problem body ({title, detail, code?}): Monext refused the request itself,
// - unknown: no answer in time, a network error, a 5xx, or a body that is not the JSON object promised. Monext may
//   or may not have acted: MonextUnavailable is thrown, the caller records nothing final, and the recovery reads the
//   state back from Monext later. Nothing of the request or the answer is logged: no access key, no card data.
//
// node:http(s) with a keep-alive agent, not fetch: a call costs Motu's event loop about a fifth of fetch's CPU
// (bench/checkout-monext, docs/performance.md), and every live card payment makes three of them.
import http from 'node:http';
import https from 'node:https';
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
  private readonly authorization: string;
  /** The base URL's parts, taken apart once (a URL parsed per call costs more than the rest of the request). */
  private readonly target: { secure: boolean; host: string; port: number; prefix: string };

  constructor(credentials: MonextCredentials, private readonly options: MonextClientOptions) {
    const base = (options.baseUrl ?? MONEXT_API_URLS[credentials.environment]).replace(/\/+$/, '');
    this.authorization = `Basic ${Buffer.from(`${credentials.merchantId}:${credentials.accessKey}`).toString('base64')}`;
    const url = new URL(base);
    const secure = url.protocol === 'https:';
    this.target = { secure, host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (secure ? 443 : 80)), prefix: url.pathname.replace(/\/+$/, '') };
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
  private send(method: string, path: string, payload: string | undefined): Promise<{ status: number; text: string }> {
    const { secure, host, port, prefix } = this.target;
    const headers: Record<string, string> = { authorization: this.authorization, accept: 'application/json' };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (reason: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        reject(new MonextUnavailable(reason));
      };
      const request = (secure ? https : http).request({ host, port, path: `${prefix}${path}`, method, headers, agent: secure ? HTTPS_AGENT : HTTP_AGENT }, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) return fail('an answer larger than 1 MB');
          chunks.push(chunk);
        });
        response.on('end', () => {
          if (settled) return;
          if (!response.complete) return fail('the answer was cut off');
          settled = true;
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('aborted', () => fail('the answer was cut off'));
        response.on('error', () => fail('the answer was cut off'));
      });
      const timer = setTimeout(() => fail(`no answer within ${this.options.timeoutMs} ms`), this.options.timeoutMs);
      request.on('error', () => fail('unreachable'));
      request.end(payload);
    });
  }
}

/**
 * Connections to Monext are kept open between calls (TLS set up once per connection, not per call), and closed by Motu
 * once idle for KEEP_IDLE_MS, or a second before the server said it would close them (its `Keep-Alive: timeout=N`,
 * which node:http's agent reads only when it has an idle timeout of its own). Without one, a connection the server
 * closes for idleness could be picked for the next call while its close was still on the way, and that call fail
 * (a 503, the outcome then read back from Monext) although Monext was there.
 */
const KEEP_IDLE_MS = 4_000;
const HTTP_AGENT = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: KEEP_IDLE_MS });
const HTTPS_AGENT = new https.Agent({ keepAlive: true, maxSockets: 64, timeout: KEEP_IDLE_MS });
const MAX_ANSWER_BYTES = 1024 * 1024;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The `result` of an answer, checked: a title and a five-digit code; undefined when missing or malformed. */
export function resultOf(body: Record<string, unknown>): MonextResult | undefined {
  const r = body.result as Record<string, unknown> | undefined;
  if (!r || typeof r !== 'object' || typeof r.title !== 'string' || typeof r.code !== 'string') return undefined;
  return { title: r.title, code: r.code, ...(typeof r.detail === 'string' ? { detail: r.detail } : {}) };
}
