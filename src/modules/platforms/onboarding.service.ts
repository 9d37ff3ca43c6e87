// Onboarding a platform's sellers: the sessions a platform hands a business (a hosted form, once, until it expires),
// the cases the form submits, their review, and the seller an approval creates. Every change and its events commit
// in one transaction; every event goes to the platform's outbox, in the mode of the key that made the session.
//
// Review. A case is SUBMITTED, then IN_REVIEW at once (both written by the submission). In test mode the decision
// follows in the same transaction, read from the legal name: "refuse" → REFUSED, "correction" → CORRECTION_REQUESTED
// on the first submission, otherwise APPROVED; so the platform hears the whole path within the form's request, and a
// restart can never leave a test case waiting. In live mode the operator decides (`decide`).
//
// An agency's invitation to a business with no account yet onboards it the same way (`sessionForInvitation`): the
// session and case carry the invitation's id and report to the agency (platform_id holds the agency's id), with
// `agency.client.*` events instead of `merchant.*`; the platform API never sees them, and an approval opens the
// merchant unlinked, then accepts the invitation and gives the agency its mandate, in the same transaction.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Database, Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads } from '../../events/payloads.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound, validationError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { BankAccountsService } from '../bank-accounts/bank-accounts.service.js';
import { checkedIban } from '../bank-accounts/iban.js';
import { mailable } from '../../mail/outbox.js';
import { urlProblem } from '../sessions/urls.js';
import type { BalanceService } from '../ledger/balance.service.js';
import type { LegalAddress, MerchantsService } from '../merchants/merchants.service.js';
import type { Merchant } from '../merchants/merchants.table.js';
import type { Owner, Principal } from '../merchants/principal.js';
import { linkSeller, requirePlatform, unlinkSeller } from './platform-links.js';
import { createMandate } from '../agencies/invitations.service.js';
import { scopesOf } from '../agencies/agencies.repository.js';
import type { EnrollmentStatus, OnboardingCase, OnboardingSession, SessionStatus } from './platforms.table.js';

export const DEFAULT_SESSION_SECONDS = 7 * 86_400;
export const MAX_SESSION_SECONDS = 30 * 86_400;

export interface SessionInput {
  email: string;
  businessName?: string;
  returnUrl: string;
  refreshUrl?: string;
  /** Seconds; default 7 days. */
  expiresIn?: number;
  /** A case awaiting corrections: the form corrects it (pre-filled but for the IBAN). */
  caseId?: string;
}

export interface Representative {
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD. */
  birthDate: string;
}

/** What the hosted form sends. */
export interface CaseForm {
  legalName: string;
  registrationNumber: string;
  address: LegalAddress;
  representative: Representative;
  iban: string;
  currency: 'EUR' | 'XPF';
}

export type Decision = 'APPROVED' | 'CORRECTION_REQUESTED' | 'REFUSED';

const PAGE_LIMIT_MAX = 100;

