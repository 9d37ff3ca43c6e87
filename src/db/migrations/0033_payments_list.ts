import { sql, type Kysely } from 'kysely';

// The payments list a back-office lives on (GET /api/v1/payments, docs/payments.md, "Listing and searching"): with a
// million payments for one merchant, each filter that narrows the list reads its own index in the list's order
// (created_at, id descending), so a page costs the rows it shows, not the rows it skips.
//
// - status, with or without a date range: (merchant, mode, status, created_at, id);
// - customerEmail and `q` as an email: the lower-cased email (the same expression the query compares; SQL's lower()
//   on both sides, so both dialects agree with themselves);
// - cardLast4: partial, only payments that reached a card (a new payment has none, so session creation never
//   writes it);
// - customerId (and customerEmail through the customer): partial, only payments of a known customer.
// The payment id (primary key), the SPR reference (unique) and the order reference (payments_order_reference) already
// have theirs: `q` and `reference` read them, and the list sorts the few payments they find (payments.service.ts,
// `filtered`). Amounts and currency are checked on the rows the list reads (they never narrow a list enough to need
// an index of their own).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('payments_status_list').on('payments').columns(['merchant_id', 'mode', 'status', 'created_at', 'id']).execute();
  await sql`create index payments_email_list on payments (merchant_id, mode, lower(email), created_at, id)`.execute(db);
  await db.schema.createIndex('payments_card_last4').on('payments').columns(['merchant_id', 'mode', 'card_last4', 'created_at', 'id'])
    .where(sql.ref('card_last4'), 'is not', null).execute();
  await db.schema.createIndex('payments_customer').on('payments').columns(['merchant_id', 'mode', 'customer_id', 'created_at', 'id'])
    .where(sql.ref('customer_id'), 'is not', null).execute();
}
