import type { Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// The PDFs of finalized documents (invoices, credit notes, receipts of paid payments), kept once drawn: drawing one
// takes up to seconds of a CPU, and what it shows no longer changes, or changes rarely (an invoice's paid amount).
// One row per document and language; `digest` is the SHA-256 of what the drawing was made from: a request whose
// document reads the same is answered these bytes, one whose document changed draws it again and replaces the row.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('document_pdfs')
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('lang', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('pdf', isPostgres(db) ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('document_pdfs_pk', ['document_id', 'lang'])
    .execute();
}
