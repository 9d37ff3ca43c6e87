// The service's logger: pino JSON lines, with the Authorization header and every secret redacted wherever
// a log call would carry them (a request object, a thrown error's context, a created merchant).
import pino, { type DestinationStream, type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';

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
  'iban',
  'iban_sealed',
  // The back-office: passwords, set-up links, the session's CSRF token, TOTP secrets and recovery codes.
  'password',
  'password_hash',
  'token',
  'csrfToken',
  'setupUrl',
  'recoveryCodes',
  'totp_secret',
  'otpauthUrl',
  'x-csrf-token',
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

/**
 * `format` (config.logFormat): `json`, `pretty`, or `auto`, pretty when stdout is a terminal. Either way the same
 * redaction applies: the pretty form is made from the JSON line pino wrote.
 */
export function createLogger(level: string, destination?: DestinationStream, format: 'json' | 'pretty' | 'auto' = 'json'): Logger {
  const out = destination ?? (format === 'pretty' || (format === 'auto' && process.stdout.isTTY) ? prettyStream(process.stdout) : undefined);
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, out);
}

const LEVEL_NAMES: Record<number, [string, string]> = {
  10: ['TRACE', '90'], 20: ['DEBUG', '36'], 30: ['INFO ', '32'], 40: ['WARN ', '33'], 50: ['ERROR', '31'], 60: ['FATAL', '35'],
};
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

/**
 * Development logs for people, without a dependency: `12:04:05.123 INFO  [reqId] message key=value …`, one line per
 * record (an error's stack on the lines below it), coloured on a terminal. pino's JSON line is parsed back: slower
 * than JSON, which is why production (LOG_FORMAT unset, NODE_ENV=production) never gets it.
 */
export function prettyStream(out: { write(text: string): unknown; isTTY?: boolean }): DestinationStream {
  const colour = Boolean(out.isTTY) && !process.env.NO_COLOR;
  const paint = (code: string, text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    write(line: string) {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const [name, code] = LEVEL_NAMES[record.level as number] ?? [String(record.level), '0'];
      const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
      const parts = [paint('2', time), paint(code, name)];
      if (record.reqId !== undefined) parts.push(paint('2', `[${String(record.reqId)}]`));
      if (record.msg !== undefined) parts.push(String(record.msg));
      let stack = '';
      for (const [key, value] of Object.entries(record)) {
        if (HIDDEN.has(key) || key === 'reqId') continue;
        if (key === 'err' && value && typeof value === 'object' && typeof (value as { stack?: unknown }).stack === 'string') {
          stack = `\n    ${(value as { stack: string }).stack.split('\n').join('\n    ')}`;
          parts.push(`${paint('2', 'err=')}${JSON.stringify((value as { message?: unknown }).message ?? '')}`);
          continue;
        }
        const text = typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
        parts.push(`${paint('2', `${key}=`)}${text}`);
      }
      out.write(`${parts.join(' ')}${stack}\n`);
    },
  };
}

type Bindings = Record<string, unknown>;

/**
 * Fastify's `childLoggerFactory`: a request's logger that becomes a pino child (bindings, redaction) only when the
 * request logs something. At `warn`, most requests log nothing, and building a child per request was measurable. A
 * route's own `logLevel` (the card token endpoint's `warn`) is kept by the lazy logger too, not by a child built ahead.
 */
export function lazyChildLoggerFactory(logger: Logger, bindings: Bindings, options: Record<string, unknown>): Logger {
  // Fastify's null logger (no logger configured) has no levels: its children are itself.
  if (options.serializers !== undefined || typeof (logger as Partial<Logger>).isLevelEnabled !== 'function') return logger.child(bindings, options);
  const level = typeof options.level === 'string' ? options.level : undefined;
  return new LazyChildLogger(logger, bindings, level) as unknown as Logger;
}

