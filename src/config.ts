import { availableParallelism } from 'node:os';
import { electronicFormatIBAN, isValidBIC, validateIBAN } from 'ibantools';
import { canonicalTimeZone } from './shared/timezone.js';

// Configuration: parsed once from the environment, validated, frozen, then passed down.
// Nothing reads process.env at import time; a wrong value stops the start naming the variable.

export type Role = 'api' | 'worker' | 'all';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly adminToken: string | undefined;
  readonly webhookRetrySchedule: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly allowLoopbackUrls: boolean;
  readonly seedDemo: boolean;
  readonly logLevel: string;
  readonly production: boolean;
  readonly rateLimit: { readonly max: number; readonly windowMs: number };
  readonly bodyLimitBytes: number;
  readonly testSettlementDelaySeconds: number;
  /** Test mode: seconds from a payout's creation to the simulated bank's answer (MOTU_TEST_PAYOUT_SECONDS). */
  readonly testPayoutSeconds: number;
  /** SQLite only: concurrent transactions share one durable commit (MOTU_SQLITE_GROUP_COMMIT, default true). */
  readonly sqliteGroupCommit: boolean;
  /** MOTU_SECRETS_KEY: 32 bytes (64 hex or base64) sealing webhook secrets at rest; unset: a key file in dataDir. */
  readonly secretsKey: string | undefined;
  /** MOTU_REFUND_RECOVERY_SECONDS: a refund still pending this long was interrupted; the worker resolves it (default 120). */
  readonly refundRecoverySeconds: number;
  /**
   * MOTU_OPERATION_CLAIM_SECONDS: a capture or cancel claim older than this was abandoned (its process stopped); a
   * retry may take it over and the worker resolves it (default 120).
   */
  readonly operationClaimSeconds: number;
  /** Cards a payment session may send to the acquirer (hosted page and card component together). */
  readonly maxCardAttempts: number;
  /** MOTU_TOKENS_PER_MINUTE: card tokens one client address may ask the token endpoint for per minute. */
  readonly tokensPerMinute: number;
  /** Card tokens one payment or wallet session may ask for, ever (MOTU_TOKENS_PER_SESSION). */
  readonly tokensPerSession: number;
  /**
   * MOTU_HOSTED_PAGES_PER_MINUTE: requests one client address may make per minute to the hosted invoice page, its PDF
   * and the receipt's PDF (anyone holding the link can ask for them).
   */
  readonly hostedPagesPerMinute: number;
  /** MOTU_PDF_THREADS: worker threads drawing PDFs off the event loop (default: the CPUs less one, at least one). */
  readonly pdfThreads: number;
  /** MOTU_SMTP_URL + MOTU_MAIL_FROM: receipts and card-link mails are sent; unset: no mail is queued. */
  readonly mail: MailConfig | undefined;
  /** MOTU_TIMEZONE: the IANA time zone of receipts for a merchant without its own (default Pacific/Tahiti). */
  readonly timezone: string;
  /**
   * MOTU_OPERATOR_NAME, MOTU_OPERATOR_IBAN, MOTU_OPERATOR_BIC: the operator's own account, the debtor of the SEPA
   * transfer files that pay live payouts out; unset: no transfer file can be made.
   */
  readonly operatorAccount: OperatorAccount | undefined;
  /**
   * Live payments through Monext (docs/live.md): MOTU_MONEXT_TIMEOUT_MS bounds every call (default 30000),
   * MOTU_MONEXT_SETTLEMENT_DELAY is the seconds from a capture to the remittance that pays it (default 86400), and
   * MOTU_MONEXT_API_URL and MOTU_MONEXT_WIDGET_URL replace Monext's API and widget origins (a test double on this
   * machine; never set in production).
   */
  readonly monext: { readonly apiUrl: string | undefined; readonly widgetUrl: string | undefined; readonly timeoutMs: number; readonly settlementDelaySeconds: number };
  /** Where `/metrics` answers (MOTU_METRICS_TOKEN, MOTU_METRICS_PORT); never open to whoever reaches PORT. */
  readonly metrics: MetricsExposure;
  /** LOG_FORMAT: `json` (pino lines), `pretty` (for people), or `auto`: pretty on a terminal outside production. */
  readonly logFormat: 'json' | 'pretty' | 'auto';
  /** How long the worker keeps what grows without bound (src/modules/retention; docs/reliability.md, "Retention"). */
  readonly retention: RetentionConfig;
}

