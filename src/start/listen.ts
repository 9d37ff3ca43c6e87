// `motu listen --forward-to http://localhost:4000/hook`: streams the merchant's new test-mode events from
// GET /api/v1/events/stream and forwards each one, signed with the test webhook secret exactly as the
// delivery worker would, to a local URL. One line per event and the answer's status.
//
// The signing secret is printed at the start and read again every few seconds (and before an event when the last
// read is older than a second): after a rotation the forwarded requests are signed with the new secret, the
// previous one's V2 signature sent beside it as the delivery worker does, and a line says so.
import { EVENT_TYPES, filterMatches } from '../events/payloads.js';
import { signatureHeaders } from '../events/signer.js';
import { postWebhook } from '../events/transport.js';
import { CliError, usageError } from './cli/errors.js';
import { apiCall, httpError, reasonOf, requireTestKey, type ApiTarget } from './cli/http.js';

export interface ListenOptions {
  apiUrl: string;
  secretKey: string;
  forwardTo: string;
  print: (line: string) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Only these types: `payment.captured`, `payment.*` or `*` (default: every event). */
  events?: string[];
  /** How often the signing secret is read again while idle (default 2000 ms). */
  secretPollMs?: number;
}

/** Before forwarding an event, a secret read longer ago than this is read again. */
const SECRET_MAX_AGE_MS = 1000;
/** As the server does after a rotation (webhooks.service.ts): the previous secret also signs (V2) for 24 hours. */
const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;

/** Each filter is `*`, an event type, or `prefix.*` matching at least one type; otherwise a usage error. */
export function checkEventFilters(filters: string[]): void {
  for (const filter of filters) {
    if (filter === '*' || (EVENT_TYPES as readonly string[]).includes(filter)) continue;
    if (filter.endsWith('.*') && EVENT_TYPES.some((t) => t.startsWith(filter.slice(0, -1)))) continue;
    const family = filter.split('.')[0];
    const near = EVENT_TYPES.filter((t) => t.startsWith(`${family}.`));
    throw usageError(`--events: "${filter}" is not an event type, "prefix.*" or "*"`,
      near.length > 0 ? `Did you mean one of ${near.join(', ')} (or ${family}.*)?` : 'The event types are listed in docs/webhooks.md; `payment.*` takes every payment event.');
  }
}

export async function listen(options: ListenOptions): Promise<void> {
  const { apiUrl, secretKey, forwardTo, print, signal } = options;
  requireTestKey(secretKey, 'motu listen');
  if (options.events) checkEventFilters(options.events);
  const target: ApiTarget = { apiUrl, secretKey };
  const auth = { authorization: `Bearer ${secretKey}` };

  const readSecret = async () => (await apiCall<{ webhookSecret: string }>(target, 'GET', '/api/v1/webhooks/signing-secret', undefined, 'Reading the signing secret', { signal })).webhookSecret;
  let secret = await readSecret();
  let previous: { secret: string; until: number } | undefined;
  let readAt = Date.now();
  print(`Webhook signing secret: ${secret}`);
  const only = options.events && options.events.length > 0 ? ` (only ${options.events.join(', ')})` : '';
  print(`Ready. Forwarding test-mode events${only} to ${forwardTo} (Ctrl-C to stop)`);

  /** Reads the secret again; a rotation is followed and said. A failed read keeps the known secret (the stream says why). */
  const refresh = async () => {
    let current: string;
    try {
      current = await readSecret();
    } catch {
      return;
    }
    readAt = Date.now();
    if (current === secret) return;
    previous = { secret, until: Date.now() + PREVIOUS_SECRET_GRACE_MS };
    secret = current;
    print(`Signing secret rotated: forwarded events are now signed with ${secret} (the previous secret still signs X-Service-Signature-V2-Previous)`);
  };
  let refreshing: Promise<void> | undefined;
  const refreshOnce = () => (refreshing ??= refresh().finally(() => { refreshing = undefined; }));
  const poll = setInterval(() => void refreshOnce(), options.secretPollMs ?? 2000);
  poll.unref();

  // The stream resumes at the instant of the last event read (`?since=`, inclusive): the ids already forwarded at that
  // instant are skipped, so a reconnection forwards nothing twice.
  let since: string | undefined;
  const forwardedAtSince = new Set<string>();
  try {
    while (!signal?.aborted) {
      try {
        const url = `${apiUrl}/api/v1/events/stream${since ? `?since=${encodeURIComponent(since)}` : ''}`;
        const res = await fetch(url, { headers: { ...auth, accept: 'text/event-stream' }, signal });
        // A key revoked while listening never comes back: stop and say so instead of reconnecting forever.
        if (res.status === 401 || res.status === 403) throw httpError(res.status, await res.text(), 'Reading the event stream');
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        const decoder = new TextDecoder();
        let buffer = '';
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const message = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = message.split('\n').find((l) => l.startsWith('data: '))?.slice(6);
            if (!data) continue;
            const event = JSON.parse(data) as { id: string; type: string; createdAt: string };
            if (event.createdAt === since && forwardedAtSince.has(event.id)) continue;
            if (event.createdAt !== since) forwardedAtSince.clear();
            since = event.createdAt;
            forwardedAtSince.add(event.id);
            if (options.events?.length && !filterMatches(options.events, event.type)) continue;
            if (Date.now() - readAt > SECRET_MAX_AGE_MS) await refreshOnce();
            const honoured = previous && previous.until > Date.now() ? previous.secret : null;
            const headers = signatureHeaders(data, { secret, previous: honoured }, Math.floor(Date.now() / 1000), event.id);
            const result = await postWebhook(forwardTo, data, headers, { timeoutMs: options.timeoutMs ?? 10_000, guard: null });
            const outcome = result.error ? `error: ${result.error}` : String(result.statusCode);
            print(`${event.createdAt}  ${event.type.padEnd(28)} ${event.id}  → ${outcome} (${result.latencyMs} ms)`);
          }
        }
      } catch (err) {
        if (signal?.aborted) break;
        if (err instanceof CliError) throw err;
        print(`Stream interrupted (${reasonOf(err)}); reconnecting…`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  } finally {
    clearInterval(poll);
  }
}
