// What an agency created on its client's account, and who created what among a page of objects: the API's answers
// show such objects with `actedBy: {agencyId}`, so the client sees which payments, refunds, customers,
// subscriptions and invoices its agency made.
import { compiledQuery } from '../../db/compiled.js';
import type { Database } from '../../db/database.js';
import type { ReferenceCache } from '../../db/reference-cache.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { Owner } from '../merchants/principal.js';

export async function recordCreatedByAgency(db: Database, owner: Owner, agencyId: string, objectIds: readonly string[], at: Date): Promise<void> {
  if (objectIds.length === 0) return;
  const rows = [...new Set(objectIds)].map((id) => ({ object_id: id, merchant_id: owner.merchantId, mode: owner.mode, agency_id: agencyId, created_at: at.toISOString() }));
  await db.kysely.insertInto('agency_created_objects').values(rows).onConflict((oc) => oc.column('object_id').doNothing()).execute();
}

const anyMandate = compiledQuery((db, p: { merchantId: string; mode: Mode }) => db.selectFrom('agency_mandates')
  .select('id').where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode).limit(1));

/**
 * Whether the owner's account ever gave an agency a mandate (a mandate is revoked, never deleted): without one, no
 * agency created anything on it. Mandates are reference rows: `reference` keeps the answer until one is written.
 */
export function hadAgency(db: Database, reference: ReferenceCache, owner: Owner): Promise<boolean> {
  return reference.get(`had-agency:${owner.merchantId}:${owner.mode}`,
    async () => (await anyMandate.executeTakeFirst(db.kysely, { merchantId: owner.merchantId, mode: owner.mode })) !== undefined);
}

// One object's (every answer about a single payment, session or refund), compiled once (src/db/compiled.ts).
const oneCreatedByAgency = compiledQuery((db, p: { id: string; merchantId: string; mode: Mode }) => db.selectFrom('agency_created_objects')
  .select(['object_id', 'agency_id']).where('object_id', '=', p.id).where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode));

/** The agency that created each of `objectIds` on the owner's account, where one did. */
export async function createdByAgency(db: Database, owner: Owner, objectIds: readonly string[]): Promise<Map<string, string>> {
  if (objectIds.length === 0) return new Map();
  const ids = [...new Set(objectIds)];
  if (ids.length === 1) {
    const row = await oneCreatedByAgency.executeTakeFirst(db.kysely, { id: ids[0]!, merchantId: owner.merchantId, mode: owner.mode });
    return new Map(row ? [[row.object_id, row.agency_id]] : []);
  }
  const rows = await db.kysely.selectFrom('agency_created_objects').select(['object_id', 'agency_id'])
    .where('object_id', 'in', ids).where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode).execute();
  return new Map(rows.map((r) => [r.object_id, r.agency_id]));
}
