// The app-and-merchant most test files start from: a fresh app on the given database and one merchant created
// through the admin API, both ready before the first test and closed after the last.
import { after, before } from 'node:test';
import type { Dialect } from '../../src/db/database.js';
import { createMerchant, type MerchantFixture } from './factories.js';
import { ManualClock, startApp, type TestApp, type TestAppOptions } from './harness.js';

export interface MerchantAppOptions extends Omit<TestAppOptions, 'clock'> {
  /** A manual clock the app runs on; 'now' makes one that reads the real time when the app starts. */
  clock?: ManualClock | 'now';
  /** The merchant's name (createMerchant's default otherwise). */
  merchantName?: string;
}

export interface MerchantApp {
  /** The app: api/admin callers, db, config. Filled in by the suite's first `before`. */
  t: TestApp;
  /** The merchant with its test and live keys. Filled in by the suite's first `before`. */
  m: MerchantFixture;
  /** The manual clock given in the options (throws when the app runs on the system clock). */
  clock: ManualClock;
  /** Closes the app and drops its database; the suite's `after` calls it too. */
  close(): Promise<void>;
}

/**
 * Registers, in the calling describe(), a `before` that starts the app and creates the merchant, and an `after`
 * that closes the app. Call it before the suite's own hooks: its `before` runs first, its `after` first as well.
 * `t` and `m` are the same objects for the whole suite, so closures made at describe time may use them.
 */
export function withMerchantApp(dialect: Dialect, options: MerchantAppOptions = {}): MerchantApp {
  const { clock: clockOption, merchantName, ...appOptions } = options;
  const manual = clockOption === 'now' ? new ManualClock() : clockOption;
  const t = {} as TestApp;
  const m = {} as MerchantFixture;
  let started: TestApp | undefined;
  let closed = false;
  const close = async () => {
    if (closed || !started) return;
    closed = true;
    await started.close();
  };
  before(async () => {
    if (clockOption === 'now') manual!.set(new Date());
    started = await startApp(dialect, { ...appOptions, clock: manual });
    Object.assign(t, started);
    Object.assign(m, await createMerchant(t, merchantName));
  });
  after(close);
  return {
    t,
    m,
    get clock(): ManualClock {
      if (!manual) throw new Error('withMerchantApp: this suite runs on the system clock; pass options.clock to drive time');
      return manual;
    },
    close,
  };
}
