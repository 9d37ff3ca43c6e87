// Events as the merchant receives them (the exact webhook bodies), read back from the events table in the order
// they were recorded. Typed loosely: tests read whatever field the payload of each type carries.
import type { TestApp } from './harness.js';

/** The events of one payment, in the order they were recorded. */
export async function paymentEvents(t: TestApp, paymentId: string): Promise<any[]> {
  const rows = await t.db.kysely.selectFrom('webhook_events').select(['body'])
    .where('payment_id', '=', paymentId).orderBy('created_at').orderBy('seq').execute();
  return rows.map((r) => JSON.parse(r.body));
}

/** Every event of one type (all merchants), in the order they were recorded. */
export async function eventsOfType(t: TestApp, type: string): Promise<any[]> {
  const rows = await t.db.kysely.selectFrom('webhook_events').select(['body']).where('type', '=', type).orderBy('created_at').orderBy('seq').execute();
  return rows.map((r) => JSON.parse(r.body));
}
