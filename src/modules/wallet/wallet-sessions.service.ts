// Card registration: wallet sessions (14 minutes, mounted at once) and card links (days, an invitation). Both are
// a `payment_sessions` row of kind 'wallet' (ses_ id: the browser's only credential) plus its wallet_sessions row
// that records how it ended. The card is verified at zero amount (ACCOUNT_VERIFICATION) through the Acquirer:
// no authorization, nothing to refund; a card already in the wallet (same fingerprint) keeps its pm_.
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { VerifyOutcome } from '../../acquirer/acquirer.js';
import type { Config } from '../../config.js';
import type { Database, Trx } from '../../db/database.js';
import type { Owner } from '../merchants/principal.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { idForKeyUse, idFromKey, keyUseParts, newId } from '../../shared/ids.js';
import { secretBoxFor } from '../../shared/secret-box.js';
import type { CustomerRow } from '../customers/customers.table.js';
import type { PaymentSessionRow } from '../payments/payments.table.js';
import { urlProblem } from '../sessions/urls.js';
import { savePaymentMethod, type WalletOwner } from './payment-methods.js';
import { attachFromCardholder } from '../subscriptions/mandates.js';
import { displayName } from '../merchants/branding.js';
import type { Merchant } from '../merchants/merchants.table.js';
import { mailable, type MailOutbox } from '../../mail/outbox.js';
import type { MailStatus } from '../../mail/mail.table.js';
import type { CardLinkRow, WalletOutcome, WalletSessionRow } from './wallet.table.js';
import { ownedBy } from '../merchants/scope.js';
import { catalog } from '../../i18n/index.js';
import { pageLang } from '../../shared/lang.js';

export const WALLET_SESSION_SECONDS = 14 * 60;
export const CARD_LINK_DEFAULT_SECONDS = 7 * 24 * 3600;

export interface WalletSessionInput {
  returnUrl: string;
  locale?: string;
  email?: string;
  externalId?: string;
  /** A subscription of this customer the saved card will charge. */
  subscriptionId?: string;
}

export interface CardLinkInput {
  expiresIn?: number;
  returnUrl?: string;
  locale?: string;
  sendEmail?: boolean;
  subscriptionId?: string;
}

export interface OpenWalletSession {
  session: PaymentSessionRow;
  wallet: WalletSessionRow;
  merchantName: string;
  /** Name, colours and logo: the page's header and the component's theme. */
  merchant: Merchant;
}

/** What the browser is told after a registration attempt. */
export interface RegistrationResult {
  outcome: WalletOutcome;
  paymentMethodId: string | null;
  /**
   * Where the customer goes now: the returnUrl with its status query, or our own result page; null when the
   * registration goes on (a card link after a refusal, attempts left): the customer stays on the page to try another card.
   */
  redirectUrl: string | null;
  code?: string;
  message?: string;
}


