// The service's logger: pino JSON lines, with the Authorization header and every secret redacted wherever
// a log call would carry them (a request object, a thrown error's context, a created merchant).
import pino, { type DestinationStream, type Logger } from 'pino';

const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'secretKey',
  'testSecretKey',
  'liveSecretKey',
  'webhookSecret',
  'testWebhookSecret',
  'liveWebhookSecret',
  'adminToken',
  'secret',
  'previousSecret',
];

// pino's `*` matches one level: list the top level, one level down, and the request headers explicitly.
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'request.headers.authorization',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
