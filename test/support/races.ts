// The race table: for a route that moves money or consumes a count, conflicting requests fired all at once and the
// invariant that must hold afterwards (docs/reliability.md, "Races"). A row is data: how to build what the requests
// fight over, one request, and what must be true of the answers and the database. `raceSuite` runs every row on each
// database (one `it` per row), checks what holds for every row (no 5xx, `motu ledger verify` clean) and prints the
// figures of the run. A new route joins by adding one row to a table: the rows live in one module per domain under
// test/races/, and test/races.test.ts runs them all as the one table RACES.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Dialect } from '../../src/db/database.js';
import { verifyLedger } from '../../src/modules/ledger/verify.js';
import type { MerchantFixture } from './factories.js';
import { eachDatabase, ManualClock, type TestApp } from './harness.js';
import { withMerchantApp, type MerchantAppOptions } from './merchant-app.js';

/** What a row's functions are given: the app of the database being tried and its merchant. */
export interface RaceApp {
  t: TestApp;
  m: MerchantFixture;
  dialect: Dialect;
  /** The manual clock the app runs on (the row's `clock`); throws for a row on the system clock. */
  readonly clock: ManualClock;
}

/** An answer as the harness's callers give it. */
export interface Answer {
  status: number;
  body: any;
}

/** One line of the table. `C` is whatever `setup` builds for `fire` and `invariant` (ids, a key, a count before). */
export interface RaceRow<C = any> {
  name: string;
  /** How many requests are fired at once: 20 unless said. */
  requests?: number;
  /**
   * The databases the row means something on: both unless said. A race between connections exists only where several
   * write at once (PostgreSQL); SQLite's single writer serializes them, and the row still proves the answers there.
   */
  dialects?: readonly Dialect[];
  /**
   * Configuration the row relies on (`MOTU_TOKENS_PER_SESSION`, a lockout threshold…): rows with the same settings
   * share an app, so a row moved from one table to another takes its settings with it.
   */
  env?: Record<string, string>;
  /**
   * A manual clock the row's app runs on, set to the real time when the app starts ('now') or to a given instant
   * (a TOTP code, a day's bank file): rows with the same `env` and `clock` share the app and the clock.
   */
  clock?: 'now' | Date;
  /** A reason not to run the row (node:test's `skip`: `onlyOn('simulator', why)`), or false. */
  skip?: string | false;
  /** Builds, with ordinary requests, what the requests will fight over. */
  setup(app: RaceApp): Promise<C>;
  /** The `i`th request (0-based). All of them are started before any is awaited. */
  fire(app: RaceApp, context: C, i: number): Promise<Answer>;
  /** What must be true: exact counts of answers (`assertTally`), of rows, of events (`countEvents`). */
  invariant(app: RaceApp, context: C, answers: Answer[]): Promise<void>;
}

/** Types a row's context from its `setup` (a table of rows is then `RaceRow[]`). */
export function race<C>(row: RaceRow<C>): RaceRow<C> {
  return row;
}

/**
 * Runs the table on each database: one describe per database, one `it` per row. Rows with the same `env` share one
 * app and merchant (each row builds its own objects); `options` are every app's (its `env` under the rows' own).
 */
