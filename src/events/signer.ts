// Webhook signatures (how to verify them: docs/webhooks.md), over the exact bytes sent:
//   X-Service-Signature     hex HMAC-SHA256(secret, body)                     (V1, kept for compatibility)
//   X-Service-Timestamp     epoch seconds
//   X-Service-Signature-V2  hex HMAC-SHA256(secret, `${timestamp}.${body}`)
//   X-Service-Event-Id      the event id
// each also under the X-Mobupay- prefix, and for 24 h after a rotation the previous secret's V2 signature
// in X-Service-Signature-V2-Previous (and X-Mobupay-Signature-V2-Previous).
import { createHmac } from 'node:crypto';

export function hmacHex(secret: string, payload: string | Buffer): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** hex HMAC-SHA256(secret, `${timestamp}.${body}`) without building the concatenation. */
function hmacV2(secret: string, ts: string, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex');
}

export interface SigningSecrets {
  secret: string;
  /** The secret before the last rotation, while it is still honoured. */
  previous?: string | null;
}

export function signatureHeaders(body: string | Buffer, secrets: SigningSecrets, timestampSeconds: number, eventId: string): Record<string, string> {
  const ts = String(timestampSeconds);
  const values: Record<string, string> = {
    Signature: hmacHex(secrets.secret, body),
    Timestamp: ts,
    'Signature-V2': hmacV2(secrets.secret, ts, body),
    'Event-Id': eventId,
  };
  if (secrets.previous) values['Signature-V2-Previous'] = hmacV2(secrets.previous, ts, body);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    headers[`x-service-${name.toLowerCase()}`] = value;
    headers[`x-mobupay-${name.toLowerCase()}`] = value;
  }
  return headers;
}
