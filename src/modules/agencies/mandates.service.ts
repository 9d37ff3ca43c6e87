// Mandates once given: the client's view and changes (scopes, transfer to another agency, revocation), the agency's
// portfolio and its own revocation, the operator's list, and what an agency may do on a client's account (acting).
import type { Database, Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads } from '../../events/payloads.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { paginate, type PageRequest } from '../../shared/pagination.js';
import type { Owner, Principal } from '../merchants/principal.js';
import type { AgencyMandateRow } from './agencies.table.js';
import { isAgency, mandateOn, mandateView, merchantNames, scopesOf, type MandateView } from './agencies.repository.js';
import { requireAgency } from './invitations.service.js';
import { parseScopes, type Scope } from './scopes.js';

/** What an agency holds on a client's environment, as the acting check needs it. */
export type MandateStanding =
  | { readonly status: 'active'; readonly mandateId: string; readonly scopes: readonly Scope[] }
  | { readonly status: 'revoked'; readonly mandateId: string }
  | { readonly status: 'none' };

export class AgencyMandatesService {
  constructor(private readonly db: Database, private readonly clock: Clock) {}

  /** The mandates given on the caller's environment, with each agency's name. */
  async listForClient(client: Owner, page: PageRequest) {
    const mine = () => this.db.kysely.selectFrom('agency_mandates').selectAll().where('merchant_id', '=', client.merchantId).where('mode', '=', client.mode);
    return this.named(await paginate(mine(), page, (id) => mine().where('id', '=', id).executeTakeFirst()));
  }

  /** The agency's portfolio: its mandates in this mode, with each client's name. */
  async listForAgency(agency: Principal, page: PageRequest & { status?: 'active' | 'revoked' }) {
    await requireAgency(this.db, agency);
    const mine = () => this.db.kysely.selectFrom('agency_mandates').selectAll().where('agency_id', '=', agency.merchantId).where('mode', '=', agency.mode);
    let q = mine();
    if (page.status) q = q.where('status', '=', page.status);
    return this.named(await paginate(q, page, (id) => mine().where('id', '=', id).executeTakeFirst()));
  }

  /** The operator's view: every mandate a merchant gave or holds, both modes, newest first. */
  async listForOperator(merchantId: string, page: PageRequest) {
    const its = () => this.db.kysely.selectFrom('agency_mandates').selectAll()
      .where((eb) => eb.or([eb('merchant_id', '=', merchantId), eb('agency_id', '=', merchantId)]));
    return this.named(await paginate(its(), page, (id) => its().where('id', '=', id).executeTakeFirst()));
  }

  /** The client changes what the agency may do. */
  async updateScopes(client: Principal, id: string, scopes: readonly string[]): Promise<MandateView> {
    const next = parseScopes(scopes);
    return this.db.transaction(async (trx) => {
      const row = await this.clientsActive(trx, client, id);
      const previous = scopesOf(row);
      if (sameScopes(previous, next)) return this.view(trx, row);
      const at = this.clock.now();
      const updated = { ...row, scopes: JSON.stringify(next), updated_at: at.toISOString() };
      await trx.updateTable('agency_mandates').set({ scopes: updated.scopes, updated_at: updated.updated_at }).where('id', '=', row.id).execute();
      await recordEvent(trx, {
        merchantId: row.agency_id, mode: row.mode, at,
        ...payloads.agencyMandateUpdated({ mandateId: row.id, agencyId: row.agency_id, merchantId: row.merchant_id, change: 'scopes', scopes: next, previousScopes: previous }),
      });
      return this.view(trx, updated);
    });
  }

  /** The client moves the mandate to another agency: both agencies are told. */
  async transfer(client: Principal, id: string, agencyId: string): Promise<MandateView> {
    const target = agencyId !== client.merchantId && (await isAgency(this.db.kysely, agencyId));
    return this.db.transaction(async (trx) => {
      const row = await this.clientsActive(trx, client, id);
      if (!target) throw invalidField('agencyId', 'is not an agency');
      if (row.agency_id === agencyId) throw invalidField('agencyId', 'already holds this mandate');
      const taken = await trx.selectFrom('agency_mandates').select('id').where('agency_id', '=', agencyId).where('merchant_id', '=', row.merchant_id)
        .where('mode', '=', row.mode).where('status', '=', 'active').executeTakeFirst();
      if (taken) throw new AppError('ALREADY_EXISTS', 'That agency already has a mandate on this account', { mandateId: taken.id });
      const at = this.clock.now();
      const updated = { ...row, agency_id: agencyId, updated_at: at.toISOString() };
      await trx.updateTable('agency_mandates').set({ agency_id: agencyId, updated_at: updated.updated_at }).where('id', '=', row.id).execute();
      const data = {
        mandateId: row.id, merchantId: row.merchant_id, change: 'ownership_transferred' as const, previousAgencyId: row.agency_id, agencyId, scopes: scopesOf(row),
      };
      await recordEvent(trx, { merchantId: row.agency_id, mode: row.mode, at, ...payloads.agencyMandateUpdated(data) });
      await recordEvent(trx, { merchantId: agencyId, mode: row.mode, at, ...payloads.agencyMandateUpdated(data) });
      return this.view(trx, updated);
    });
  }

