// What the three stages of a webhook delivery (claim.ts, send.ts, record.ts) share: the worker's settings and the
// rows it passes from one stage to the next.
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { WebhookDeliveryRow } from '../events.table.js';
import type { SendResult } from '../transport.js';

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface DeliveryContext {
  db: Database;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, 'webhookTimeoutMs' | 'allowLoopbackUrls'>;
  /** Seconds before each retry (config.webhookRetrySchedule); past the last, a delivery is abandoned. */
  schedule: readonly number[];
  /** Sends in flight at once to one target. */
  perTarget: number;
  leaseMs: number;
  /** Prefixes this worker's claim tokens. */
  workerId: string;
}

/** A claimed delivery and the exact bytes it sends. */
export interface Claimed {
  row: WebhookDeliveryRow;
  body: Buffer;
}

export interface Sent {
  started: Date;
  result: SendResult;
}

/** A sent attempt waiting for the record stage; `done` releases its slot once recorded. */
export interface Finished extends Sent {
  c: Claimed;
  done: () => void;
}

/** Rows per multi-row INSERT (SQLite and PostgreSQL bound the number of parameters of one statement). */
export const INSERT_CHUNK = 200;