/** Ages past which the worker deletes rows; 0 keeps them forever. */
export interface RetentionConfig {
  /** MOTU_RETENTION_ATTEMPTS_DAYS: the attempts of a delivery that succeeded, this many days after it did (default 90). */
  readonly attemptsDays: number;
  /** MOTU_RETENTION_USED_TOKENS_HOURS: a card token, this many hours after it was used (default 24). */
  readonly usedTokensHours: number;
  /** MOTU_RETENTION_AUDIT_DAYS: a back-office audit row, this many days after it was written (default 3650, ten years). */
  readonly auditDays: number;
  /** MOTU_RETENTION_BATCH: rows deleted per statement (default 1000): each batch is short, the API writes in between. */
  readonly batchSize: number;
}

/**
 * `/metrics` tells the traffic, the queues and the process's health: for the operator's scraper only. With a token it
 * answers on PORT (or on MOTU_METRICS_PORT, on HOST) to `Authorization: Bearer <token>`. Without one it answers only on
 * MOTU_METRICS_PORT bound to the loopback address, for a scraper on the same machine, or nowhere.
 */
export type MetricsExposure =
  | { readonly on: 'nowhere' }
  | { readonly on: 'app'; readonly token: string }
  | { readonly on: 'port'; readonly port: number; readonly host: string; readonly token: string | undefined };

export interface OperatorAccount {
  readonly name: string;
  /** Electronic form (no spaces). Never logged. */
  readonly iban: string;
  readonly bic: string | undefined;
}

export interface MailConfig {
  /** smtp://user:pass@host:port (STARTTLS when offered) or smtps:// (TLS from the start). Contains a password: never logged. */
  readonly smtpUrl: string;
  /** The From header: `Shop payments <pay@example.com>` or `pay@example.com`. */
  readonly from: string;
  /**
   * MOTU_TEST_MAIL_ALLOWLIST: the only addresses (`a@shop.example`) and domains (`shop.example`) a test-mode
   * receipt is mailed to, lower-cased; empty (the default): test-mode receipts are never mailed.
   */
  readonly testAllowlist: readonly string[];
}

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function schedule(env: Env, name: string): number[] {
  const raw = env[name] ?? '30,120,600,3600,21600';
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length !== 5 || parts.some((p) => !/^\d+$/.test(p))) {
    throw new ConfigError(name, `must be five comma-separated whole numbers of seconds, got "${raw}"`);
  }
  return parts.map(Number);
}

function url(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(name, 'must be http(s)');
  return raw.replace(/\/+$/, '');
}

/** The operator's account, checked without ever echoing the IBAN. */
function operatorAccount(env: Env): OperatorAccount | undefined {
  const name = env.MOTU_OPERATOR_NAME?.trim() || undefined;
  const rawIban = env.MOTU_OPERATOR_IBAN?.trim() || undefined;
  const bic = env.MOTU_OPERATOR_BIC?.trim().toUpperCase() || undefined;
  if (!name && !rawIban && !bic) return undefined;
  if (!rawIban) throw new ConfigError('MOTU_OPERATOR_IBAN', 'is required with MOTU_OPERATOR_NAME or MOTU_OPERATOR_BIC');
  const iban = electronicFormatIBAN(rawIban) ?? '';
  if (!validateIBAN(iban).valid) throw new ConfigError('MOTU_OPERATOR_IBAN', 'must be a valid IBAN (country length and mod-97)');
  if (!name || name.length > 70) throw new ConfigError('MOTU_OPERATOR_NAME', 'is required with MOTU_OPERATOR_IBAN (at most 70 characters)');
  if (bic !== undefined && !isValidBIC(bic)) throw new ConfigError('MOTU_OPERATOR_BIC', 'must be a BIC (8 or 11 characters)');
  return Object.freeze({ name, iban, bic });
}

