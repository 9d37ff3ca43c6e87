// The worker role's payment jobs on a test app, run in order on demand after moving a ManualClock, with the services
// built by the same composition root as the app's.
import { buildServices, type Services } from '../../src/compose.js';
import { runPaymentSchedule, scheduleDeps, type ScheduleDeps } from '../../src/jobs.js';
import type { Clock } from '../../src/shared/clock.js';
import type { TestApp } from './harness.js';

export interface Schedule {
  services: Services;
  deps: ScheduleDeps;
  /** One tick of every payment job (expiries, recoveries, settlement), at the clock's time. */
  tick(): ReturnType<typeof runPaymentSchedule>;
}

export function paymentSchedule(t: TestApp, clock: Clock): Schedule {
  const services = buildServices(t.config, t.db, clock);
  const deps = scheduleDeps(services, t.config, t.db, clock);
  return { services, deps, tick: () => runPaymentSchedule(deps) };
}
