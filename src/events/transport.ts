// One HTTP POST of a webhook, outside any transaction: bounded by a timeout, keeping the first 1 KiB of the
// answer. Redirects are not followed (a 3xx is a failure, as any non-2xx). A target the address guard refuses is
// never connected to: the send fails at once like a refused connection (no status, no answer), so the worker records
// a failed attempt and follows the retry schedule as for any other failure.
//
// Over undici's Agent (the Node.js project's HTTP/1.1 client, on which fetch is built), dispatched with a handler of
// our own: no stream and no promise per response, and less than half of node:http's client's CPU per send
// (docs/performance.md, "Webhook delivery at 3,000 events/s"); every payment sends two.
import { isIP } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { guardedLookup, isLoopbackName, refusedAddress, type AddressPolicy } from './address-guard.js';

// Kept-alive sockets are closed once idle for KEEP_IDLE_MS, or a second before the receiver said it would close them
// (its `Keep-Alive: timeout=N`; Node's own servers close after 5 s). Without that, a send could go out on a socket
// whose close was already on its way, and fail (an attempt recorded as failed, retried later) although the receiver
// was up.
const KEEP_IDLE_MS = 4_000;
const newAgent = (guard: AddressPolicy | null) =>
  new Agent({
    connections: 512,
    keepAliveTimeout: KEEP_IDLE_MS,
    keepAliveMaxTimeout: KEEP_IDLE_MS,
    keepAliveTimeoutThreshold: 1_000,
    // Only an address the guard allows is connected to (a host name is looked up at each connection).
    ...(guard ? { connect: { lookup: guardedLookup(guard) as never } } : {}),
  });
// A kept-alive socket is reused without a new lookup: sockets opened where loopback is allowed (test mode, local
// development) must never carry a send that forbids it, so each policy has its own pool.
const agents = {
  strict: newAgent({ allowLoopback: false }),
  loopback: newAgent({ allowLoopback: true }),
  unguarded: newAgent(null),
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
  /** Where the worker may send (address-guard.ts); null only for `motu listen`, forwarding to the developer's own URL. */
  guard: AddressPolicy | null;
}

const EXCERPT_BYTES = 1024;
const MAX_READ_BYTES = 1 << 20;
const INTERRUPTED = 'response interrupted';

export function postWebhook(url: string, body: string | Buffer, headers: Record<string, string>, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    let read = 0;
    // Declared before anything can finish: a target refused before the request starts finishes at once.
    let timer: NodeJS.Timeout | undefined;
    let controller: Dispatcher.DispatchController | undefined;
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
    // An address in the URL is never looked up (the lookup is not called for it): judged here.
    const refused = options.guard && isIP(host) ? refusedAddress(host, options.guard) : undefined;
    if (refused) return finish(`refused: the target address ${refused}`);
    if (options.guard && !options.guard.allowLoopback && isLoopbackName(host)) return finish('refused: the target address is this machine (loopback)');
    const agent = !options.guard ? agents.unguarded : options.guard.allowLoopback ? agents.loopback : agents.strict;
    const sent: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'Motu-Webhooks/1.0',
      ...headers,
    };
    // Credentials in the URL go as Basic authentication, as node:http sends them.
    if (target.username || target.password) {
      sent.authorization ??= `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
    }
    timer = setTimeout(() => {
      const err = `timed out after ${options.timeoutMs} ms`;
      finish(err);
      // Not yet on a socket: aborted as it gets one (onRequestStart), never written.
      controller?.abort(new Error(err));
    }, options.timeoutMs);
    agent.dispatch(
      { origin: target.origin, path: target.pathname + target.search, method: 'POST', headers: sent, body },
      {
        onRequestStart(c) {
          controller = c;
          if (settled) c.abort(new Error('timed out'));
        },
        onResponseStart(_c, status) {
          statusCode = status;
        },
        onResponseData(c, chunk) {
          read += chunk.length;
          if (kept < EXCERPT_BYTES) {
            chunks.push(chunk);
            kept += chunk.length;
          }
          if (read > MAX_READ_BYTES) {
            finish(INTERRUPTED);
            c.abort(new Error(INTERRUPTED));
          }
        },
        onResponseEnd() {
          finish(null);
        },
        onResponseError(_c, err) {
          // Cut during the answer: as node:http's client reported it.
          finish(statusCode !== null ? INTERRUPTED : err.message);
        },
      },
    );
  });
}
