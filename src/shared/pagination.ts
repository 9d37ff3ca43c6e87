// Cursor pagination, newest first: `?limit=` (1–100, default 20) and `?startingAfter=<id>` → {data, hasMore}.
import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { DB } from '../db/schema.js';
import { invalidField } from './errors.js';

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export interface PageRequest {
  limit?: number;
  startingAfter?: string;
}

type Paged = 'customers' | 'payments' | 'payment_sessions' | 'payment_methods' | 'card_links' | 'webhook_endpoints' | 'bank_accounts' | 'payouts' | 'test_clocks' | 'disputes' | 'subscriptions' | 'invoices' | 'credit_notes' | 'audit_log' | 'merchants'
  | 'agency_invitations' | 'agency_mandates';

/**
 * Rows after `cursor` in the order (created_at, id) descending. The first bound, `created_at <= cursor`, says nothing
 * the rest does not; it is the range PostgreSQL starts its index scan at, where the OR alone makes it read the list
 * from its head and skip every row before the cursor (a CSV export of a million rows would read 500 million).
 */
function before(cursor: { created_at: string; id: string }) {
  return (eb: ExpressionBuilder<any, any>) => eb.and([
    eb(eb.ref('created_at'), '<=', cursor.created_at),
    eb.or([
      eb(eb.ref('created_at'), '<', cursor.created_at),
      eb.and([eb(eb.ref('created_at'), '=', cursor.created_at), eb(eb.ref('id'), '<', cursor.id)]),
    ]),
  ]);
}

/**
 * Applies the cursor to a query over a table with `id` and `created_at`, ordered by (created_at, id) descending.
 * The cursor row is looked up within the caller's own objects: an id from elsewhere is a 400, never a leak.
 */
export async function paginate<T extends Paged, O extends { id: string; created_at: string }>(
  query: SelectQueryBuilder<DB, T, O>,
  page: PageRequest,
  cursorOf: (id: string) => Promise<{ created_at: string } | undefined>,
): Promise<Page<O>> {
  const limit = page.limit ?? 20;
  let q = query;
  if (page.startingAfter) {
    const cursor = await cursorOf(page.startingAfter);
    if (!cursor) throw invalidField('startingAfter', 'is not an id from this list');
    q = q.where(before({ created_at: cursor.created_at, id: page.startingAfter }));
  }
  const rows = await q
    .orderBy('created_at' as never, 'desc')
    .orderBy('id' as never, 'desc')
    .limit(limit + 1)
    .execute();
  return { data: rows.slice(0, limit) as O[], hasMore: rows.length > limit };
}

/**
 * Every row of a list query, newest first, one batch at a time (CSV exports): the same order and keyset as `paginate`,
 * so a million rows are read a batch per query, never all held at once.
 */
export async function* allRows<T extends Paged, O extends { id: string; created_at: string }>(
  query: SelectQueryBuilder<DB, T, O>,
  batch = 500,
): AsyncGenerator<O[]> {
  let after: { id: string; created_at: string } | undefined;
  for (;;) {
    let q = query;
    if (after) {
      q = q.where(before(after));
    }
    const rows = (await q.orderBy('created_at' as never, 'desc').orderBy('id' as never, 'desc').limit(batch).execute()) as O[];
    if (rows.length) yield rows;
    if (rows.length < batch) return;
    after = rows[rows.length - 1]!;
  }
}