  /**
   * The client or the agency ends the mandate: from its commit on, the agency's calls on that account are refused
   * (MANDATE_REVOKED), open event streams included. Revoking a revoked mandate answers it as it is, with no new event.
   */
  async revoke(party: Principal, id: string): Promise<MandateView> {
    if (party.actingFor) throw new AppError('ON_BEHALF_NOT_ALLOWED', 'A mandate is revoked by the client or the agency itself, not on behalf');
    return this.db.transaction(async (trx) => {
      const row = await this.db.lockForUpdate(trx.selectFrom('agency_mandates').selectAll().where('id', '=', id).where('mode', '=', party.mode)
        .where((eb) => eb.or([eb('merchant_id', '=', party.merchantId), eb('agency_id', '=', party.merchantId)]))).executeTakeFirst();
      if (!row) throw notFound('mandate', id);
      if (row.status === 'revoked') return this.view(trx, row);
      const by = row.merchant_id === party.merchantId ? 'client' as const : 'agency' as const;
      const at = this.clock.now();
      const updated: AgencyMandateRow = { ...row, status: 'revoked', revoked_by: by, revoked_at: at.toISOString(), updated_at: at.toISOString() };
      await trx.updateTable('agency_mandates').set({ status: 'revoked', revoked_by: by, revoked_at: updated.revoked_at, updated_at: updated.updated_at })
        .where('id', '=', row.id).execute();
      await recordEvent(trx, {
        merchantId: row.agency_id, mode: row.mode, at,
        ...payloads.agencyMandateRevoked({ mandateId: row.id, agencyId: row.agency_id, merchantId: row.merchant_id, scopes: scopesOf(row), revokedBy: by }),
      });
      return this.view(trx, updated);
    });
  }

  /**
   * What `agencyId` holds on `merchantId`'s environment in `mode`, for the acting check: `none` when the agency flag is
   * off or there never was a mandate (the caller answers 404, as for an unknown merchant).
   */
  async standing(agencyId: string, merchantId: string, mode: Principal['mode']): Promise<MandateStanding> {
    if (!(await isAgency(this.db.kysely, agencyId))) return { status: 'none' };
    const row = await mandateOn(this.db.kysely, agencyId, merchantId, mode);
    if (!row) return { status: 'none' };
    if (row.status === 'revoked') return { status: 'revoked', mandateId: row.id };
    return { status: 'active', mandateId: row.id, scopes: scopesOf(row) };
  }

  private async clientsActive(trx: Trx, client: Principal, id: string): Promise<AgencyMandateRow> {
    if (client.actingFor) throw new AppError('ON_BEHALF_NOT_ALLOWED', 'Only the client itself changes its mandates');
    const row = await this.db.lockForUpdate(trx.selectFrom('agency_mandates').selectAll().where('id', '=', id)
      .where('merchant_id', '=', client.merchantId).where('mode', '=', client.mode)).executeTakeFirst();
    if (!row) throw notFound('mandate', id);
    if (row.status === 'revoked') throw new AppError('MANDATE_REVOKED', 'This mandate is revoked; invite the agency again', { mandateId: row.id });
    return row;
  }

  private async view(trx: Trx, row: AgencyMandateRow): Promise<MandateView> {
    const names = await merchantNames(trx, [row.agency_id, row.merchant_id]);
    return mandateView(row, { agencyName: names.get(row.agency_id), merchantName: names.get(row.merchant_id) });
  }

  private async named(page: { data: AgencyMandateRow[]; hasMore: boolean }) {
    const names = await merchantNames(this.db.kysely, page.data.flatMap((r) => [r.agency_id, r.merchant_id]));
    return { data: page.data.map((r) => mandateView(r, { agencyName: names.get(r.agency_id), merchantName: names.get(r.merchant_id) })), hasMore: page.hasMore };
  }
}

function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s) => b.includes(s));
}
