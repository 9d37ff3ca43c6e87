// An agency's invitations to its future clients: created, listed, cancelled, expired, and accepted by an existing
// merchant (its own key, or its back-office owner), which creates the mandate. Every change writes its agency.* event
// to the agency's outbox in the same transaction.
import type { Database, Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads } from '../../events/payloads.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { newId, randomToken } from '../../shared/ids.js';
import { paginate, type PageRequest } from '../../shared/pagination.js';
import type { Owner, Principal } from '../merchants/principal.js';
import type { AgencyInvitationRow, AgencyMandateRow } from './agencies.table.js';
import { requireAgency as requireAgencyFlag } from '../platforms/platform-links.js';
import { invitationView, mandateView, merchantNames, scopesOf, type InvitationView } from './agencies.repository.js';
import { parseScopes, type Scope } from './scopes.js';

export const DEFAULT_INVITATION_SECONDS = 7 * 86_400;
export const MAX_INVITATION_SECONDS = 30 * 86_400;
const TOKEN = /^[0-9A-Za-z]{32}$/;

export interface InvitationInput {
  email: string;
  scopes: string[];
  /** Seconds until it expires (default 7 days). */
  expiresIn?: number;
}

/** 403 PERMISSION_DENIED unless the caller is an agency with its own key (the flag is read on every call). */
export async function requireAgency(db: Database, principal: Principal): Promise<void> {
  await requireAgencyFlag(db.kysely, principal);
}

export class AgencyInvitationsService {
  constructor(private readonly db: Database, private readonly clock: Clock, private readonly publicUrl: string) {}

  async create(agency: Principal, input: InvitationInput): Promise<InvitationView> {
    await requireAgency(this.db, agency);
    const scopes = parseScopes(input.scopes);
    const seconds = input.expiresIn ?? DEFAULT_INVITATION_SECONDS;
    const now = this.clock.now();
    const row: AgencyInvitationRow = {
      id: newId('agi'), agency_id: agency.merchantId, mode: agency.mode, email: input.email.trim().toLowerCase(),
      scopes: JSON.stringify(scopes), token: randomToken(32), status: 'pending',
      expires_at: new Date(now.getTime() + seconds * 1000).toISOString(), merchant_id: null, mandate_id: null,
      created_at: now.toISOString(), updated_at: now.toISOString(),
    };
    await this.db.transaction(async (trx) => {
      await trx.insertInto('agency_invitations').values(row).execute();
      await this.event(trx, row, 'created');
    });
    return invitationView(row, this.publicUrl);
  }

  async list(agency: Principal, page: PageRequest & { status?: string }) {
    await requireAgency(this.db, agency);
    const mine = () => this.db.kysely.selectFrom('agency_invitations').selectAll()
      .where('agency_id', '=', agency.merchantId).where('mode', '=', agency.mode);
    let q = mine();
    if (page.status) q = q.where('status', '=', page.status as AgencyInvitationRow['status']);
    const result = await paginate(q, page, (id) => mine().where('id', '=', id).executeTakeFirst());
    return { data: result.data.map((r) => invitationView(r, this.publicUrl)), hasMore: result.hasMore };
  }

  async get(agency: Principal, id: string): Promise<InvitationView> {
    await requireAgency(this.db, agency);
    return invitationView(await this.mine(agency, id), this.publicUrl);
  }

  async cancel(agency: Principal, id: string): Promise<InvitationView> {
    await requireAgency(this.db, agency);
    return this.db.transaction(async (trx) => {
      const row = await this.mine(agency, id, trx);
      if (row.status !== 'pending') {
        throw new AppError('INVITATION_NOT_PENDING', `This invitation is ${row.status}; only a pending invitation can be cancelled`, { status: row.status });
      }
      const at = this.clock.now().toISOString();
      const done = await trx.updateTable('agency_invitations').set({ status: 'cancelled', updated_at: at })
        .where('id', '=', row.id).where('status', '=', 'pending').executeTakeFirst();
      if (Number(done.numUpdatedRows) !== 1) throw new AppError('INVITATION_NOT_PENDING', 'This invitation is no longer pending');
      const cancelled = { ...row, status: 'cancelled' as const, updated_at: at };
      await this.event(trx, cancelled, 'cancelled');
      return invitationView(cancelled, this.publicUrl);
    });
  }

  /** Pending invitations past their expiry: expired, each with its event. Restart-safe: read from the table. */
  async expireDue(now: Date = this.clock.now()): Promise<number> {
    const due = await this.db.kysely.selectFrom('agency_invitations').selectAll()
      .where('status', '=', 'pending').where('expires_at', '<=', now.toISOString()).orderBy('expires_at').limit(100).execute();
    let expired = 0;
    for (const row of due) {
      await this.db.transaction(async (trx) => {
        const at = this.clock.now().toISOString();
        const done = await trx.updateTable('agency_invitations').set({ status: 'expired', updated_at: at })
          .where('id', '=', row.id).where('status', '=', 'pending').executeTakeFirst();
        if (Number(done.numUpdatedRows) !== 1) return;
        await this.event(trx, { ...row, status: 'expired', updated_at: at }, 'expired');
        expired += 1;
      });
    }
    return expired;
  }

  /** What the hosted page shows: the agency, the scopes, the state; NOT_FOUND for an unknown token. */
  async byToken(token: string) {
    const row = TOKEN.test(token) ? await this.db.kysely.selectFrom('agency_invitations').selectAll().where('token', '=', token).executeTakeFirst() : undefined;
    if (!row) throw notFound('invitation');
    const agency = await this.db.kysely.selectFrom('merchants').selectAll().where('id', '=', row.agency_id).executeTakeFirstOrThrow();
    const expired = row.status === 'expired' || (row.status === 'pending' && row.expires_at <= this.clock.now().toISOString());
    return { row, agency, scopes: scopesOf(row), status: expired ? 'expired' as const : row.status };
  }

