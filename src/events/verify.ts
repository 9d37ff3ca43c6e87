// For merchants: check that a webhook really comes from Motu. Exported by the package as `motu/webhooks`.
//
//   import { verifyWebhook } from 'motu/webhooks';
//   const result = verifyWebhook(rawBody, request.headers, process.env.MOTU_WEBHOOK_SECRET!);
//   if (!result.ok) return reply.code(400).send(result.reason);
//   const event = result.event;            // {id, type, createdAt, data}; deduplicate on event.id
//
// During a rotation pass both secrets, new first: verifyWebhook(rawBody, headers, [newSecret, oldSecret]).
// V2 (HMAC of `<timestamp>.<raw body>`, timestamp within the tolerance, 5 minutes by default) is required: a request
// carrying any V2 header (signature, previous-secret signature or timestamp) is judged on V2 alone, so stripping the
// timestamp never turns it into a V1 request replayable forever. V1 (HMAC of the raw body, no timestamp) is accepted
// only with `allowV1: true`, for senders that sign V1 alone. Comparisons are constant-time; no dependency beyond
// node:crypto.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type HeaderBag =
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null };

export interface VerifyOptions {
  /** Accepted distance between the V2 timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** "Now" in epoch seconds, for tests. */
  nowSeconds?: number;
  /**
   * Accept a request carrying only the V1 signature (no timestamp, so no replay protection). Default false. Only a
   * request without any V2 header can pass as V1.
   */
  allowV1?: boolean;
  /** @deprecated V2 is required unless `allowV1` is true; kept so older callers still compile. */
  requireV2?: boolean;
}

export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: string;
  createdAt: string;
  data: D;
}

export type VerifyResult =
  | { ok: true; version: 'v1' | 'v2'; event: WebhookEvent }
  | {
    ok: false;
    reason: 'missing_signature' | 'missing_timestamp' | 'v1_not_allowed' | 'invalid_signature' | 'timestamp_out_of_tolerance' | 'invalid_body';
  };

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

/** Either prefix works: X-Service-… or X-Mobupay-…. */
function either(headers: HeaderBag, suffix: string): string | undefined {
  return header(headers, `x-service-${suffix}`) ?? header(headers, `x-mobupay-${suffix}`);
}

function hmacHex(secret: string, payload: Buffer): Buffer {
  return Buffer.from(createHmac('sha256', secret).update(payload).digest('hex'), 'utf8');
}

function same(expected: Buffer, given: string): boolean {
  const g = Buffer.from(given.trim().toLowerCase(), 'utf8');
  return g.length === expected.length && timingSafeEqual(g, expected);
}

/**
 * Verifies a webhook over its raw body (the exact bytes received: a Buffer or the unparsed string, never a
 * re-serialized object) with one secret or several (during a rotation: the new and the previous one), and returns
 * the parsed event. A signature made with any of the secrets, in `X-Service-Signature-V2` or in
 * `X-Service-Signature-V2-Previous` (sent for 24 h after a rotation), is accepted.
 */
export function verifyWebhook(rawBody: Buffer | string, headers: HeaderBag, secrets: string | readonly string[], options: VerifyOptions = {}): VerifyResult {
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((k) => typeof k === 'string' && k.length > 0);
  if (keys.length === 0) throw new TypeError('verifyWebhook needs the webhook signing secret (or a list of secrets)');
  const raw = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const tolerance = options.toleranceSeconds ?? 300;
  const v2 = [either(headers, 'signature-v2'), either(headers, 'signature-v2-previous')].filter((v): v is string => v !== undefined);
  const timestamp = either(headers, 'timestamp');
  let version: 'v1' | 'v2';
  if (v2.length > 0 || timestamp !== undefined) {
    // Any V2 header: judged on V2 alone; a V1 signature alongside never rescues it.
    if (v2.length === 0) return { ok: false, reason: 'missing_signature' };
    if (timestamp === undefined) return { ok: false, reason: 'missing_timestamp' };
    if (!/^\d{1,12}$/.test(timestamp.trim())) return { ok: false, reason: 'timestamp_out_of_tolerance' };
    const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
    if (Math.abs(now - Number(timestamp.trim())) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
    const signed = Buffer.concat([Buffer.from(`${timestamp.trim()}.`, 'utf8'), raw]);
    if (!matchesAny(keys.map((k) => hmacHex(k, signed)), v2)) return { ok: false, reason: 'invalid_signature' };
    version = 'v2';
  } else {
    const v1 = either(headers, 'signature');
    if (v1 === undefined) return { ok: false, reason: 'missing_signature' };
    if (!options.allowV1) return { ok: false, reason: 'v1_not_allowed' };
    if (!matchesAny(keys.map((k) => hmacHex(k, raw)), [v1])) return { ok: false, reason: 'invalid_signature' };
    version = 'v1';
  }
  try {
    const event = JSON.parse(raw.toString('utf8')) as WebhookEvent;
    if (typeof event?.id !== 'string' || typeof event.type !== 'string') return { ok: false, reason: 'invalid_body' };
    return { ok: true, version, event };
  } catch {
    return { ok: false, reason: 'invalid_body' };
  }
}

/** Every pair is compared (no early exit on a match), each in constant time. */
function matchesAny(expected: Buffer[], given: string[]): boolean {
  let ok = false;
  for (const e of expected) for (const g of given) ok = same(e, g) || ok;
  return ok;
}