export class WalletSessionsService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly acquirers: Acquirers,
    private readonly config: Pick<Config, 'publicUrl' | 'allowLoopbackUrls' | 'secretsKey' | 'dataDir' | 'databaseUrl' | 'maxCardAttempts'>,
    /** Sends card links by mail when asked (`sendEmail`); null: no mailer, `emailSent` stays false. */
    private readonly mail: MailOutbox | null = null,
  ) {}

  registrationUrl(sessionId: string): string {
    return `${this.config.publicUrl}/wallet/${sessionId}`;
  }

  /**
   * With `idempotencyKey` the session id is derived from it (walletSessionIdFor): a retry that runs again after the
   * first request was killed mid-way (its in-flight key abandoned) answers the session that run opened.
   */
  async createSession(owner: Owner, pathId: string, input: WalletSessionInput, idempotencyKey?: string) {
    const answer = (session: Pick<PaymentSessionRow, 'id' | 'expires_at' | 'customer_id'>) => ({
      redirectUrl: this.registrationUrl(session.id),
      sessionId: session.id,
      expiresAt: session.expires_at,
      customerId: session.customer_id!,
    });
    let sessionId: string | undefined;
    if (idempotencyKey !== undefined) {
      const keyed = await idForKeyUse(
        (use) => this.walletSessionIdFor(owner, idempotencyKey, use),
        (id) => this.db.kysely.selectFrom('payment_sessions').select(['id', 'expires_at', 'customer_id', 'created_at'])
          .where('id', '=', id).where(ownedBy(owner)).where('kind', '=', 'wallet')
          .executeTakeFirst(),
        this.clock.now(),
      );
      if (keyed.earlier) return answer(keyed.earlier);
      sessionId = keyed.id;
    }
    this.checkReturnUrl(owner, input.returnUrl, 'returnUrl');
    return this.db.transaction(async (trx) => {
      const customer = await this.identify(trx, owner, pathId, input);
      const subscriptionId = await this.subscriptionOf(trx, owner, customer.id, input.subscriptionId);
      const { session } = await this.insertSession(trx, owner, customer, {
        returnUrl: input.returnUrl, locale: input.locale, seconds: WALLET_SESSION_SECONDS, channel: 'session', cardLinkId: null, id: sessionId, subscriptionId,
      });
      return answer(session);
    });
  }

  /**
   * The `ses_` of the wallet session opened under `idempotencyKey`: an HMAC under a key derived from the secrets key
   * (MOTU_SECRETS_KEY), since a session id is the browser's only credential and must stay unguessable.
   */
  walletSessionIdFor(owner: Owner, idempotencyKey: string, use = 0): string {
    return idFromKey('ses', keyUseParts(['wallet', owner.merchantId, owner.mode, idempotencyKey], use), secretBoxFor(this.config).derivedKey('id-from-key'));
  }

  /**
   * With `idempotencyKey` the card link's id is derived from it (cardLinkIdFor; its `ses_` stays random): a retry
   * that runs again after the first request was killed mid-way answers the link that run created (and its one mail).
   */
  async createCardLink(owner: Owner, customerId: string, input: CardLinkInput, idempotencyKey?: string) {
    let derivedId: string | undefined;
    if (idempotencyKey !== undefined) {
      const keyed = await idForKeyUse(
        (use) => cardLinkIdFor(owner, idempotencyKey, use),
        (id) => this.db.kysely.selectFrom('card_links').selectAll()
          .where('id', '=', id).where(ownedBy(owner)).executeTakeFirst(),
        this.clock.now(),
      );
      if (keyed.earlier) return this.cardLinkView(keyed.earlier);
      derivedId = keyed.id;
    }
    if (input.returnUrl !== undefined) this.checkReturnUrl(owner, input.returnUrl, 'returnUrl');
    const row = await this.db.transaction(async (trx) => {
      const customer = await this.identify(trx, owner, customerId, {});
      const subscriptionId = await this.subscriptionOf(trx, owner, customer.id, input.subscriptionId);
      const id = derivedId ?? newId('cl');
      const { session } = await this.insertSession(trx, owner, customer, {
        returnUrl: input.returnUrl ?? null, locale: input.locale, seconds: input.expiresIn ?? CARD_LINK_DEFAULT_SECONDS, channel: 'link', cardLinkId: id, subscriptionId,
      });
      const link: CardLinkRow = {
        id, merchant_id: owner.merchantId, mode: owner.mode, customer_id: customer.id, session_id: session.id,
        send_email: input.sendEmail ? 1 : 0, cancelled_at: null, expires_at: session.expires_at, created_at: session.created_at,
      };
      await trx.insertInto('card_links').values(link).execute();
      if (input.sendEmail && this.mail && mailable(customer.email)) {
        await this.mail.enqueue(trx, {
          merchantId: owner.merchantId, mode: owner.mode, kind: 'card_link', subjectId: id, recipient: customer.email, locale: session.language_code,
        });
      }
      return link;
    });
    return this.cardLinkView(row);
  }

  async getCardLink(owner: Owner, id: string) {
    return this.cardLinkView(await this.findCardLink(owner, id));
  }

  async cancelCardLink(owner: Owner, id: string) {
    const link = await this.findCardLink(owner, id);
    const now = this.clock.now().toISOString();
    await this.db.transaction(async (trx) => {
      const res = await trx.updateTable('payment_sessions').set({ status: 'cancelled', completed_at: now })
        .where('id', '=', link.session_id).where('status', '=', 'open').executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1) await trx.updateTable('card_links').set({ cancelled_at: now }).where('id', '=', id).execute();
    });
    const after = await this.findCardLink(owner, id);
    const view = await this.cardLinkView(after);
    if (view.status !== 'cancelled') {
      throw new AppError('BUSINESS_RULE_VIOLATION', `Card link ${id} is ${view.status}; only an open link can be cancelled`, { id, status: view.status });
    }
    return view;
  }

  /** An open, unexpired wallet session (the browser's view), or why not. */
  async loadOpen(sessionId: string): Promise<OpenWalletSession | 'inactive' | null> {
    const session = await this.db.kysely.selectFrom('payment_sessions').selectAll()
      .where('id', '=', sessionId).where('kind', '=', 'wallet').executeTakeFirst();
    if (!session) return null;
    if (session.status !== 'open' || session.expires_at <= this.clock.now().toISOString()) return 'inactive';
    const wallet = await this.db.kysely.selectFrom('wallet_sessions').selectAll().where('session_id', '=', sessionId).executeTakeFirstOrThrow();
    const merchant = await this.db.kysely.selectFrom('merchants').selectAll().where('id', '=', session.merchant_id).executeTakeFirstOrThrow();
    return { session, wallet, merchantName: displayName(merchant), merchant };
  }

  /** Any wallet session with its outcome (result page). */
  async loadAny(sessionId: string): Promise<{ session: PaymentSessionRow; wallet: WalletSessionRow; merchant: Merchant } | null> {
    const session = await this.db.kysely.selectFrom('payment_sessions').selectAll()
      .where('id', '=', sessionId).where('kind', '=', 'wallet').executeTakeFirst();
    if (!session) return null;
    const wallet = await this.db.kysely.selectFrom('wallet_sessions').selectAll().where('session_id', '=', sessionId).executeTakeFirstOrThrow();
    const merchant = await this.db.kysely.selectFrom('merchants').selectAll().where('id', '=', session.merchant_id).executeTakeFirstOrThrow();
    return { session, wallet, merchant };
  }

  /**
   * The customer submitted a card (a one-time token from the secure fields): verify it at zero amount, save it
   * (or find it already saved). A wallet session ends with its first attempt, whatever its outcome. A card link
   * stays open after a refusal (or an error) so the customer tries another card on the same page, until a card is
   * saved, it expires or is cancelled, or its MOTU_MAX_CARD_ATTEMPTS cards were sent: the last refusal ends it.
   */
  async register(sessionId: string, token: string): Promise<RegistrationResult> {
    const open = await this.loadOpen(sessionId);
    if (!open) throw new AppError('NOT_FOUND', 'Unknown session');
    if (open === 'inactive') throw new AppError('SESSION_EXPIRED', 'This card registration session is no longer active');
    const { session } = open;
    const isLink = open.wallet.card_link_id !== null;
    await this.acquirers.requireLive({ merchantId: session.merchant_id, mode: session.mode });
    const acquirer = this.acquirers.forMode(session.mode);
    await this.takeAttempt(session.id);
    // Never inside a transaction: the acquirer is an outbound call.
    const outcome: VerifyOutcome = await acquirer.verify({ mode: session.mode, token });
    if (outcome.status === 'error' && outcome.code === 'INVALID_TOKEN') {
      throw invalidField('token', 'is unknown, expired or already used');
    }
    const at = this.clock.now();
    // The same card saved concurrently in this wallet (another tab, a payment) loses on the unique index:
    // one retry then finds the winner's payment method.
    const result = await this.retryOnce(() => this.db.transaction(async (trx) => {
      let kind: WalletOutcome;
      let refusal: string | null = null;
      if (outcome.status === 'refused') {
        kind = 'failed';
        refusal = outcome.refusalCode;
      } else if (outcome.status === 'error') {
        kind = 'error';
        refusal = outcome.code;
      } else {
        kind = 'success';
      }
      if (kind !== 'success' && isLink) {
        // A card link goes on while it has attempts left: only the last refusal is recorded, the link stays open.
        const row = await trx.selectFrom('payment_sessions').select(['status', 'card_attempts']).where('id', '=', session.id).executeTakeFirstOrThrow();
        if (row.status === 'open' && row.card_attempts < this.config.maxCardAttempts) {
          await trx.updateTable('wallet_sessions').set({ refusal_code: refusal, updated_at: at.toISOString() })
            .where('session_id', '=', session.id).where('outcome', 'is', null).execute();
          return { kind, paymentMethodId: null, refusal, goesOn: true };
        }
      }
      const claimed = await trx.updateTable('payment_sessions').set({ status: 'complete', completed_at: at.toISOString() })
        .where('id', '=', session.id).where('status', '=', 'open').executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) {
        // Ended meanwhile by another attempt of the same link: a refusal is still answered as one.
        if (kind !== 'success' && isLink) return { kind, paymentMethodId: null, refusal, goesOn: false };
        throw new AppError('SESSION_EXPIRED', 'This card registration session is no longer active');
      }
      let paymentMethodId: string | null = null;
      if (outcome.status === 'verified') {
        const saved = await savePaymentMethod(trx, {
          owner: { merchantId: session.merchant_id, mode: session.mode }, customerId: session.customer_id!,
          cardRef: outcome.cardRef, card: outcome.card, at,
        });
        paymentMethodId = saved.paymentMethod.id;
        // Made for a subscription: the card the cardholder just saved charges it (a waiting one's mandate restored).
        const wallet = await trx.selectFrom('wallet_sessions').select('subscription_id').where('session_id', '=', session.id).executeTakeFirst();
        if (wallet?.subscription_id) await attachFromCardholder(trx, wallet.subscription_id, paymentMethodId, at);
      }
      await trx.updateTable('wallet_sessions').set({ outcome: kind, payment_method_id: paymentMethodId, refusal_code: refusal, updated_at: at.toISOString() })
        .where('session_id', '=', session.id).execute();
      return { kind, paymentMethodId, refusal, goesOn: false };
    }));
    const base: RegistrationResult = {
      outcome: result.kind, paymentMethodId: result.paymentMethodId,
      redirectUrl: result.goesOn ? null : this.returnTarget(session, result.kind, result.paymentMethodId),
    };
    const lang = pageLang(session.language_code);
    if (outcome.status === 'refused') {
      const text = catalog[lang];
      const message = result.goesOn
        ? `${text.checkout.refusals[outcome.refusalCode] ?? text.checkout.refusalDefault} ${text.wallet.tryAnother}`
        : outcome.refusalMessage;
      return { ...base, code: 'CARD_REFUSED', message };
    }
    if (outcome.status === 'error') {
      const text = catalog[lang].wallet;
      return { ...base, code: outcome.code, message: result.goesOn ? `${text.doneError} ${text.tryAnother}` : outcome.message };
    }
    return base;
  }

  /**
   * Card testing: each card sent to the acquirer first takes one of the session's MOTU_MAX_CARD_ATTEMPTS, by a
   * conditional increment, so concurrent requests never pass the bound together (as a payment session's cards).
   */
  private async takeAttempt(sessionId: string): Promise<void> {
    const now = this.clock.now().toISOString();
    const taken = await this.db.kysely.updateTable('payment_sessions').set((eb) => ({ card_attempts: eb('card_attempts', '+', 1) }))
      .where('id', '=', sessionId).where('status', '=', 'open').where('expires_at', '>', now)
      .where('card_attempts', '<', this.config.maxCardAttempts)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 1) return;
    const row = await this.db.kysely.selectFrom('payment_sessions').select(['status', 'card_attempts']).where('id', '=', sessionId).executeTakeFirst();
    if (row && row.status === 'open' && row.card_attempts >= this.config.maxCardAttempts) {
      throw new AppError('TOO_MANY_ATTEMPTS', 'Too many cards sent for this card registration; ask the merchant for a new link', {
        maxAttempts: this.config.maxCardAttempts,
      });
    }
    throw new AppError('SESSION_EXPIRED', 'This card registration session is no longer active');
  }

  private async retryOnce<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!this.db.isUniqueViolation(err)) throw err;
      return fn();
    }
  }

  /** returnUrl + status (+ paymentMethodId on success); our result page when the link has no return URL. */
  returnTarget(session: PaymentSessionRow, outcome: WalletOutcome, paymentMethodId: string | null): string {
    if (!session.redirect_url) return `${this.config.publicUrl}/wallet/${session.id}/done`;
    return walletReturnUrl(session.redirect_url, outcome, paymentMethodId);
  }

  /**
   * HTTPS (http to this machine in test mode when allowed), as for every other URL: unlike a payment session's
   * redirectUrl, a card registration's return takes no app scheme (docs/wallet.md says why).
   */
  private checkReturnUrl(owner: Owner, url: string, field: string): void {
    const problem = urlProblem(url, 'return', { mode: owner.mode, allowLoopbackUrls: this.config.allowLoopbackUrls })
      ?? (/^https?:/i.test(url) ? undefined : 'must use https (app schemes are accepted only for a payment session\'s redirectUrl)');
    if (problem) throw invalidField(field, problem);
  }

  /**
   * The customer by the path id (`cus_…`), else by `email` or `externalId` of the body (triple identification);
   * 404 when none designates a customer of this merchant and mode.
   */
  private async identify(trx: Trx, owner: Owner, pathId: string, input: { email?: string; externalId?: string }): Promise<CustomerRow> {
    const base = () => trx.selectFrom('customers').selectAll().where(ownedBy(owner));
    const byId = await base().where('id', '=', pathId).executeTakeFirst();
    if (byId) return byId;
    if (input.email) {
      const byEmail = await base().where('email_key', '=', input.email.toLowerCase()).executeTakeFirst();
      if (byEmail) return byEmail;
    }
    if (input.externalId) {
      const byExternal = await base().where('external_id', '=', input.externalId).executeTakeFirst();
      if (byExternal) return byExternal;
    }
    throw new AppError('NOT_FOUND', `No customer with id ${pathId}`, { id: pathId });
  }

  /** The subscription a session is made for: one of this customer's, not over (else 400 on subscriptionId). */
  private async subscriptionOf(trx: Trx, owner: Owner, customerId: string, subscriptionId: string | undefined): Promise<string | null> {
    if (subscriptionId === undefined) return null;
    const row = await trx.selectFrom('subscriptions').select(['id', 'customer_id', 'status']).where('id', '=', subscriptionId).where(ownedBy(owner)).executeTakeFirst();
    if (!row || row.customer_id !== customerId) throw invalidField('subscriptionId', "is not a subscription of this customer");
    if (row.status === 'cancelled' || row.status === 'ended') throw invalidField('subscriptionId', `is ${row.status}`);
    return row.id;
  }

  private async insertSession(
    trx: Trx, owner: WalletOwner, customer: CustomerRow,
    opts: { returnUrl: string | null; locale?: string; seconds: number; channel: 'session' | 'link'; cardLinkId: string | null; id?: string; subscriptionId?: string | null },
  ): Promise<{ session: PaymentSessionRow }> {
    const now = this.clock.now();
    const session = {
      id: opts.id ?? newId('ses'), merchant_id: owner.merchantId, mode: owner.mode, kind: 'wallet' as const, status: 'open' as const,
      payment_id: null, customer_id: customer.id, channel: opts.channel, redirect_url: opts.returnUrl, failure_redirect_url: null,
      success_page_mode: 'redirect', failure_page_mode: 'redirect', language_code: opts.locale ?? 'fr',
      allow_save_payment_method: 0, save_payment_method_default: 0, offer_saved_cards: 0, email: customer.email,
      expires_at: addSeconds(now, opts.seconds).toISOString(), created_at: now.toISOString(), completed_at: null,
    };
    await trx.insertInto('payment_sessions').values(session as never).execute();
    await trx.insertInto('wallet_sessions').values({
      session_id: session.id, card_link_id: opts.cardLinkId, outcome: null, payment_method_id: null, refusal_code: null,
      subscription_id: opts.subscriptionId ?? null, updated_at: session.created_at,
    }).execute();
    return { session: session as unknown as PaymentSessionRow };
  }

  private async findCardLink(owner: Owner, id: string): Promise<CardLinkRow> {
    const row = await this.db.kysely.selectFrom('card_links').selectAll()
      .where('id', '=', id).where(ownedBy(owner)).executeTakeFirst();
    if (!row) throw notFound('card link', id);
    return row;
  }

  private async cardLinkView(link: CardLinkRow) {
    const session = await this.db.kysely.selectFrom('payment_sessions').select(['status', 'expires_at', 'redirect_url', 'language_code'])
      .where('id', '=', link.session_id).executeTakeFirstOrThrow();
    const wallet = await this.db.kysely.selectFrom('wallet_sessions').select(['outcome', 'payment_method_id'])
      .where('session_id', '=', link.session_id).executeTakeFirstOrThrow();
    const expired = session.status === 'open' && session.expires_at <= this.clock.now().toISOString();
    const mail = link.send_email === 1
      ? await this.db.kysely.selectFrom('mail_jobs').select('status').where('kind', '=', 'card_link').where('subject_id', '=', link.id).executeTakeFirst()
      : undefined;
    const status = link.cancelled_at ? 'cancelled' : session.status === 'complete' ? 'completed' : expired || session.status === 'expired' ? 'expired' : 'open';
    return {
      id: link.id,
      object: 'card_link' as const,
      customerId: link.customer_id,
      url: this.registrationUrl(link.session_id),
      sessionId: link.session_id,
      status,
      outcome: wallet.outcome,
      paymentMethodId: wallet.payment_method_id,
      returnUrl: session.redirect_url,
      locale: session.language_code,
      sendEmail: link.send_email === 1,
      // True once the SMTP server accepted the mail; emailStatus says where it stands.
      emailSent: mail?.status === 'sent',
      emailStatus: emailStatus(link, mail?.status),
      expiresAt: link.expires_at,
      createdAt: link.created_at,
    };
  }
}

