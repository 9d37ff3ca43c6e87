import type { Kysely } from 'kysely';

// Every attempt to send a mail is a row, as every webhook attempt is: when it started, how it ended (sent, failed with
// the SMTP error, lost when the worker stopped during it, skipped when the mail was no longer due). No address and
// no body: the job row knows the recipient, the error is the server's code and response line.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mail_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mail_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('mail_attempts_mail').on('mail_attempts').columns(['mail_id', 'attempt']).execute();
}
