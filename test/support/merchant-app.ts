// The app-and-merchant most test files start from: a fresh app on the given database and one merchant created
// through the admin API, both ready before the first test and closed after the last. What some suites need
// around the app (a real port, the worker role, a fake merchant receiving webhooks, a browser) comes with it
// as options, so that it is started after the app and stopped before the app closes.
import { after, afterEach, before, beforeEach } from 'node:test';
import type { Browser } from 'playwright-core';
import type { Dialect } from '../../src/db/database.js';
import { startWorkers, type Workers } from '../../src/start/workers.js';
import { chromiumAvailable, CHROMIUM_PATH, launchBrowser } from './browser.js';
import { createMerchant, type MerchantFixture } from './factories.js';
import { assertAnswersMatch } from './answers.js';
import { ManualClock, startApp, type TestApp, type TestAppOptions } from './harness.js';
import { freePort } from './ports.js';
import { startReceiver, type Receiver } from './receiver.js';

type WorkerOptions = NonNullable<Parameters<typeof startWorkers>[4]>;

const silent = { info() {}, warn() {}, error() {} };

export interface AppOptions extends Omit<TestAppOptions, 'clock' | 'env'> {
  /** Configuration variables; a function is read when the app starts (for addresses known only then). */
  env?: Record<string, string> | (() => Record<string, string>);
  /** A manual clock the app runs on; 'now' makes one that reads the real time when the app starts. */
  clock?: ManualClock | 'now';
  /** Listen on a free loopback port, MOTU_PUBLIC_URL set to it (browsers, 3-D Secure returns, `motu listen`). */
  serve?: boolean;
  /** Run the worker role (deliveries and scheduled jobs) on the app's database, logging nothing. */
  workers?: boolean | WorkerOptions;
  /** Start a fake merchant that records the webhooks it receives. */
  receiver?: boolean;
  /** Launch Chromium (the suite fails in its `before` when it is missing). */
  browser?: boolean;
  /** A fresh app (and merchant) for each test, started in `beforeEach` and closed in `afterEach`. */
  eachTest?: boolean;
}

export interface MerchantAppOptions extends AppOptions {
  /** The merchant's name (createMerchant's default otherwise). */
  merchantName?: string;
}

export interface AppFixture {
  /** The app: api/admin callers, db, config. Filled in by the suite's first `before`. */
  t: TestApp;
  /** The manual clock given in the options (throws when the app runs on the system clock). */
  clock: ManualClock;
  /** The app's own address, `http://127.0.0.1:<port>` (options.serve); read it in a hook or a test. */
  baseUrl: string;
  /** The fake merchant (options.receiver); the same object for the whole suite, like `t`. */
  rx: Receiver;
  /** Chromium (options.browser); read it in a hook or a test. */
  browser: Browser;
  /** Stops what the options started, closes the app and drops its database; the suite's `after` calls it too. */
  close(): Promise<void>;
}

export interface MerchantApp extends AppFixture {
  /** The merchant with its test and live keys. Filled in by the suite's first `before`. */
  m: MerchantFixture;
}

function missing(what: string, option: string, asked: unknown): never {
  if (asked) throw new Error(`withMerchantApp: ${what} is not started yet; read it in a hook or a test, not at describe time`);
  throw new Error(`withMerchantApp: ${what} was not asked for; pass options.${option}`);
}

/**
 * Registers, in the calling describe(), a `before` that starts the app (and what the options ask for) and an
 * `after` that stops it all (`beforeEach`/`afterEach` with options.eachTest). Hooks run in the order they are
 * registered, `after` hooks too: a suite's own `before` that needs the app comes after this call, and a suite's
 * own `after` that must run while the app is still up (stopping a worker it started) comes before it.
 * `t` (and `rx`) are the same objects for the whole suite, so closures made at describe time may use them.
 * For suites whose tests create their own merchants.
 */
export function withApp(dialect: Dialect, options: AppOptions = {}, ready?: (t: TestApp) => Promise<void>): AppFixture {
  const { clock: clockOption, env: envOption, serve, workers: workerOption, receiver, browser: browserOption, eachTest, ...appOptions } = options;
  const manual = clockOption === 'now' ? new ManualClock() : clockOption;
  const t = {} as TestApp;
  let started: TestApp | undefined;
  let baseUrl: string | undefined;
  let workers: Workers | undefined;
  const rx = {} as Receiver;
  let receiving = false;
  let browser: Browser | undefined;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await workers?.stop();
    await browser?.close();
    if (receiving) await rx.close();
    await started?.close();
    workers = browser = started = undefined;
    receiving = false;
  };
  (eachTest ? beforeEach : before)(async () => {
    closed = false;
    if (clockOption === 'now') manual!.set(new Date());
    let env = typeof envOption === 'function' ? envOption() : envOption;
    if (serve) {
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      env = { MOTU_PUBLIC_URL: baseUrl, ...env };
    }
    started = await startApp(dialect, { ...appOptions, env, clock: manual });
    Object.assign(t, started);
    if (baseUrl) await t.app.listen({ port: Number(new URL(baseUrl).port), host: '127.0.0.1' });
    if (workerOption) workers = startWorkers(t.config, t.db, t.clock, silent, workerOption === true ? {} : workerOption);
    if (receiver) {
      Object.assign(rx, await startReceiver());
      receiving = true;
    }
    if (browserOption) {
      if (!chromiumAvailable()) throw new Error(`Chromium is needed at ${CHROMIUM_PATH} (apt-get install -y chromium)`);
      browser = await launchBrowser();
    }
    await ready?.(t);
  });
  // Each test answers for what it asked: the answers its calls got that the OpenAPI document does not describe.
  if (appOptions.checkAnswers) {
    afterEach(() => {
      if (t.answers) assertAnswersMatch(t.answers);
    });
  }
  (eachTest ? afterEach : after)(close);
  return {
    t,
    get clock(): ManualClock {
      if (!manual) throw new Error('withMerchantApp: this suite runs on the system clock; pass options.clock to drive time');
      return manual;
    },
    get baseUrl() {
      return baseUrl ?? missing('a listening app', 'serve', serve);
    },
    get rx() {
      return receiver ? rx : missing('a receiver', 'receiver', false);
    },
    get browser() {
      return browser ?? missing('a browser', 'browser', browserOption);
    },
    close,
  };
}

/** withApp, and one merchant created through the admin API once the app is up. */
export function withMerchantApp(dialect: Dialect, options: MerchantAppOptions = {}): MerchantApp {
  const { merchantName, ...appOptions } = options;
  const m = {} as MerchantFixture;
  const fixture = withApp(dialect, appOptions, async (t) => {
    Object.assign(m, await createMerchant(t, merchantName));
  });
  return Object.assign(fixture, { m });
}
