// The scheduler: runs time-driven jobs every `everyMs` (session and authorization expiry, settlement, purges).
// A job is a function of "now" that does its own claiming, so running it in several processes is safe.
import type { Clock } from '../shared/clock.js';
import type { Logger } from './worker.js';

export interface ScheduledJob {
  name: string;
  everyMs: number;
  run(now: Date): Promise<unknown>;
}

export function startScheduler(jobs: readonly ScheduledJob[], clock: Clock, logger: Logger): { stop(): Promise<void> } {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();
  let stopping = false;
  for (const job of jobs) {
    let busy = false;
    const tick = () => {
      if (busy || stopping) return;
      busy = true;
      const p = job
        .run(clock.now())
        .catch((err) => logger.error({ job: job.name, err: String(err) }, 'scheduled job failed'))
        .finally(() => {
          busy = false;
          running.delete(p);
        });
      running.add(p);
    };
    const timer = setInterval(tick, job.everyMs);
    timer.unref();
    timers.push(timer);
  }
  return {
    async stop() {
      stopping = true;
      for (const t of timers) clearInterval(t);
      await Promise.all([...running]);
    },
  };
}