export function raceSuite(title: string, rows: readonly RaceRow[], options: MerchantAppOptions = {}): void {
  const names = rows.map((r) => r.name);
  assert.equal(new Set(names).size, names.length, `${title}: two rows share a name`);
  const groups = new Map<string, RaceRow[]>();
  for (const row of rows) {
    const key = JSON.stringify({ env: Object.entries(row.env ?? {}).sort(), clock: row.clock ?? null });
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  eachDatabase(title, (dialect) => {
    const figures = { rows: 0, requests: 0, ms: 0 };
    for (const [key, group] of groups) {
      const settings = JSON.parse(key) as { env: Array<[string, string]>; clock: string | null };
      const own = Object.fromEntries(settings.env);
      // The suite's env may be a function, read when the app starts (withMerchantApp): the rows' settings go on top.
      const env = () => ({ ...(typeof options.env === 'function' ? options.env() : options.env), ...own });
      // One clock per group and database, made here so that each database's app starts from the same instant.
      const clock = settings.clock === null ? options.clock : settings.clock === 'now' ? 'now' as const : new ManualClock(new Date(settings.clock));
      const run = () => raceRows(dialect, group, { ...options, env, clock }, figures);
      const words = [...settings.env.map(([k, v]) => `${k}=${v}`), ...(settings.clock ? [`clock ${settings.clock}`] : [])];
      if (groups.size === 1) run();
      else describe(words.length ? words.join(' ') : 'default settings', run);
    }
    after(() => {
      console.log(`${title} [${dialect}]: ${figures.rows} rows, ${figures.requests} requests fired in ${Math.round(figures.ms)} ms of races`);
    });
  });
}

function raceRows(dialect: Dialect, rows: readonly RaceRow[], options: MerchantAppOptions, figures: { rows: number; requests: number; ms: number }): void {
  const fixture = withMerchantApp(dialect, options);
  const { t, m } = fixture;
  for (const row of rows) {
    if (row.dialects && !row.dialects.includes(dialect)) continue;
    it(row.name, { skip: row.skip ?? false }, async () => {
      const app: RaceApp = { t, m, dialect, get clock() { return fixture.clock; } };
      const context = await row.setup(app);
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: row.requests ?? 20 }, (_, i) => row.fire(app, context, i)));
      figures.ms += performance.now() - started;
      figures.rows += 1;
      figures.requests += answers.length;
      const errors = answers.filter((a) => a.status >= 500);
      assert.deepEqual(errors, [], 'no request of a race may fail with a server error');
      await row.invariant(app, context, answers);
      await assertLedgerClean(t);
    });
  }
}

/** The answers counted by outcome: `201` for a success, `422 REFUND_EXCEEDS_CAPTURED` for a refusal (its code). */
export function tally(answers: readonly Answer[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const key = a.status < 400 ? String(a.status) : `${a.status} ${a.body?.code ?? '(no code)'}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort(([x], [y]) => x.localeCompare(y)));
}

/** Exactly these outcomes, each this many times (`{ '200': 1, '422 PAYMENT_NOT_CAPTURABLE': 19 }`); zeros are dropped. */
export function assertTally(answers: readonly Answer[], expected: Record<string, number>, message?: string): void {
  const wanted = Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0).sort(([x], [y]) => x.localeCompare(y)));
  assert.deepEqual(tally(answers), wanted, message ?? `answers: ${JSON.stringify(answers.filter((a) => a.status >= 400).map((a) => a.body).slice(0, 3))}`);
}

/** The answers that succeeded (2xx). */
export function succeeded(answers: readonly Answer[]): Answer[] {
  return answers.filter((a) => a.status >= 200 && a.status < 300);
}

/**
 * Events in the outbox of the given type, of one payment (`paymentId`) or whose payload matches `data` (every field
 * given equal): what the merchant's endpoints will be sent.
 */
export async function countEvents(t: TestApp, type: string, filter: { paymentId?: string; data?: Record<string, unknown> } = {}): Promise<number> {
  let q = t.db.kysely.selectFrom('webhook_events').select('body').where('type', '=', type);
  if (filter.paymentId) q = q.where('payment_id', '=', filter.paymentId);
  const rows = await q.execute();
  return rows.filter((r) => {
    const data = (JSON.parse(r.body) as { data: Record<string, unknown> }).data;
    return Object.entries(filter.data ?? {}).every(([k, v]) => data[k] === v);
  }).length;
}

/** `motu ledger verify` finds nothing. */
export async function assertLedgerClean(t: TestApp): Promise<void> {
  const result = await verifyLedger(t.db);
  assert.deepEqual(result.differences, [], 'motu ledger verify finds differences');
  assert.equal(result.ok, true);
}

/**
 * Numbers issued by a counter (invoice numbers `F-2026-000041`, or plain integers): no duplicate, and with `from`
 * given, exactly the run from it with no gap.
 */
export function assertGapless(numbers: ReadonlyArray<string | number>, from?: number): void {
  const values = numbers.map((n) => (typeof n === 'number' ? n : Number(/(\d+)$/.exec(n)?.[1])));
  assert.ok(values.every(Number.isInteger), `not numbered: ${numbers.join(', ')}`);
  const sorted = [...values].sort((a, b) => a - b);
  assert.equal(new Set(sorted).size, sorted.length, `a number issued twice: ${sorted.join(', ')}`);
  const first = from ?? sorted[0]!;
  assert.deepEqual(sorted, Array.from({ length: sorted.length }, (_, i) => first + i), `a gap: ${sorted.join(', ')}`);
}
