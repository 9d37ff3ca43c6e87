// What every part of the Monext connector works with, for one contract: the database (the connector's own rows), the
// clock, the contract's credentials and its HTTP client. The connector (monext.acquirer.ts) builds it once and hands it
// to each concern: widget sessions, reading outcomes, money movements, merchant-initiated charges, settlement.
import type { Selectable } from 'kysely';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { base62, pooledRandom } from '../../shared/ids.js';
import type { MonextClient, MonextClientOptions } from './monext.client.js';
import type { MonextCredentials } from './monext.config.js';
import type { MonextAuthorizationsTable } from './monext.table.js';

export interface MonextContext {
  readonly db: Database;
  readonly clock: Clock;
  readonly contractId: string;
  readonly credentials: MonextCredentials;
  readonly clientOptions: MonextClientOptions;
  readonly client: MonextClient;
}

/** A widget session's row (monext_authorizations, kind 'session'), or a merchant-initiated charge's (kind 'direct'). */
export type WidgetRow = Selectable<MonextAuthorizationsTable>;
/** An attempt's row with what was refunded of it (monext_refunds succeeded). */
export type AttemptRow = WidgetRow & { refunded: number };

/** A random id (the shared pool of random bytes: one system call per few hundred ids, as the simulator's). */
export function genId(prefix: string): string {
  return `${prefix}_${base62(pooledRandom(12), 16)}`;
}
