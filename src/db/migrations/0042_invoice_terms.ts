import type { Kysely } from 'kysely';

// What a merchant adds to its invoices and credit notes beyond its legal identity: its own footer text, its
// late-payment terms and its early-payment discount (null: the documents print the statutory wording).
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['invoice_footer', 'late_payment_terms', 'early_payment_discount']) {
    await db.schema.alterTable('merchants').addColumn(column, 'text').execute();
  }
}