/** The SMTP server's URL, checked without ever echoing it (it carries the password). */
function mailConfig(env: Env): MailConfig | undefined {
  const raw = env.MOTU_SMTP_URL?.trim() || undefined;
  const from = env.MOTU_MAIL_FROM?.trim() || undefined;
  if (from !== undefined && !/^([^<>\r\n"]{0,100}<[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+>|[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+)$/.test(from)) {
    throw new ConfigError('MOTU_MAIL_FROM', 'must be an address, "pay@example.com" or "Shop <pay@example.com>"');
  }
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError('MOTU_SMTP_URL', 'must be a URL like smtp://user:password@host:587 (the value is not shown: it may hold a password)');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') throw new ConfigError('MOTU_SMTP_URL', 'must start with smtp:// or smtps://');
  if (!parsed.hostname) throw new ConfigError('MOTU_SMTP_URL', 'must name a host');
  if (from === undefined) throw new ConfigError('MOTU_MAIL_FROM', 'is required with MOTU_SMTP_URL (the sender address of receipts and card links)');
  return Object.freeze({ smtpUrl: raw, from, testAllowlist: testAllowlist(env) });
}

function testAllowlist(env: Env): string[] {
  const entries = (env.MOTU_TEST_MAIL_ALLOWLIST ?? '').split(',').map((e) => e.trim().toLowerCase()).filter((e) => e !== '');
  for (const entry of entries) {
    if (!/^([^\s@<>",;]+@)?[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(entry)) {
      throw new ConfigError('MOTU_TEST_MAIL_ALLOWLIST', `must list addresses or domains separated by commas, got "${entry}"`);
    }
  }
  return Object.freeze(entries) as string[];
}

function timezone(env: Env): string {
  const raw = env.MOTU_TIMEZONE?.trim() || 'Pacific/Tahiti';
  const canonical = canonicalTimeZone(raw);
  if (!canonical) throw new ConfigError('MOTU_TIMEZONE', `must be an IANA time zone such as Pacific/Tahiti or Europe/Paris, got "${raw}"`);
  return canonical;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logFormat(env: Env, production: boolean): Config['logFormat'] {
  const raw = env.LOG_FORMAT?.trim().toLowerCase() || undefined;
  if (raw === undefined) return production ? 'json' : 'auto';
  if (raw !== 'json' && raw !== 'pretty') throw new ConfigError('LOG_FORMAT', `must be json or pretty, got "${env.LOG_FORMAT}"`);
  return raw;
}

/** The metrics token, checked without echoing it. */
function metricsToken(env: Env): string | undefined {
  const raw = env.MOTU_METRICS_TOKEN?.trim() || undefined;
  if (raw !== undefined && !/^[\x21-\x7e]{16,256}$/.test(raw)) {
    throw new ConfigError('MOTU_METRICS_TOKEN', 'must be 16 to 256 printable characters without spaces (openssl rand -hex 24); the value is not shown');
  }
  return raw;
}

function metricsPort(env: Env, port: number): number | undefined {
  if (!env.MOTU_METRICS_PORT?.trim()) return undefined;
  const value = integer(env, 'MOTU_METRICS_PORT', 0, 1, 65535);
  if (value === port) throw new ConfigError('MOTU_METRICS_PORT', `must differ from PORT (${port}): /metrics gets a port of its own`);
  return value;
}

function metricsExposure(env: Env, port: number, host: string): MetricsExposure {
  const token = metricsToken(env);
  const own = metricsPort(env, port);
  if (own !== undefined) return Object.freeze({ on: 'port', port: own, host: token === undefined ? '127.0.0.1' : host, token });
  return Object.freeze(token === undefined ? { on: 'nowhere' } : { on: 'app', token });
}

export function parseConfig(env: Env = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// connection string');
  }
  const logLevel = (env.LOG_LEVEL ?? 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const secretsKey = env.MOTU_SECRETS_KEY?.trim() || undefined;
  if (secretsKey !== undefined && !/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/.test(secretsKey)) {
    throw new ConfigError('MOTU_SECRETS_KEY', 'must be 32 bytes as 64 hex characters or base64 (openssl rand -base64 32)');
  }
  if (secretsKey === undefined && databaseUrl && production) {
    throw new ConfigError('MOTU_SECRETS_KEY', 'is required with DATABASE_URL in production (every process must share it): openssl rand -base64 32');
  }
  const adminToken = env.MOTU_ADMIN_TOKEN?.trim() || undefined;
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('MOTU_ADMIN_TOKEN', 'must be at least 16 characters');
  }
  const maxCardAttempts = integer(env, 'MOTU_MAX_CARD_ATTEMPTS', 10, 1, 1000);
  const host = env.HOST?.trim() || '127.0.0.1';
  return Object.freeze({
    port,
    host,
    publicUrl: url(env, 'MOTU_PUBLIC_URL', `http://localhost:${port}`),
    dataDir: env.MOTU_DATA_DIR?.trim() || './data',
    databaseUrl,
    adminToken,
    webhookRetrySchedule: Object.freeze(schedule(env, 'MOTU_WEBHOOK_RETRY_SCHEDULE')),
    webhookTimeoutMs: integer(env, 'MOTU_WEBHOOK_TIMEOUT_MS', 10_000, 1, 600_000),
    allowLoopbackUrls: boolean(env, 'MOTU_ALLOW_LOOPBACK_URLS', !production),
    seedDemo: boolean(env, 'MOTU_SEED_DEMO', !production),
    logLevel,
    production,
    rateLimit: Object.freeze({
      max: integer(env, 'MOTU_RATE_LIMIT_MAX', 1000, 1, 10_000_000),
      windowMs: integer(env, 'MOTU_RATE_LIMIT_WINDOW_MS', 60_000, 1, 86_400_000),
    }),
    bodyLimitBytes: integer(env, 'MOTU_BODY_LIMIT_BYTES', 1_048_576, 1024, 104_857_600),
    testSettlementDelaySeconds: integer(env, 'MOTU_TEST_SETTLEMENT_DELAY', 60, 0, 86_400 * 30),
    testPayoutSeconds: integer(env, 'MOTU_TEST_PAYOUT_SECONDS', 60, 0, 86_400),
    sqliteGroupCommit: boolean(env, 'MOTU_SQLITE_GROUP_COMMIT', true),
    secretsKey,
    refundRecoverySeconds: integer(env, 'MOTU_REFUND_RECOVERY_SECONDS', 120, 5, 86_400),
    operationClaimSeconds: integer(env, 'MOTU_OPERATION_CLAIM_SECONDS', 120, 5, 86_400),
    maxCardAttempts,
    // A session's card tokens: every card sent needs one, and a payer may mistype (refused numbers count) or change
    // card before sending, hence three per attempt by default. The budget never refills.
    tokensPerSession: integer(env, 'MOTU_TOKENS_PER_SESSION', 3 * maxCardAttempts, 1, 10_000),
    tokensPerMinute: integer(env, 'MOTU_TOKENS_PER_MINUTE', 30, 1, 10_000_000),
    hostedPagesPerMinute: integer(env, 'MOTU_HOSTED_PAGES_PER_MINUTE', 60, 1, 10_000_000),
    pdfThreads: integer(env, 'MOTU_PDF_THREADS', Math.max(1, availableParallelism() - 1), 1, 256),
    mail: mailConfig(env),
    timezone: timezone(env),
    operatorAccount: operatorAccount(env),
    monext: Object.freeze({
      apiUrl: env.MOTU_MONEXT_API_URL?.trim() ? url(env, 'MOTU_MONEXT_API_URL', '') : undefined,
      widgetUrl: env.MOTU_MONEXT_WIDGET_URL?.trim() ? url(env, 'MOTU_MONEXT_WIDGET_URL', '') : undefined,
      timeoutMs: integer(env, 'MOTU_MONEXT_TIMEOUT_MS', 30_000, 100, 600_000),
      settlementDelaySeconds: integer(env, 'MOTU_MONEXT_SETTLEMENT_DELAY', 86_400, 0, 86_400 * 30),
    }),
    metrics: metricsExposure(env, port, host),
    logFormat: logFormat(env, production),
    retention: Object.freeze({
      attemptsDays: integer(env, 'MOTU_RETENTION_ATTEMPTS_DAYS', 90, 0, 36_500),
      usedTokensHours: integer(env, 'MOTU_RETENTION_USED_TOKENS_HOURS', 24, 0, 876_000),
      auditDays: integer(env, 'MOTU_RETENTION_AUDIT_DAYS', 3650, 0, 36_500),
      batchSize: integer(env, 'MOTU_RETENTION_BATCH', 1000, 1, 100_000),
    }),
  });
}