  /**
   * The client accepts: with its own secret key (of the invitation's mode), or signed in to the back-office as an
   * owner (the mandate is then of the invitation's mode, whichever mode the session shows). Creates the mandate; one
   * invitation, one mandate, however many accept at once.
   */
  async accept(token: string, client: Principal) {
    if (client.actingFor) throw new AppError('ON_BEHALF_NOT_ALLOWED', 'An invitation is accepted by the client itself, not on its behalf');
    if (client.user && client.user.role !== 'owner') {
      throw new AppError('PERMISSION_DENIED', 'Only an owner of the account may give an agency a mandate; ask an owner of your team');
    }
    const found = TOKEN.test(token) ? await this.db.kysely.selectFrom('agency_invitations').selectAll().where('token', '=', token).executeTakeFirst() : undefined;
    if (!found || (!client.user && found.mode !== client.mode)) throw notFound('invitation');
    if (found.agency_id === client.merchantId) {
      throw new AppError('AGENCY_OWN_INVITATION', 'An agency cannot accept its own invitation; send its link to your client');
    }
    const owner: Owner = { merchantId: client.merchantId, mode: found.mode };
    return this.db.transaction(async (trx) => {
      const row = await this.db.lockForUpdate(trx.selectFrom('agency_invitations').selectAll().where('id', '=', found.id)).executeTakeFirstOrThrow();
      const now = this.clock.now().toISOString();
      if (row.status === 'pending' && row.expires_at <= now) throw new AppError('INVITATION_EXPIRED', 'This invitation has expired; ask the agency for a new one');
      if (row.status !== 'pending') {
        throw new AppError(row.status === 'expired' ? 'INVITATION_EXPIRED' : 'INVITATION_NOT_PENDING', `This invitation is ${row.status}`, { status: row.status });
      }
      const mandate = await createMandate(trx, { agencyId: row.agency_id, client: owner, scopes: scopesOf(row), invitationId: row.id, at: this.clock.now() });
      await trx.updateTable('agency_invitations').set({ status: 'accepted', merchant_id: owner.merchantId, mandate_id: mandate.id, updated_at: now })
        .where('id', '=', row.id).execute();
      const names = await merchantNames(trx, [mandate.agency_id, mandate.merchant_id]);
      return mandateView(mandate, { agencyName: names.get(mandate.agency_id), merchantName: names.get(mandate.merchant_id) });
    });
  }

  /** The name a merchant shows (the page says whom a signed-in user accepts for). */
  async merchantName(merchantId: string): Promise<string> {
    return (await merchantNames(this.db.kysely, [merchantId])).get(merchantId) ?? merchantId;
  }

  private async mine(agency: Owner, id: string, trx?: Trx): Promise<AgencyInvitationRow> {
    const q = (trx ?? this.db.kysely).selectFrom('agency_invitations').selectAll()
      .where('id', '=', id).where('agency_id', '=', agency.merchantId).where('mode', '=', agency.mode);
    const row = await (trx ? this.db.lockForUpdate(q) : q).executeTakeFirst();
    if (!row) throw notFound('invitation', id);
    return row;
  }

  private async event(trx: Trx, row: AgencyInvitationRow, what: 'created' | 'cancelled' | 'expired'): Promise<void> {
    const data = { invitationId: row.id, agencyId: row.agency_id, email: row.email, scopes: scopesOf(row), status: row.status, expiresAt: row.expires_at };
    const built = what === 'created' ? payloads.agencyInvitationCreated(data) : what === 'cancelled' ? payloads.agencyInvitationCancelled(data) : payloads.agencyInvitationExpired(data);
    await recordEvent(trx, { merchantId: row.agency_id, mode: row.mode, at: new Date(row.updated_at), ...built });
  }
}

/**
 * A new active mandate, with `agency.mandate.created` to the agency. 409 when the agency already holds an active
 * mandate on this client's environment (its scopes are changed by the client instead).
 */
export async function createMandate(
  trx: Trx, input: { agencyId: string; client: Owner; scopes: readonly Scope[]; invitationId: string | null; at: Date },
): Promise<AgencyMandateRow> {
  const existing = await trx.selectFrom('agency_mandates').select('id').where('agency_id', '=', input.agencyId)
    .where('merchant_id', '=', input.client.merchantId).where('mode', '=', input.client.mode).where('status', '=', 'active').executeTakeFirst();
  if (existing) throw new AppError('ALREADY_EXISTS', 'This agency already has a mandate on this account; change its scopes instead', { mandateId: existing.id });
  if (input.agencyId === input.client.merchantId) throw invalidField('merchantId', 'is the agency itself');
  const at = input.at.toISOString();
  const row: AgencyMandateRow = {
    id: newId('mdt'), agency_id: input.agencyId, merchant_id: input.client.merchantId, mode: input.client.mode,
    scopes: JSON.stringify(input.scopes), status: 'active', invitation_id: input.invitationId, revoked_by: null, revoked_at: null,
    created_at: at, updated_at: at,
  };
  await trx.insertInto('agency_mandates').values(row).execute();
  await recordEvent(trx, {
    merchantId: row.agency_id, mode: row.mode, at: input.at,
    ...payloads.agencyMandateCreated({ mandateId: row.id, agencyId: row.agency_id, merchantId: row.merchant_id, scopes: scopesOf(row), invitationId: row.invitation_id }),
  });
  return row;
}
