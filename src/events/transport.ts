// One HTTP POST of a webhook, outside any transaction: bounded by a timeout, keeping the first 1 KiB of the
// answer. Redirects are not followed (a 3xx is a failure, as any non-2xx).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isPrivateAddress } from './address-guard.js';

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 512 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 512 }),
};

export interface SendResult {
  statusCode: number | null;
  /** First 1 KiB of the response body (or null when none arrived). */
  excerpt: string | null;
  error: string | null;
  latencyMs: number;
}

export interface SendOptions {
  timeoutMs: number;
  /** Refuse private, loopback and link-local addresses (live mode). */
  publicOnly: boolean;
}

const EXCERPT_BYTES = 1024;
const MAX_READ_BYTES = 1 << 20;

export function postWebhook(url: string, body: string | Buffer, headers: Record<string, string>, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const excerpt = chunks.length ? Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8') : null;
      resolve({ statusCode, excerpt, error, latencyMs: Math.round(performance.now() - started) });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return finish('invalid URL');
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (options.publicOnly && isIP(host) && isPrivateAddress(host)) return finish(`${host} is a private address; refused`);
    const isHttps = target.protocol === 'https:';
    const req = (isHttps ? https : http).request(
      target,
      {
        method: 'POST',
        agent: isHttps ? agents.https : agents.http,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Motu-Webhooks/1.0',
          ...headers,
        },
        ...(options.publicOnly ? { lookup: guardedLookup as never } : {}),
      },
      (res) => {
        statusCode = res.statusCode ?? null;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (kept < EXCERPT_BYTES) {
            chunks.push(chunk);
            kept += chunk.length;
          }
          if (read > MAX_READ_BYTES) res.destroy();
        });
        res.on('end', () => finish(null));
        res.on('close', () => finish(res.complete ? null : 'response interrupted'));
        res.on('error', (err) => finish(err.message));
      },
    );
    const timer = setTimeout(() => {
      const err = `timed out after ${options.timeoutMs} ms`;
      finish(err);
      req.destroy(new Error(err));
    }, options.timeoutMs);
    req.on('error', (err) => finish(err.message));
    req.end(body);
  });
}
