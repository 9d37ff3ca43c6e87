// Reads of agencies' invitations and mandates, and their views as the API answers them.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { AgencyInvitationRow, AgencyMandateRow } from './agencies.table.js';
import type { Scope } from './scopes.js';

export { isAgency } from '../platforms/platform-links.js';

export function scopesOf(row: { scopes: string }): Scope[] {
  return JSON.parse(row.scopes) as Scope[];
}

export function invitationView(row: AgencyInvitationRow, publicUrl: string) {
  return {
    id: row.id,
    url: `${publicUrl}/agency-invitations/${row.token}`,
    email: row.email,
    scopes: scopesOf(row) as string[],
    status: row.status,
    mode: row.mode,
    expiresAt: row.expires_at,
    merchantId: row.merchant_id,
    mandateId: row.mandate_id,
    createdAt: row.created_at,
  };
}
export type InvitationView = ReturnType<typeof invitationView>;

export function mandateView(row: AgencyMandateRow, names: { agencyName?: string; merchantName?: string } = {}) {
  return {
    id: row.id,
    agencyId: row.agency_id,
    agencyName: names.agencyName ?? null,
    merchantId: row.merchant_id,
    merchantName: names.merchantName ?? null,
    mode: row.mode,
    scopes: scopesOf(row) as string[],
    status: row.status,
    revokedBy: row.revoked_by,
    revokedAt: row.revoked_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
export type MandateView = ReturnType<typeof mandateView>;

/** The display names of merchants, by id (the portfolio shows its clients' names, the client its agencies'). */
export async function merchantNames(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom('merchants').select(['id', 'name', 'display_name']).where('id', 'in', unique).execute();
  return new Map(rows.map((r) => [r.id, r.display_name ?? r.name]));
}

/** The mandate an agency holds on a client's environment: the active one, else the latest revoked one, else none. */
export async function mandateOn(db: Kysely<DB>, agencyId: string, merchantId: string, mode: Mode): Promise<AgencyMandateRow | undefined> {
  return db.selectFrom('agency_mandates').selectAll()
    .where('agency_id', '=', agencyId).where('merchant_id', '=', merchantId).where('mode', '=', mode)
    .orderBy(sql`case when status = 'active' then 0 else 1 end`).orderBy('updated_at', 'desc').orderBy('id', 'desc')
    .limit(1).executeTakeFirst();
}
