// For merchants: check that a webhook really comes from Motu. Exported by the package as `motu/webhooks`.
//
//   import { verifyWebhook } from 'motu/webhooks';
//   const result = verifyWebhook(rawBody, request.headers, process.env.MOTU_WEBHOOK_SECRET!);
//   if (!result.ok) return reply.code(400).send(result.reason);
//   const event = result.event;            // {id, type, createdAt, data}; deduplicate on event.id
//
// V2 (HMAC of `<timestamp>.<raw body>`, timestamp within the tolerance) is preferred; V1 (HMAC of the raw
// body) is accepted when no V2 header is present. Comparisons are constant-time. No dependency beyond node:crypto.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type HeaderBag =
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null };

export interface VerifyOptions {
  /** Accepted distance between the V2 timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** "Now" in epoch seconds, for tests. */
  nowSeconds?: number;
  /** Refuse requests carrying only the V1 signature (default false: V1 accepted). */
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
  | { ok: false; reason: 'missing_signature' | 'invalid_signature' | 'timestamp_out_of_tolerance' | 'invalid_body' };

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
 * re-serialized object) and returns the parsed event.
 */
export function verifyWebhook(rawBody: Buffer | string, headers: HeaderBag, secret: string, options: VerifyOptions = {}): VerifyResult {
  const raw = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const tolerance = options.toleranceSeconds ?? 300;
  const v2 = either(headers, 'signature-v2');
  const timestamp = either(headers, 'timestamp');
  let version: 'v1' | 'v2';
  if (v2 !== undefined && timestamp !== undefined) {
    if (!/^\d{1,12}$/.test(timestamp.trim())) return { ok: false, reason: 'timestamp_out_of_tolerance' };
    const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
    if (Math.abs(now - Number(timestamp.trim())) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
    const expected = hmacHex(secret, Buffer.concat([Buffer.from(`${timestamp.trim()}.`, 'utf8'), raw]));
    if (!same(expected, v2)) return { ok: false, reason: 'invalid_signature' };
    version = 'v2';
  } else {
    const v1 = either(headers, 'signature');
    if (v1 === undefined || options.requireV2) return { ok: false, reason: 'missing_signature' };
    if (!same(hmacHex(secret, raw), v1)) return { ok: false, reason: 'invalid_signature' };
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
