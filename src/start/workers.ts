// The background role: the webhook delivery worker and the scheduler. Started by `motu serve` for roles
// worker and all; stop() finishes the deliveries in flight (graceful SIGTERM).
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { startScheduler, type ScheduledJob } from '../events/scheduler.js';
import { startDeliveryWorker, type DeliveryWorkerOptions, type Logger } from '../events/worker.js';
import { scheduledJobs } from '../jobs.js';
import type { Clock } from '../shared/clock.js';

export { scheduledJobs } from '../jobs.js';

export interface Workers {
  stop(): Promise<void>;
}

export function startWorkers(
  config: Config,
  db: Database,
  clock: Clock,
  logger: Logger,
  options: { delivery?: DeliveryWorkerOptions; jobs?: ScheduledJob[] } = {},
): Workers {
  const delivery = startDeliveryWorker(config, db, clock, logger, options.delivery);
  const scheduler = startScheduler(options.jobs ?? scheduledJobs(db, clock, config, logger), clock, logger);
  return {
    async stop() {
      await Promise.all([delivery.stop(), scheduler.stop()]);
    },
  };
}