/** The id of the card link created under the `use`-th use of `idempotencyKey` (idFromKey, idForKeyUse). */
export function cardLinkIdFor(owner: Owner, idempotencyKey: string, use = 0): string {
  return idFromKey('cl', keyUseParts(['cl', owner.merchantId, owner.mode, idempotencyKey], use));
}

/**
 * Where the card link's mail stands: not_requested (sendEmail false), not_sent (no mailer configured, or the
 * customer has no email address: send `url` yourself), queued (waiting or being retried), sent, failed (the
 * SMTP server refused it through every retry), skipped (the link was used or cancelled before it went out).
 */
export type EmailStatus = 'not_requested' | 'not_sent' | 'queued' | 'sent' | 'failed' | 'skipped';

function emailStatus(link: CardLinkRow, status: MailStatus | undefined): EmailStatus {
  if (link.send_email !== 1) return 'not_requested';
  if (status === undefined) return 'not_sent';
  return status === 'pending' || status === 'sending' ? 'queued' : status;
}

/** The return URL with `status` (and `paymentMethodId` on success); those names are reserved, others kept. */
export function walletReturnUrl(base: string, outcome: WalletOutcome, paymentMethodId: string | null): string {
  try {
    const url = new URL(base);
    url.searchParams.delete('paymentMethodId');
    url.searchParams.set('status', outcome);
    if (outcome === 'success' && paymentMethodId) url.searchParams.set('paymentMethodId', paymentMethodId);
    return url.toString();
  } catch {
    return base;
  }
}
