import type { Kysely } from 'kysely';

// The mail outbox and merchant branding.
// - mail_jobs: a mail to send (a payment receipt, a card-link invitation), written on the transaction of the state
//   change that asks for it and sent by the worker role with retries (src/mail/mail.worker.ts). One job per
//   (kind, subject): a second request for the same mail is a no-op.
// - merchants: the name shown to customers, and the colours of the hosted pages and the SDK's default theme.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mail_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('claim_token', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mail_jobs_subject').on('mail_jobs').columns(['kind', 'subject_id']).unique().execute();
  await db.schema.createIndex('mail_jobs_due').on('mail_jobs').columns(['status', 'next_attempt_at']).execute();

  await db.schema.alterTable('merchants').addColumn('display_name', 'text').execute();
  await db.schema.alterTable('merchants').addColumn('primary_color', 'text').execute();
  await db.schema.alterTable('merchants').addColumn('accent_color', 'text').execute();
}