class LazyChildLogger {
  #parent: Logger;
  #bindings: Bindings;
  /** The route's own level, which the child gets as pino's `level` option; undefined: the parent's. */
  #level: string | undefined;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings, level: string | undefined) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#level = level;
  }

  private get real(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#level === undefined ? undefined : { level: this.#level }));
  }

  get level(): string {
    return this.#child?.level ?? this.#level ?? this.#parent.level;
  }

  /** As pino decides for a child at the route's level: the level's value against that threshold. */
  isLevelEnabled(level: string): boolean {
    if (this.#level === undefined) return this.#parent.isLevelEnabled(level);
    const values = this.#parent.levels.values;
    const value = values[level];
    return value !== undefined && value >= values[this.#level]!;
  }

  fatal(...args: unknown[]): void {
    if (this.isLevelEnabled('fatal')) (this.real.fatal as (...a: unknown[]) => void)(...args);
  }
  error(...args: unknown[]): void {
    if (this.isLevelEnabled('error')) (this.real.error as (...a: unknown[]) => void)(...args);
  }
  warn(...args: unknown[]): void {
    if (this.isLevelEnabled('warn')) (this.real.warn as (...a: unknown[]) => void)(...args);
  }
  info(...args: unknown[]): void {
    if (this.isLevelEnabled('info')) (this.real.info as (...a: unknown[]) => void)(...args);
  }
  debug(...args: unknown[]): void {
    if (this.isLevelEnabled('debug')) (this.real.debug as (...a: unknown[]) => void)(...args);
  }
  trace(...args: unknown[]): void {
    if (this.isLevelEnabled('trace')) (this.real.trace as (...a: unknown[]) => void)(...args);
  }
  silent(): void {}
  child(bindings: Bindings, options?: Record<string, unknown>): Logger {
    return this.real.child(bindings, options);
  }
}

/**
 * The bearer capabilities that travel in URLs: whoever holds one acts without any key, so a logged URL shows none of
 * them, as the Authorization header is redacted. One rule per kind, with what its holder can do. A new public page
 * reached by an unguessable address gets its rule here (test/secrets-in-logs.test.ts requests each one).
 */
const CAPABILITIES_IN_URLS: ReadonlyArray<readonly [pattern: RegExp, replacement: string]> = [
  // A session id (ses_…): pay the payment session, or manage the customer's saved cards (a wallet session, and a card
  // link, which is one). In /checkout/…, /wallet/…, /api/v1/sdk/sessions/…, ?sessionId=…, the card fields' ?session=….
  [/ses_[0-9A-Za-z]+/g, 'ses_[redacted]'],
  // A hosted invoice page's token (/invoices/<token>, /invoices/<token>/pdf): read the invoice and pay it.
  [/^(\/invoices\/)[^/?#]+/, '$1[redacted]'],
  // A back-office set-up or invitation link (/dashboard/setup/usr_….<mac>, /dashboard/api/setup/…): sets the user's
  // password. Its signature is the secret; the user id stays readable.
  [/(\/setup\/usr_[0-9A-Za-z]+\.)[A-Za-z0-9_-]+/g, '$1[redacted]'],
  // The test acquirer's bank page (/acquirer/v1/3ds/<authorization>): approve or refuse the 3-D Secure challenge.
  [/^(\/acquirer\/v1\/3ds\/)[^/?#]+/, '$1[redacted]'],
  // Query tokens: Monext's widget token in its return and notification URLs (token, paylinetoken, monext_session_id);
  // an authorization id coming back from 3-D Secure (?authorizationId=, which the bank page above is addressed by).
  [/([?&](?:token|paylinetoken|monext_session_id|authorizationId)=)[^&#]*/gi, '$1[redacted]'],
];

/** A URL as it may be logged: every bearer capability in it replaced by `[redacted]` (CAPABILITIES_IN_URLS). */
export function redactUrl(url: string): string {
  let out = url;
  for (const [pattern, replacement] of CAPABILITIES_IN_URLS) out = out.replace(pattern, replacement);
  return out;
}

/** The one log line of a request, at info, once answered: method, URL, route, status and time (no headers, no body). */
export function requestLogLine(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      { method: request.method, url: redactUrl(request.url), route: request.routeOptions.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime },
      'request completed',
    );
    done();
  });
}