export class OnboardingService {
  private readonly urlKey: Buffer;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly publicUrl: string,
    private readonly merchants: MerchantsService,
    private readonly bankAccounts: BankAccountsService,
    private readonly balance: BalanceService,
    private readonly allowLoopbackUrls: boolean,
  ) {
    this.urlKey = box.derivedKey('onboarding-session-url');
  }

  // ---------- sessions (the platform's API) ----------

  /** The hosted form's address: the session id and its HMAC (nothing secret is stored; the id alone opens nothing). */
  sessionUrl(sessionId: string): string {
    return `${this.publicUrl}/onboarding/${sessionId}.${this.mac(sessionId)}`;
  }

  private mac(sessionId: string): string {
    return createHmac('sha256', this.urlKey).update(sessionId).digest('base64url');
  }

  /** The session a page token names, or undefined for a token that is not one of ours. */
  private sessionIdOf(token: string): string | undefined {
    const match = /^(obs_[0-9A-Za-z]{22})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match) return undefined;
    const [, id, mac] = match;
    const expected = Buffer.from(this.mac(id!));
    const given = Buffer.from(mac!);
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined;
  }

  /** What a session reads as now: an open session past its expiry is expired (the job writes it, with its event). */
  private statusOf(s: OnboardingSession, now = this.clock.now()): SessionStatus {
    return s.status === 'open' && s.expires_at <= now.toISOString() ? 'expired' : s.status;
  }

  sessionView(s: OnboardingSession) {
    return {
      id: s.id,
      url: this.sessionUrl(s.id),
      status: this.statusOf(s),
      email: s.email,
      businessName: s.business_name,
      returnUrl: s.return_url,
      refreshUrl: s.refresh_url,
      caseId: s.case_id,
      expiresAt: s.expires_at,
      createdAt: s.created_at,
      completedAt: s.completed_at,
      cancelledAt: s.cancelled_at,
    };
  }

  private sessionPayload(s: OnboardingSession, status: SessionStatus) {
    return { sessionId: s.id, email: s.email, status, expiresAt: s.expires_at, ...(s.case_id ? { caseId: s.case_id } : {}) };
  }

  async createSession(principal: Principal, input: SessionInput) {
    await requirePlatform(this.db.kysely, principal);
    const problems: Array<{ field: string; message: string }> = [];
    if (!mailable(input.email.trim())) problems.push({ field: 'email', message: 'must be an email address' });
    for (const field of ['returnUrl', 'refreshUrl'] as const) {
      const url = input[field];
      const problem = url === undefined ? undefined : urlProblem(url, 'return', { mode: principal.mode, allowLoopbackUrls: this.allowLoopbackUrls });
      if (problem) problems.push({ field, message: problem });
    }
    if (problems.length > 0) throw validationError(problems);
    const now = this.clock.now();
    const seconds = input.expiresIn ?? DEFAULT_SESSION_SECONDS;
    const row: OnboardingSession = {
      id: newId('obs'), platform_id: principal.merchantId, mode: principal.mode, email: input.email.trim().toLowerCase(),
      business_name: input.businessName?.trim() || null, return_url: input.returnUrl, refresh_url: input.refreshUrl ?? null,
      case_id: input.caseId ?? null, status: 'open', expires_at: new Date(now.getTime() + seconds * 1000).toISOString(),
      created_at: now.toISOString(), completed_at: null, cancelled_at: null, invitation_id: null,
    };
    await this.db.transaction(async (trx) => {
      if (input.caseId) {
        const found = await this.caseOf(trx, principal, input.caseId);
        if (!found) throw notFound('onboarding case', input.caseId);
        correctable(found);
      }
      await trx.insertInto('onboarding_sessions').values(row).execute();
      await recordEvent(trx, { merchantId: row.platform_id, mode: row.mode, at: now, ...payloads.merchantSessionCreated(this.sessionPayload(row, 'open')) });
    });
    return this.sessionView(row);
  }

  private sessionOf(q: Trx | Database['kysely'], owner: Owner, id: string) {
    return q.selectFrom('onboarding_sessions').selectAll()
      .where('id', '=', id).where('platform_id', '=', owner.merchantId).where('mode', '=', owner.mode).where('invitation_id', 'is', null).executeTakeFirst();
  }

  async getSession(principal: Principal, id: string) {
    await requirePlatform(this.db.kysely, principal);
    const row = await this.sessionOf(this.db.kysely, principal, id);
    if (!row) throw notFound('onboarding session', id);
    return this.sessionView(row);
  }

  /** An open session cancelled (its link shows the refresh page from then on); once, whatever the concurrency. */
  async cancelSession(principal: Principal, id: string) {
    await requirePlatform(this.db.kysely, principal);
    const now = this.clock.now();
    const at = now.toISOString();
    const row = await this.db.transaction(async (trx) => {
      const found = await this.sessionOf(trx, principal, id);
      if (!found) throw notFound('onboarding session', id);
      const res = await trx.updateTable('onboarding_sessions').set({ status: 'cancelled', cancelled_at: at })
        .where('id', '=', id).where('status', '=', 'open').where('expires_at', '>', at).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) {
        const current = (await this.sessionOf(trx, principal, id))!;
        throw notOpen(this.statusOf(current, now));
      }
      const cancelled = { ...found, status: 'cancelled' as const, cancelled_at: at };
      await recordEvent(trx, { merchantId: found.platform_id, mode: found.mode, at: now, ...payloads.merchantSessionCancelled(this.sessionPayload(cancelled, 'cancelled')) });
      return cancelled;
    });
    return this.sessionView(row);
  }

  /** The expiry job: open sessions past their expiry, expired with `merchant.session.expired`, a batch at a time. */
  async expireSessions(now: Date = this.clock.now(), batch = 200): Promise<number> {
    const at = now.toISOString();
    const due = await this.db.kysely.selectFrom('onboarding_sessions').selectAll()
      .where('status', '=', 'open').where('expires_at', '<=', at).orderBy('expires_at').limit(batch).execute();
    let expired = 0;
    for (const s of due) {
      await this.db.transaction(async (trx) => {
        const res = await trx.updateTable('onboarding_sessions').set({ status: 'expired' })
          .where('id', '=', s.id).where('status', '=', 'open').executeTakeFirst();
        if (Number(res.numUpdatedRows) === 0) return;
        expired++;
        if (s.invitation_id) return; // an agency's client: no platform to tell (the invitation has its own expiry)
        await recordEvent(trx, { merchantId: s.platform_id, mode: s.mode, at: now, ...payloads.merchantSessionExpired(this.sessionPayload(s, 'expired')) });
      });
    }
    return expired;
  }

  // ---------- the hosted form ----------

  /**
   * What the hosted page shows for a token: the open session with its platform and, for a correction, the case to
   * pre-fill; or the reason it is closed. Undefined: not a token of ours.
   */
  async pageOf(token: string): Promise<PageState | undefined> {
    const id = this.sessionIdOf(token);
    if (!id) return undefined;
    const session = await this.db.kysely.selectFrom('onboarding_sessions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!session) return undefined;
    const platform = await this.db.kysely.selectFrom('merchants').selectAll().where('id', '=', session.platform_id).executeTakeFirstOrThrow();
    const status = this.statusOf(session);
    const kase = session.case_id
      ? await this.db.kysely.selectFrom('onboarding_cases').selectAll().where('id', '=', session.case_id).executeTakeFirst()
      : undefined;
    return {
      session, platform, status, case: kase ? prefill(kase) : undefined, enrollmentStatus: kase?.enrollment_status,
      reasons: kase?.reasons ? (JSON.parse(kase.reasons) as string[]) : undefined,
    };
  }

  /**
   * The form submitted: checks every field (400 VALIDATION_ERROR listing them, nothing written), then in one
   * transaction uses the session (once: a concurrent submission gets 409 ONBOARDING_SESSION_NOT_OPEN), writes the case
   * (new, or the one it corrects) SUBMITTED then IN_REVIEW, and in test mode decides it.
   */
  async submit(token: string, form: CaseForm): Promise<OnboardingCase> {
    const id = this.sessionIdOf(token);
    if (!id) throw notFound('onboarding session');
    const now = this.clock.now();
    const iban = checkForm(form, now);
    const at = now.toISOString();
    return this.db.transaction(async (trx) => {
      const session = await trx.selectFrom('onboarding_sessions').selectAll().where('id', '=', id).executeTakeFirst();
      if (!session) throw notFound('onboarding session');
      const used = await trx.updateTable('onboarding_sessions').set({ status: 'completed', completed_at: at })
        .where('id', '=', id).where('status', '=', 'open').where('expires_at', '>', at).executeTakeFirst();
      if (Number(used.numUpdatedRows) === 0) {
        const current = (await trx.selectFrom('onboarding_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
        throw notOpen(this.statusOf(current, now));
      }
      if (session.invitation_id) await this.pendingInvitation(trx, session.invitation_id, at);
      const fields = {
        email: session.email, legal_name: form.legalName.trim(), registration_number: form.registrationNumber.trim(),
        address: JSON.stringify(cleanAddress(form.address)), representative: JSON.stringify(cleanRepresentative(form.representative)),
        iban_sealed: this.box.seal(iban), iban_country: iban.slice(0, 2), iban_last4: iban.slice(-4), currency: form.currency,
        updated_at: at,
      };
      let kase: OnboardingCase;
      if (session.case_id) {
        const before = await trx.selectFrom('onboarding_cases').selectAll().where('id', '=', session.case_id).executeTakeFirstOrThrow();
        correctable(before);
        const res = await trx.updateTable('onboarding_cases')
          .set({ ...fields, email: before.email, enrollment_status: 'SUBMITTED', reasons: null, submissions: before.submissions + 1 })
          .where('id', '=', before.id).where('enrollment_status', '=', 'CORRECTION_REQUESTED').executeTakeFirst();
        if (Number(res.numUpdatedRows) === 0) correctable(await trx.selectFrom('onboarding_cases').selectAll().where('id', '=', before.id).executeTakeFirstOrThrow());
        kase = { ...before, ...fields, email: before.email, enrollment_status: 'SUBMITTED', reasons: null, submissions: before.submissions + 1 };
        await this.updated(trx, kase, 'CORRECTION_REQUESTED', now);
      } else {
        kase = {
          id: newId('obc'), platform_id: session.platform_id, mode: session.mode, enrollment_status: 'SUBMITTED', reasons: null,
          submissions: 1, seller_id: null, created_at: at, decided_at: null, invitation_id: session.invitation_id, ...fields,
        };
        await trx.insertInto('onboarding_cases').values(kase).execute();
        await trx.updateTable('onboarding_sessions').set({ case_id: kase.id }).where('id', '=', id).execute();
        await this.updated(trx, kase, null, now);
      }
      await trx.updateTable('onboarding_cases').set({ enrollment_status: 'IN_REVIEW' }).where('id', '=', kase.id).execute();
      kase = { ...kase, enrollment_status: 'IN_REVIEW' };
      await this.updated(trx, kase, 'SUBMITTED', now);
      if (kase.mode === 'test') {
        const decision = testDecision(kase);
        kase = await this.decideIn(trx, kase, decision.status, decision.reasons, now);
      }
      return kase;
    });
  }

  private async updated(trx: Trx, kase: OnboardingCase, previousStatus: EnrollmentStatus | null, at: Date, reasons?: string[]) {
    if (kase.invitation_id) {
      await recordEvent(trx, {
        merchantId: kase.platform_id, mode: kase.mode, at,
        ...payloads.agencyClientOnboardingUpdated({
          invitationId: kase.invitation_id, agencyId: kase.platform_id, caseId: kase.id, enrollmentStatus: kase.enrollment_status, previousStatus,
          ...(reasons ? { reasons } : {}),
        }),
      });
      return;
    }
    await recordEvent(trx, {
      merchantId: kase.platform_id, mode: kase.mode, at,
      ...payloads.merchantOnboardingUpdated({ caseId: kase.id, enrollmentStatus: kase.enrollment_status, previousStatus, ...(reasons ? { reasons } : {}) }),
    });
  }

  // ---------- cases: reading, the operator's decision, approval ----------

  caseView(c: OnboardingCase) {
    const rep = JSON.parse(c.representative) as Representative;
    return {
      id: c.id,
      enrollmentStatus: c.enrollment_status,
      email: c.email,
      legalName: c.legal_name,
      registrationNumber: c.registration_number,
      address: JSON.parse(c.address) as LegalAddress,
      representative: { firstName: rep.firstName, lastName: rep.lastName },
      bankAccount: { country: c.iban_country, last4: c.iban_last4, currency: c.currency },
      reasons: c.reasons ? (JSON.parse(c.reasons) as string[]) : null,
      submissions: c.submissions,
      /** The seller merchant, once approved. */
      merchantId: c.seller_id,
      mode: c.mode,
      createdAt: c.created_at,
      updatedAt: c.updated_at,
      decidedAt: c.decided_at,
    };
  }

  private caseOf(q: Trx | Database['kysely'], owner: Owner, id: string) {
    return q.selectFrom('onboarding_cases').selectAll()
      .where('id', '=', id).where('platform_id', '=', owner.merchantId).where('mode', '=', owner.mode).where('invitation_id', 'is', null).executeTakeFirst();
  }

  async getCase(principal: Principal, id: string) {
    await requirePlatform(this.db.kysely, principal);
    const row = await this.caseOf(this.db.kysely, principal, id);
    if (!row) throw notFound('onboarding case', id);
    return this.caseView(row);
  }

  /** The operator's list: cases awaiting a decision (IN_REVIEW), oldest first, with their platform. */
  async casesInReview(page: { limit?: number; startingAfter?: string } = {}) {
    const limit = Math.min(page.limit ?? 20, PAGE_LIMIT_MAX);
    let q = this.db.kysely.selectFrom('onboarding_cases').selectAll().where('enrollment_status', '=', 'IN_REVIEW');
    if (page.startingAfter) {
      const cursor = await this.db.kysely.selectFrom('onboarding_cases').select(['created_at', 'id'])
        .where('id', '=', page.startingAfter).where('enrollment_status', '=', 'IN_REVIEW').executeTakeFirst();
      if (!cursor) throw invalidField('startingAfter', 'is not an id from this list');
      q = q.where((eb) => eb.or([eb('created_at', '>', cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', '>', cursor.id)])]));
    }
    const rows = await q.orderBy('created_at').orderBy('id').limit(limit + 1).execute();
    return { data: rows.slice(0, limit).map((r) => ({ ...this.caseView(r), platformId: r.platform_id })), hasMore: rows.length > limit };
  }

  /**
   * The operator's decision on a case in review: exactly one decision wins (a case already decided, or not yet
   * submitted: 409 ONBOARDING_CASE_DECIDED). CORRECTION_REQUESTED and REFUSED need at least one reason.
   */
  async decide(caseId: string, input: { enrollmentStatus: Decision; reasons?: string[] }) {
    const reasons = (input.reasons ?? []).map((r) => r.trim()).filter(Boolean);
    if (input.enrollmentStatus !== 'APPROVED' && reasons.length === 0) throw invalidField('reasons', 'must give at least one reason for a correction or a refusal');
    const now = this.clock.now();
    const row = await this.db.transaction(async (trx) => {
      const kase = await this.db.lockForUpdate(trx.selectFrom('onboarding_cases').selectAll().where('id', '=', caseId)).executeTakeFirst();
      if (!kase) throw notFound('onboarding case', caseId);
      return this.decideIn(trx, kase, input.enrollmentStatus, reasons, now);
    });
    return { ...this.caseView(row), platformId: row.platform_id };
  }

  /** The decision, on the caller's transaction: guarded by the status it leaves (IN_REVIEW), its events, the approval. */
  private async decideIn(trx: Trx, kase: OnboardingCase, status: Decision, reasons: string[], now: Date): Promise<OnboardingCase> {
    const at = now.toISOString();
    const res = await trx.updateTable('onboarding_cases')
      .set({ enrollment_status: status, reasons: status === 'APPROVED' ? null : JSON.stringify(reasons), decided_at: at, updated_at: at })
      .where('id', '=', kase.id).where('enrollment_status', '=', 'IN_REVIEW').executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) {
      const current = await trx.selectFrom('onboarding_cases').select('enrollment_status').where('id', '=', kase.id).executeTakeFirstOrThrow();
      throw new AppError('ONBOARDING_CASE_DECIDED', `This onboarding case is ${current.enrollment_status}, not IN_REVIEW`, { enrollmentStatus: current.enrollment_status });
    }
    let decided: OnboardingCase = { ...kase, enrollment_status: status, reasons: status === 'APPROVED' ? null : JSON.stringify(reasons), decided_at: at, updated_at: at };
    await this.updated(trx, decided, 'IN_REVIEW', now, status === 'APPROVED' ? undefined : reasons);
    if (status !== 'APPROVED') {
      if (kase.invitation_id) return decided; // the agency heard it in agency.client.onboarding.updated
      await recordEvent(trx, {
        merchantId: kase.platform_id, mode: kase.mode, at: now,
        ...payloads.merchantRejected({ caseId: kase.id, enrollmentStatus: status, reasons }),
      });
      return decided;
    }
    const sellerId = decided.invitation_id ? await this.approveClient(trx, decided, now) : await this.approve(trx, decided, now);
    decided = { ...decided, seller_id: sellerId };
    return decided;
  }

  /**
   * The seller an approval creates, in this order of events: the merchant (its default contract and keys, the case's
   * legal identity) → merchant.created; its payment account opened → merchant.opened; its bank account (the case's
   * IBAN, default of its currency); the link to the platform → merchant.linked.
   */
  private async approve(trx: Trx, kase: OnboardingCase, now: Date): Promise<string> {
    const at = now.toISOString();
    const base = { platformId: kase.platform_id, caseId: kase.id };
    const seller = await this.merchants.insertMerchant(trx, {
      name: kase.legal_name, legalName: kase.legal_name, registrationNumber: kase.registration_number,
      address: JSON.parse(kase.address) as LegalAddress, open: false,
    });
    await recordEvent(trx, { merchantId: kase.platform_id, mode: kase.mode, at: now, ...payloads.merchantCreated({ merchantId: seller.id, ...base }) });
    await trx.updateTable('merchants').set({ opened_at: at }).where('id', '=', seller.id).execute();
    await recordEvent(trx, { merchantId: kase.platform_id, mode: kase.mode, at: now, ...payloads.merchantOpened({ merchantId: seller.id, ...base }) });
    await this.bankAccounts.insert(trx, { merchantId: seller.id, mode: kase.mode }, {
      iban: this.box.open(kase.iban_sealed), holderName: kase.legal_name, currency: kase.currency === 'XPF' ? 'XPF' : 'EUR',
    });
    await linkSeller(trx, { platformId: kase.platform_id, sellerId: seller.id, mode: kase.mode, caseId: kase.id, at: now });
    await trx.updateTable('onboarding_cases').set({ seller_id: seller.id }).where('id', '=', kase.id).execute();
    return seller.id;
  }

  // ---------- an agency's new client ----------

  /**
   * The invitation page's "no Motu account yet": the onboarding form's address for this invitation. An open session
   * of the invitation is given again; a case awaiting corrections gets a session correcting it; a case refused (final)
   * or in review gets none (409 ONBOARDING_CASE_REFUSED / ONBOARDING_CASE_NOT_CORRECTABLE). The invitation must be
   * pending and not past its expiry (410 INVITATION_EXPIRED, 422 INVITATION_NOT_PENDING). The session ends when the
   * invitation does. No event: the agency hears of the case once the form submits it.
   */
  async sessionForInvitation(invitationToken: string): Promise<string> {
    if (!/^[0-9A-Za-z]{32}$/.test(invitationToken)) throw notFound('invitation');
    const now = this.clock.now();
    const at = now.toISOString();
    return this.db.transaction(async (trx) => {
      const found = await trx.selectFrom('agency_invitations').select('id').where('token', '=', invitationToken).executeTakeFirst();
      if (!found) throw notFound('invitation');
      const invitation = await this.pendingInvitation(trx, found.id, at);
      const open = await trx.selectFrom('onboarding_sessions').select('id').where('invitation_id', '=', invitation.id)
        .where('status', '=', 'open').where('expires_at', '>', at).orderBy('created_at', 'desc').executeTakeFirst();
      if (open) return this.sessionUrl(open.id);
      const last = await trx.selectFrom('onboarding_cases').selectAll().where('invitation_id', '=', invitation.id)
        .orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
      if (last) correctable(last);
      const page = `${this.publicUrl}/agency-invitations/${invitationToken}`;
      const row: OnboardingSession = {
        id: newId('obs'), platform_id: invitation.agency_id, mode: invitation.mode, email: invitation.email, business_name: null,
        return_url: page, refresh_url: page, case_id: last?.id ?? null, status: 'open', expires_at: invitation.expires_at,
        created_at: at, completed_at: null, cancelled_at: null, invitation_id: invitation.id,
      };
      await trx.insertInto('onboarding_sessions').values(row).execute();
      return this.sessionUrl(row.id);
    });
  }

  /** The invitation, locked, if pending and not past its expiry. */
  private async pendingInvitation(trx: Trx, invitationId: string, at: string) {
    const row = await this.db.lockForUpdate(trx.selectFrom('agency_invitations').selectAll().where('id', '=', invitationId)).executeTakeFirstOrThrow();
    if (row.status === 'expired' || (row.status === 'pending' && row.expires_at <= at)) {
      throw new AppError('INVITATION_EXPIRED', 'This invitation has expired; ask the agency for a new one', { status: 'expired' });
    }
    if (row.status !== 'pending') throw new AppError('INVITATION_NOT_PENDING', `This invitation is ${row.status}`, { status: row.status });
    return row;
  }

  /**
   * An agency's new client approved, in this order of events (all to the agency): the merchant (its default contract
   * and keys, the case's legal identity), opened, with its bank account (the case's IBAN) → agency.client.opened; then
   * the invitation accepted and the mandate with its scopes → agency.mandate.created. Linked to no platform. An
   * invitation that expired while the case was in review is still accepted (the business answered in time); one the
   * agency cancelled meanwhile gives no mandate (the account is opened all the same).
   */
  private async approveClient(trx: Trx, kase: OnboardingCase, now: Date): Promise<string> {
    const at = now.toISOString();
    const invitationId = kase.invitation_id!;
    const client = await this.merchants.insertMerchant(trx, {
      name: kase.legal_name, legalName: kase.legal_name, registrationNumber: kase.registration_number,
      address: JSON.parse(kase.address) as LegalAddress, open: false,
    });
    await trx.updateTable('merchants').set({ opened_at: at }).where('id', '=', client.id).execute();
    await this.bankAccounts.insert(trx, { merchantId: client.id, mode: kase.mode }, {
      iban: this.box.open(kase.iban_sealed), holderName: kase.legal_name, currency: kase.currency === 'XPF' ? 'XPF' : 'EUR',
    });
    await trx.updateTable('onboarding_cases').set({ seller_id: client.id }).where('id', '=', kase.id).execute();
    await recordEvent(trx, {
      merchantId: kase.platform_id, mode: kase.mode, at: now,
      ...payloads.agencyClientOpened({ invitationId, agencyId: kase.platform_id, merchantId: client.id, caseId: kase.id }),
    });
    const invitation = await this.db.lockForUpdate(trx.selectFrom('agency_invitations').selectAll().where('id', '=', invitationId)).executeTakeFirstOrThrow();
    if (invitation.status !== 'pending' && invitation.status !== 'expired') return client.id;
    const mandate = await createMandate(trx, {
      agencyId: invitation.agency_id, client: { merchantId: client.id, mode: invitation.mode }, scopes: scopesOf(invitation), invitationId, at: now,
    });
    await trx.updateTable('agency_invitations').set({ status: 'accepted', merchant_id: client.id, mandate_id: mandate.id, updated_at: at })
      .where('id', '=', invitationId).execute();
    return client.id;
  }

  // ---------- the platform's sellers ----------

  private async sellerView(owner: Owner, link: { seller_id: string; case_id: string | null; linked_at: string; unlinked_at: string | null }, merchant: Merchant) {
    const balance = await this.balance.balance({ merchantId: merchant.id, mode: owner.mode });
    return {
      id: merchant.id,
      name: merchant.name,
      legalName: merchant.legal_name,
      registrationNumber: merchant.registration_number,
      /** open: it can collect; pending: its account is not open yet. */
      state: merchant.opened_at ? 'open' as const : 'pending' as const,
      openedAt: merchant.opened_at,
      caseId: link.case_id,
      linkedAt: link.linked_at,
      unlinkedAt: link.unlinked_at,
      balance,
    };
  }

  /** The sellers linked to the platform in the key's mode, newest link first. */
  async listSellers(principal: Principal, page: { limit?: number; startingAfter?: string } = {}) {
    await requirePlatform(this.db.kysely, principal);
    const limit = Math.min(page.limit ?? 20, PAGE_LIMIT_MAX);
    let q = this.db.kysely.selectFrom('platform_links as l').innerJoin('merchants as m', 'm.id', 'l.seller_id')
      .selectAll('m').select(['l.id as link_id', 'l.seller_id', 'l.case_id', 'l.linked_at', 'l.unlinked_at'])
      .where('l.platform_id', '=', principal.merchantId).where('l.mode', '=', principal.mode).where('l.unlinked_at', 'is', null);
    if (page.startingAfter) {
      const cursor = await this.db.kysely.selectFrom('platform_links').select(['id', 'linked_at'])
        .where('platform_id', '=', principal.merchantId).where('mode', '=', principal.mode).where('seller_id', '=', page.startingAfter)
        .where('unlinked_at', 'is', null).executeTakeFirst();
      if (!cursor) throw invalidField('startingAfter', 'is not an id from this list');
      q = q.where((eb) => eb.or([eb('l.linked_at', '<', cursor.linked_at), eb.and([eb('l.linked_at', '=', cursor.linked_at), eb('l.id', '<', cursor.id)])]));
    }
    const rows = await q.orderBy('l.linked_at', 'desc').orderBy('l.id', 'desc').limit(limit + 1).execute();
    const data = [];
    for (const r of rows.slice(0, limit)) data.push(await this.sellerView(principal, r, r));
    return { data, hasMore: rows.length > limit };
  }

  private async linkedSeller(principal: Principal, sellerId: string) {
    const row = await this.db.kysely.selectFrom('platform_links as l').innerJoin('merchants as m', 'm.id', 'l.seller_id')
      .selectAll('m').select(['l.seller_id', 'l.case_id', 'l.linked_at', 'l.unlinked_at'])
      .where('l.platform_id', '=', principal.merchantId).where('l.mode', '=', principal.mode).where('l.seller_id', '=', sellerId)
      .where('l.unlinked_at', 'is', null).executeTakeFirst();
    if (!row) throw notFound('seller', sellerId);
    return row;
  }

  /** A seller linked to the platform in the key's mode; any other merchant is 404, as if it did not exist. */
  async getSeller(principal: Principal, sellerId: string) {
    await requirePlatform(this.db.kysely, principal);
    const row = await this.linkedSeller(principal, sellerId);
    return this.sellerView(principal, row, row);
  }

  /** Ends the link (merchant.unlinked); the seller's account stays open. Once under concurrent calls (then 404). */
  async unlink(principal: Principal, sellerId: string) {
    await requirePlatform(this.db.kysely, principal);
    const row = await this.linkedSeller(principal, sellerId);
    const now = this.clock.now();
    const link = await this.db.transaction((trx) => unlinkSeller(trx, { platformId: principal.merchantId, sellerId, mode: principal.mode, at: now }));
    return this.sellerView(principal, link, row);
  }
}

export interface PageState {
  session: OnboardingSession;
  platform: Merchant;
  status: SessionStatus;
  /** A correction: the case's answers but the IBAN. */
  case?: Omit<CaseForm, 'iban'>;
  enrollmentStatus?: EnrollmentStatus;
  /** The reasons of the case's last correction request or refusal. */
  reasons?: string[];
}

function notOpen(status: SessionStatus): AppError {
  return new AppError('ONBOARDING_SESSION_NOT_OPEN', `This onboarding session is ${status}`, { status });
}

/** Only a case awaiting corrections is corrected; a refused one is final. */
function correctable(kase: OnboardingCase): void {
  if (kase.enrollment_status === 'CORRECTION_REQUESTED') return;
  if (kase.enrollment_status === 'REFUSED') throw new AppError('ONBOARDING_CASE_REFUSED', 'This onboarding case was refused: the decision is final', { caseId: kase.id, enrollmentStatus: 'REFUSED' });
  throw new AppError('ONBOARDING_CASE_NOT_CORRECTABLE', `This onboarding case is ${kase.enrollment_status}: only a case in CORRECTION_REQUESTED can be corrected`,
    { caseId: kase.id, enrollmentStatus: kase.enrollment_status });
}

function prefill(kase: OnboardingCase): Omit<CaseForm, 'iban'> {
  return {
    legalName: kase.legal_name, registrationNumber: kase.registration_number, address: JSON.parse(kase.address) as LegalAddress,
    representative: JSON.parse(kase.representative) as Representative, currency: kase.currency === 'XPF' ? 'XPF' : 'EUR',
  };
}

/** Test mode's decision, read from the legal name (docs/platforms.md). */
export function testDecision(kase: Pick<OnboardingCase, 'legal_name' | 'submissions'>): { status: Decision; reasons: string[] } {
  const name = kase.legal_name.toLowerCase();
  if (name.includes('refuse')) return { status: 'REFUSED', reasons: ['Test mode: the legal name contains "refuse"'] };
  if (name.includes('correction') && kase.submissions === 1) {
    return { status: 'CORRECTION_REQUESTED', reasons: ['Test mode: the legal name contains "correction"; submit the form again'] };
  }
  return { status: 'APPROVED', reasons: [] };
}

const COUNTRY = /^[A-Z]{2}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function cleanAddress(a: LegalAddress): LegalAddress {
  const line2 = a.line2?.trim();
  return { line1: a.line1.trim(), ...(line2 ? { line2 } : {}), postalCode: a.postalCode.trim(), city: a.city.trim(), country: a.country.trim().toUpperCase() };
}

function cleanRepresentative(r: Representative): Representative {
  return { firstName: r.firstName.trim(), lastName: r.lastName.trim(), birthDate: r.birthDate.trim() };
}

/** Every field of the form checked at once (400 listing them all); the IBAN in its electronic form. */
export function checkForm(form: CaseForm, now: Date): string {
  const fields: Array<{ field: string; message: string }> = [];
  const text = (field: string, value: string | undefined, max: number) => {
    const v = (value ?? '').trim();
    if (v === '') fields.push({ field, message: 'is required' });
    else if (v.length > max) fields.push({ field, message: `must be at most ${max} characters` });
  };
  text('legalName', form.legalName, 200);
  text('registrationNumber', form.registrationNumber, 50);
  text('address.line1', form.address?.line1, 200);
  if ((form.address?.line2 ?? '').length > 200) fields.push({ field: 'address.line2', message: 'must be at most 200 characters' });
  text('address.postalCode', form.address?.postalCode, 20);
  text('address.city', form.address?.city, 100);
  if (!COUNTRY.test((form.address?.country ?? '').trim().toUpperCase())) fields.push({ field: 'address.country', message: 'must be a country code of two letters (PF, FR…)' });
  text('representative.firstName', form.representative?.firstName, 100);
  text('representative.lastName', form.representative?.lastName, 100);
  const birth = (form.representative?.birthDate ?? '').trim();
  const born = DATE.test(birth) ? new Date(`${birth}T00:00:00Z`) : null;
  if (!born || Number.isNaN(born.getTime()) || born.toISOString().slice(0, 10) !== birth || born.getUTCFullYear() < 1900 || born.getTime() > now.getTime()) {
    fields.push({ field: 'representative.birthDate', message: 'must be a date YYYY-MM-DD in the past' });
  }
  if (form.currency !== 'EUR' && form.currency !== 'XPF') fields.push({ field: 'currency', message: 'must be EUR or XPF' });
  let iban = '';
  try {
    iban = checkedIban(form.iban ?? '');
  } catch (err) {
    const first = err instanceof AppError ? err.fields?.[0] : undefined;
    fields.push({ field: 'iban', message: first?.message ?? 'is not a valid IBAN' });
  }
  if (fields.length > 0) throw validationError(fields);
  return iban;
}

