import type { Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// The merchant's logo on the hosted pages: its bytes, checked when uploaded (PNG, JPEG or WebP by their first
// bytes, size and dimensions bounded), one row per merchant. `merchants.logo_digest` is the SHA-256 of the bytes the
// pages show: it is in the logo's URL, so a new logo is a new URL and the old one can be cached for a year.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('logo_digest', 'text').execute();
  await db.schema.createTable('merchant_logos')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('image', isPostgres(db) ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
