// One HTTP POST of a webhook, outside any transaction: bounded by a timeout, keeping the first 1 KiB of the
// answer. Redirects are not followed (a 3xx is a failure, as any non-2xx). A target the address guard refuses is
// never connected to: the send fails at once like a refused connection (no status, no answer), so the worker records
// a failed attempt and follows the retry schedule as for any other failure.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isLoopbackName, refusedAddress, type AddressPolicy } from './address-guard.js';

// Kept-alive sockets are closed once idle for KEEP_IDLE_MS, or a second before the receiver said it would close them
// (its `Keep-Alive: timeout=N`, which node:http's agent reads only when it has an idle timeout of its own; Node's own
// servers close after 5 s). Without one, a send could go out on a socket whose close was already on its way, and fail
// (an attempt recorded as failed, retried later) although the receiver was up.
const KEEP_IDLE_MS = 4_000;
const newAgents = () => ({
  http: new http.Agent({ keepAlive: true, maxSockets: 512, timeout: KEEP_IDLE_MS }),
  https: new https.Agent({ keepAlive: true, maxSockets: 512, timeout: KEEP_IDLE_MS }),
});
// A kept-alive socket is reused without a new lookup: sockets opened where loopback is allowed (test mode, local
// development) must never carry a send that forbids it, so each policy has its own pool.
const pools = { strict: newAgents(), loopback: newAgents(), unguarded: newAgents() };

export interface SendResult {
  statusCode: number | null;
  /** First 1 KiB of the response body (or null when none arrived). */
  excerpt: string | null;
  error: string | null;
  latencyMs: number;
}

export interface SendOptions {
  timeoutMs: number;
  /** Where the worker may send (address-guard.ts); null only for `motu listen`, forwarding to the developer's own URL. */
  guard: AddressPolicy | null;
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
    // Declared before anything can finish: a target refused before the request starts finishes at once.
    let timer: NodeJS.Timeout | undefined;
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
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return finish('refused: not an http(s) URL');
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // An address in the URL is never looked up (the lookup below is not called for it): judged here.
    const refused = options.guard && isIP(host) ? refusedAddress(host, options.guard) : undefined;
    if (refused) return finish(`refused: the target address ${refused}`);
    if (options.guard && !options.guard.allowLoopback && isLoopbackName(host)) return finish('refused: the target address is this machine (loopback)');
    const agents = !options.guard ? pools.unguarded : options.guard.allowLoopback ? pools.loopback : pools.strict;
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
        ...(options.guard ? { lookup: guardedLookup(options.guard) as never } : {}),
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
    timer = setTimeout(() => {
      const err = `timed out after ${options.timeoutMs} ms`;
      finish(err);
      req.destroy(new Error(err));
    }, options.timeoutMs);
    req.on('error', (err) => finish(err.message));
    req.end(body);
  });
}
