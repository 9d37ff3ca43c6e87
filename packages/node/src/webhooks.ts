// Verifying a webhook: Motu signs the exact bytes it sends with the merchant's signing secret (whsec_…).
//   X-Service-Timestamp     epoch seconds
//   X-Service-Signature-V2  hex HMAC-SHA256(secret, "<timestamp>.<raw body>")
//   X-Service-Signature-V2-Previous  the same with the previous secret, for 24 h after a rotation
//   X-Service-Signature     hex HMAC-SHA256(secret, raw body): V1, no timestamp, kept for older receivers
// each also under the X-Mobupay- prefix. V2 is required: a request carrying any V2 header is judged on V2 alone (so
// stripping the timestamp never turns a captured request into a V1 one, replayable forever); a request carrying only
// V1 passes only with `allowV1: true`. Comparisons are constant-time.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { MotuWebhookError, type WebhookFailure } from './errors.js';
import type { MotuEvent } from './events.js';

/** Node's `request.headers`, a fetch `Headers`, or anything with `get(name)`. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | { get(name: string): string | null | undefined };

export interface VerifyWebhookOptions {
  /** Accepted distance between the timestamp and now, in seconds, either way. Default 300 (5 minutes). */
  tolerance?: number;
  /** Accept a request signed with V1 only (no timestamp, no replay protection). Default false. */
  allowV1?: boolean;
  /** "Now", for tests of your own receiver. Default: the clock. */
  now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null | undefined }).get(name) ?? undefined;
  }
  const bag = headers as Record<string, string | string[] | undefined>;
  for (const key of Object.keys(bag)) {
    if (key.toLowerCase() !== name) continue;
    const value = bag[key];
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function signatureHeader(headers: WebhookHeaders, suffix: string): string | undefined {
  return header(headers, `x-service-${suffix}`) ?? header(headers, `x-mobupay-${suffix}`);
}

function hmac(secret: string, parts: (string | Uint8Array)[]): Buffer {
  const h = createHmac('sha256', secret);
  for (const part of parts) h.update(part);
  return Buffer.from(h.digest('hex'), 'utf8');
}

/** Every pair is compared, each in constant time, without stopping at the first match. */
function anyMatches(expected: Buffer[], given: string[]): boolean {
  let ok = false;
  for (const e of expected) {
    for (const g of given) {
      const candidate = Buffer.from(g.trim().toLowerCase(), 'utf8');
      ok = (candidate.length === e.length && timingSafeEqual(candidate, e)) || ok;
    }
  }
  return ok;
}

const MESSAGES: Record<WebhookFailure, string> = {
  WEBHOOK_MISSING_SIGNATURE: 'The request carries no Motu signature',
  WEBHOOK_MISSING_TIMESTAMP: 'The request has a V2 signature but no X-Service-Timestamp',
  WEBHOOK_V1_NOT_ALLOWED: 'The request is signed with V1 only; pass allowV1: true to accept it',
  WEBHOOK_INVALID_SIGNATURE: 'No signature matches the body with the given secrets',
  WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE: 'The signature timestamp is outside the tolerance',
  WEBHOOK_INVALID_BODY: 'The body is not a Motu event',
};

function refuse(code: WebhookFailure): never {
  throw new MotuWebhookError({ status: 0, code, message: MESSAGES[code] });
}

/**
 * Checks that a webhook comes from Motu and returns its event, typed; throws a MotuWebhookError (`code` tells why)
 * otherwise. `rawBody` is the exact bytes received (a Buffer or the unparsed string, never a re-serialized object).
 * `secrets` is the signing secret, or several during a rotation (the new one first): any of them may match.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): MotuEvent {
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((s) => typeof s === 'string' && s.length > 0);
  if (keys.length === 0) throw new TypeError('verifyWebhook: give the webhook signing secret (or a list of secrets)');
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook: rawBody must be the body as received (a string or a Buffer), not a parsed object');
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const tolerance = options.tolerance ?? 300;
  const v2 = [signatureHeader(headers, 'signature-v2'), signatureHeader(headers, 'signature-v2-previous')].filter(
    (v): v is string => v !== undefined && v !== '',
  );
  const timestamp = signatureHeader(headers, 'timestamp')?.trim();

  if (v2.length > 0 || timestamp !== undefined) {
    if (v2.length === 0) refuse('WEBHOOK_MISSING_SIGNATURE');
    if (timestamp === undefined) refuse('WEBHOOK_MISSING_TIMESTAMP');
    if (!/^\d{1,12}$/.test(timestamp)) refuse('WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
    const now = Math.floor((options.now?.getTime() ?? Date.now()) / 1000);
    if (Math.abs(now - Number(timestamp)) > tolerance) refuse('WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
    if (!anyMatches(keys.map((k) => hmac(k, [`${timestamp}.`, body])), v2)) refuse('WEBHOOK_INVALID_SIGNATURE');
  } else {
    const v1 = signatureHeader(headers, 'signature');
    if (v1 === undefined || v1 === '') refuse('WEBHOOK_MISSING_SIGNATURE');
    if (!options.allowV1) refuse('WEBHOOK_V1_NOT_ALLOWED');
    if (!anyMatches(keys.map((k) => hmac(k, [body])), [v1])) refuse('WEBHOOK_INVALID_SIGNATURE');
  }

  let event: unknown;
  try {
    event = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    refuse('WEBHOOK_INVALID_BODY');
  }
  const e = event as Partial<MotuEvent> | null;
  if (typeof e !== 'object' || e === null || typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.data !== 'object') {
    refuse('WEBHOOK_INVALID_BODY');
  }
  return event as MotuEvent;
}
