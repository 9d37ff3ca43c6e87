// Test harness: every integration test runs once per database. SQLite always; PostgreSQL when
// DATABASE_URL is set (CI sets it). Each app gets its own fresh database (a temp folder, or a new
// PostgreSQL database created for it), so test files can run in parallel.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createLogger } from '../../src/http/logger.js';
import { assertAnswersMatch, checkAnswers, type AnswerCheck } from './answers.js';
import { parseConfig, type Config } from '../../src/config.js';
import { openDatabase, type Database, type Dialect } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { ManualClock, systemClock, type Clock } from '../../src/shared/clock.js';
import { sha256Hex } from '../../src/shared/hash.js';
import { FakeMonext } from './fake-monext.js';
import { LIVE_PROFILE } from './profile.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export function dialects(): Dialect[] {
  return process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** describe() once per database, with the dialect in the title. */
export function eachDatabase(title: string, fn: (dialect: Dialect) => void): void {
  for (const dialect of dialects()) {
    describe(`${title} [${dialect}]`, () => fn(dialect));
  }
}

export interface TestDatabase {
  db: Database;
  databaseUrl?: string;
  dataDir: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database of the given dialect. */
export async function freshDatabase(dialect: Dialect, options: { migrate?: boolean; listenerHeartbeatMs?: number } = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'motu-test-'));
  let databaseUrl: string | undefined;
  let dropPg: (() => Promise<void>) | undefined;
  if (dialect === 'postgres') {
    const base = process.env.DATABASE_URL;
    if (!base) throw new Error('DATABASE_URL is needed for PostgreSQL tests');
    const name = `motu_t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropPg = async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  }
  const db = openDatabase({ databaseUrl, dataDir, listenerHeartbeatMs: options.listenerHeartbeatMs });
  if (options.migrate !== false) await migrate(db);
  let dropped = false;
  return {
    db,
    databaseUrl,
    dataDir,
    async drop() {
      if (dropped) return;
      dropped = true;
      await db.close().catch(() => {});
      if (dropPg) await dropPg();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A route as the app registered it: `GET /api/v1/payments/{id}` (parameters written as in the OpenAPI documents). */
export interface RegisteredRoute {
  method: string;
  path: string;
  /** Left out of the OpenAPI documents (`schema.hide`). */
  hidden: boolean;
  /** The top-level fields of its JSON body schema, if it declares one. */
  bodyKeys: string[];
  /** The parameters of its query string schema, if it declares one (`kind`, `subjectId`; `keys` of a user's removal). */
  queryKeys: string[];
}

export interface TestApp {
  app: FastifyInstance;
  /** Every route the app registered (HEAD routes Fastify adds for GETs left out), in registration order. */
  routes: RegisteredRoute[];
  config: Config;
  db: Database;
  clock: Clock;
  dialect: Dialect;
  databaseUrl?: string;
  dataDir: string;
  /** Admin API call. */
  admin(method: string, url: string, body?: unknown): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** The fake Monext this app's live contracts talk to (the live profile only: MOTU_TEST_ACQUIRER=monext). */
  monext?: FakeMonext;
  /** Merchant API call with a secret key. */
  api(key: string | undefined, method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** With options.checkAnswers: the answers checked so far and those the OpenAPI document does not describe. */
  answers?: AnswerCheck;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** PostgreSQL: the reference listener's heartbeat (DatabaseOptions.listenerHeartbeatMs). */
  listenerHeartbeatMs?: number;
  /**
   * Check every JSON answer of /api/v1 and /admin/v1 against its operation's schema in the OpenAPI document
   * (support/answers.ts); closing the app then fails, listing every answer the document does not describe.
   */
  checkAnswers?: boolean;
}

export async function startApp(dialect: Dialect, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await freshDatabase(dialect, { listenerHeartbeatMs: options.listenerHeartbeatMs });
  const clock = options.clock ?? systemClock;
  const monext = LIVE_PROFILE ? await new FakeMonext(() => clock.now()).start() : undefined;
  const config = parseConfig({
    // The live profile settles as the simulator does: Monext's remittance delay is the test settlement delay.
    ...(monext ? { MOTU_MONEXT_API_URL: monext.url, MOTU_MONEXT_SETTLEMENT_DELAY: options.env?.MOTU_TEST_SETTLEMENT_DELAY ?? '60' } : {}),
    MOTU_DATA_DIR: database.dataDir,
    DATABASE_URL: database.databaseUrl,
    MOTU_ADMIN_TOKEN: ADMIN_TOKEN,
    MOTU_PUBLIC_URL: 'http://localhost:3000',
    MOTU_RATE_LIMIT_MAX: '100000',
    MOTU_TOKENS_PER_MINUTE: '100000',
    MOTU_HOSTED_PAGES_PER_MINUTE: '100000',
    ...options.env,
  });
  const routes: RegisteredRoute[] = [];
  const onRoute = (route: RouteOptions) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      const schema = route.schema as { hide?: boolean; body?: { properties?: Record<string, unknown> }; querystring?: { properties?: Record<string, unknown> } } | undefined;
      routes.push({
        method, path: route.url.replace(/:(\w+)/g, '{$1}'), hidden: Boolean(schema?.hide),
        bodyKeys: Object.keys(schema?.body?.properties ?? {}), queryKeys: Object.keys(schema?.querystring?.properties ?? {}),
      });
    }
  };
  // A server error's cause goes to the test's stderr (the test's output in CI shows it beside the failing answer and
  // its request id); MOTU_TEST_LOG_LEVEL=info shows every request.
  const logger = createLogger(process.env.MOTU_TEST_LOG_LEVEL ?? 'error', pino.destination({ dest: 2, sync: true }));
  const app = await buildApp(config, { db: database.db, adminTokenHash: sha256Hex(ADMIN_TOKEN), clock, onRoute, logger });
  const answers = options.checkAnswers ? checkAnswers(app) : undefined;
  await app.ready();
  const call = async (auth: string | undefined, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...headers },
      ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as object }),
    });
    let parsed: unknown = res.body;
    try {
      parsed = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.statusCode, body: parsed as any, headers: res.headers as Record<string, unknown> };
  };
  return {
    app,
    routes,
    config,
    db: database.db,
    clock,
    dialect,
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    monext,
    answers,
    admin: (method, url, body) => call(ADMIN_TOKEN, method, url, body),
    api: call,
    async close() {
      await app.close();
      await database.drop();
      await monext?.stop();
      if (answers) assertAnswersMatch(answers);
    },
  };
}

export { ManualClock };
