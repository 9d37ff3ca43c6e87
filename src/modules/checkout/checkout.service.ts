// The hosted checkout's use cases: read a session for the page, pay it (token or saved card), finish a
// 3-D Secure challenge, let the cardholder cancel, and decide where the customer goes next.
//
// A remote acquirer is never called inside a database transaction: the payment is re-checked and updated in a
// short transaction after each acquirer answer, with its event on the same transaction. A conditional
// update on the payment's status makes a concurrent second attempt lose cleanly (its authorization is voided).
// An acquirer whose records are rows of this database (the simulator, LocalRecords) writes them on the same
// transaction as the card attempt and Motu's record of its answer instead: one commit, all or nothing.
import { localRecords, type Acquirer, type AuthorizationOutcome, type AuthorizeInput, type CardInfo, type CardSource, type LocalRecords, type OperationResult, type WidgetAuthorize } from '../../acquirer/acquirer.js';
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Kysely } from 'kysely';
import type { Database, Trx } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { alongside, compiledQuery, readAll, readsInOneMessage, runBound } from '../../db/compiled.js';
import { readTogether } from '../../db/together.js';
import { undoable } from '../../db/undo.js';
import { ReferenceCache } from '../../db/reference-cache.js';
import type { Config, MailConfig } from '../../config.js';
import { receiptFacts, type ReceiptFacts } from './receipt-facts.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField } from '../../shared/errors.js';
import type { CustomersService } from '../customers/customers.service.js';
import type { Merchant, Store } from '../merchants/merchants.table.js';
import * as transitions from '../payment-transitions/transitions.js';
import { cachedFeeTerms, type FeeTermsOf } from '../payment-transitions/payment-events.js';
import { isPaid } from '../payments/payment-status.js';
import { statementLabelOf } from '../payments/statement-label.js';
import type { PaymentRow, PaymentSessionRow } from '../payments/payments.table.js';
import type { OrderInput } from '../sessions/sessions.schemas.js';
import { customerFromBuyer } from '../customers/from-buyer.js';
import { removeUnknownCard, savePaymentMethod } from '../wallet/payment-methods.js';
import type { SavedCards } from '../wallet/wallet.service.js';
import { returnUrlFor } from './return-urls.js';
import { mailable, type MailOutbox } from '../../mail/outbox.js';
import { ownedBy } from '../merchants/scope.js';

/** Saved cards offered for one-click payment; provided by the wallet module. */
export interface CheckoutContext {
  session: PaymentSessionRow;
  payment: PaymentRow;
  merchant: Merchant;
  store: Store | null;
  savedCards: Array<{ id: string; brand: string; last4: string }>;
}

/** What the page does after a pay request. */
export type NextStep =
  | { next: 'redirect'; url: string }
  | { next: 'challenge'; url: string }
  | { next: 'error'; code: string; message: string };

/**
 * Whether a session takes a card: `open`; `exhausted`: it would, but every card MOTU_MAX_CARD_ATTEMPTS allows was sent
 * (the last may still be with the acquirer); `closed`: expired, completed, cancelled or paid.
 */
export type CardState = 'open' | 'exhausted' | 'closed';

/** A session the page no longer takes cards for, and why. */
export type Inactive = { inactive: true; lang: string; state: Exclude<CardState, 'open'> };

const OPEN_PAYMENT = transitions.AWAITING_CARD;

// The pay call's reads and its card attempt, compiled once (src/db/compiled.ts).
const paymentSessionById = compiledQuery((db, p: { id: string }) =>
  db.selectFrom('payment_sessions').selectAll().where('id', '=', p.id).where('kind', '=', 'payment'));
const paymentById = compiledQuery((db, p: { id: string }) => db.selectFrom('payments').selectAll().where('id', '=', p.id));
/** The payment of session `sessionId`, found through the session's row (paymentById of its payment_id), in one statement. */
const paymentOfSession = compiledQuery((db, p: { sessionId: string }) => db.selectFrom('payments').selectAll()
  .where('id', '=', (eb) => eb.selectFrom('payment_sessions').select('payment_sessions.payment_id').where('payment_sessions.id', '=', p.sessionId)));
const takeCardAttempt = compiledQuery((db, p: { id: string; maxCardAttempts: number }) => db.updateTable('payment_sessions')
  .set((eb) => ({ card_attempts: eb('card_attempts', '+', 1) }))
  .where('id', '=', p.id).where('status', '=', 'open').where('card_attempts', '<', p.maxCardAttempts));
/**
 * The payment's row locked (where another process could write it meanwhile), so that a transaction that also writes
 * the payment's session takes the payment's lock first, as every transition does (a cancel, a capture): the two then
 * never wait for each other's second lock.
 */
const lockPayment = compiledQuery((db, p: { id: string }) => db.selectFrom('payments').select('id').where('id', '=', p.id).forUpdate());
/** A widget's attempt, spent with its outcome (live payments: every one). */
const spendAttempt = compiledQuery((db, p: { id: string }) => db.updateTable('payment_sessions')
  .set((eb) => ({ card_attempts: eb('card_attempts', '+', 1) })).where('id', '=', p.id));
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class CheckoutService {
  /** Contracts are reference rows: the statement label read once per change (Database.referenceStamp), not per payment. */
  private readonly reference: ReferenceCache;
  /** Their fee terms too, for the events of the authorization and an AUTO capture. */
  private readonly feeTerms: FeeTermsOf;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly acquirers: Acquirers,
    private readonly config: Pick<Config, 'publicUrl' | 'maxCardAttempts' | 'timezone'> & { mail?: Pick<MailConfig, 'testAllowlist'> },
    private readonly savedCards: SavedCards | null = null,
    /** Creates the customer of a `saveCustomer` session after a successful payment. */
    private readonly customers: CustomersService | null = null,
    /** Queues the receipt mail with the authorization (null: no mailer, the receipt is only downloadable). */
    private readonly mail: MailOutbox | null = null,
  ) {
    this.reference = new ReferenceCache(db);
    this.feeTerms = cachedFeeTerms(this.reference);
  }

  /** A payment session and its payment, or null when there is no such payment session. */
  private async sessionAndPayment(q: Kysely<DB>, sessionId: string): Promise<{ session: PaymentSessionRow; payment: PaymentRow } | null> {
    if (readsInOneMessage(q)) {
      // PostgreSQL: both reads in one round trip, the payment through the session's payment_id.
      const [sessions, payments] = await readAll(q, [paymentSessionById.bind(q, { id: sessionId }), paymentOfSession.bind(q, { sessionId })]);
      const session = sessions[0];
      if (!session || !session.payment_id) return null;
      const payment = payments[0]?.id === session.payment_id ? payments[0] : await paymentById.executeTakeFirstOrThrow(q, { id: session.payment_id });
      return { session, payment };
    }
    const session = await paymentSessionById.executeTakeFirst(q, { id: sessionId });
    if (!session || !session.payment_id) return null;
    const payment = await paymentById.executeTakeFirstOrThrow(q, { id: session.payment_id });
    return { session, payment };
  }

  /** The session as the page shows it, or `inactive` when it expired, completed or was cancelled. */
  async load(sessionId: string): Promise<CheckoutContext | Inactive | null> {
    const session = await this.db.kysely.selectFrom('payment_sessions').selectAll()
      .where('id', '=', sessionId).where('kind', '=', 'payment').executeTakeFirst();
    if (!session || !session.payment_id) return null;
    const payment = await this.db.kysely.selectFrom('payments').selectAll().where('id', '=', session.payment_id).executeTakeFirstOrThrow();
    const state = this.cardState(session, payment);
    if (state !== 'open') return { inactive: true, lang: session.language_code, state };
    return this.context(session, payment);
  }

  /** Session and payment whatever their state (outcome pages, receipt). */
  async loadAny(sessionId: string): Promise<CheckoutContext | null> {
    const session = await this.db.kysely.selectFrom('payment_sessions').selectAll()
      .where('id', '=', sessionId).where('kind', '=', 'payment').executeTakeFirst();
    if (!session || !session.payment_id) return null;
    const payment = await this.db.kysely.selectFrom('payments').selectAll().where('id', '=', session.payment_id).executeTakeFirstOrThrow();
    return this.context(session, payment);
  }

  cardState(session: PaymentSessionRow, payment: PaymentRow): CardState {
    // On a test clock the clock's own expiry rule closes the session when the clock passes expiresAt: the status says.
    const expired = session.test_clock_id === null && session.expires_at <= this.clock.now().toISOString();
    if (session.status !== 'open' || expired || !OPEN_PAYMENT.includes(payment.status)) return 'closed';
    return this.hasCardAttemptLeft(session.card_attempts) ? 'open' : 'exhausted';
  }

  /** A session that sent `cardAttempts` cards may send another (MOTU_MAX_CARD_ATTEMPTS). */
  hasCardAttemptLeft(cardAttempts: number): boolean {
    return cardAttempts < this.config.maxCardAttempts;
  }

  /** The page still takes a card: the session is open, unexpired, its payment unpaid, and an attempt is left. */
  isOpen(session: PaymentSessionRow, payment: PaymentRow): boolean {
    return this.cardState(session, payment) === 'open';
  }

  private async context(session: PaymentSessionRow, payment: PaymentRow): Promise<CheckoutContext> {
    const merchant = await this.db.kysely.selectFrom('merchants').selectAll().where('id', '=', session.merchant_id).executeTakeFirstOrThrow();
    const store = payment.store_id
      ? (await this.db.kysely.selectFrom('stores').selectAll().where('id', '=', payment.store_id).executeTakeFirst()) ?? null
      : null;
    // Saved cards only when the session was created with customerId: a payer who merely types an email must not
    // see someone's cards.
    const savedCards = this.savedCards && session.offer_saved_cards === 1 && session.customer_id
      ? await this.savedCards.list({ merchantId: session.merchant_id, mode: session.mode }, session.customer_id)
      : [];
    return { session, payment, merchant, store, savedCards };
  }

  /** The receipt's time zone and statement label. */
  receiptFacts(ctx: CheckoutContext): Promise<ReceiptFacts> {
    return receiptFacts(this.db, ctx.payment, ctx.merchant, this.config.timezone);
  }

  /**
   * Whether a receipt of this mode goes out by mail: a mailer is configured, and in test mode only to the
   * addresses of MOTU_TEST_MAIL_ALLOWLIST (`recipient` unknown yet: whether any address could receive one).
   */
  mailsReceipt(mode: string, recipient?: string): boolean {
    if (!this.mail) return false;
    if (mode !== 'test') return true;
    const allow = this.config.mail?.testAllowlist ?? [];
    if (recipient === undefined) return allow.length > 0;
    const address = recipient.toLowerCase();
    const domain = address.slice(address.lastIndexOf('@') + 1);
    return allow.some((entry) => entry === address || entry === domain);
  }

  /** The customer pressed Pay: a one-time token from the secure fields, or a saved card. */
  async pay(sessionId: string, input: { token?: string; paymentMethodId?: string; email?: string; saveCard?: boolean; threeDSReturnUrl?: string }): Promise<NextStep> {
    // The session, its payment, the contract's statement label and, for a widget's token, the acquirer's record of it,
    // read together (readTogether: on SQLite the connection taken once, not four times).
    type Closed = Pick<Inactive, 'inactive' | 'state'> & { session: PaymentSessionRow; payment: PaymentRow };
    type Open = { session: PaymentSessionRow; payment: PaymentRow; statementLabel: string | undefined; widget: WidgetAuthorize | undefined };
    const loaded = await readTogether(this.db, async (q): Promise<Closed | Open | null> => {
      const found = await this.sessionAndPayment(q, sessionId);
      if (!found) return null;
      const state = this.cardState(found.session, found.payment);
      if (state !== 'open') return { inactive: true, state, ...found } satisfies Closed;
      const contractId = found.payment.contract_id;
      const statementLabel = await this.reference.get(`statement-label:${contractId}`, () => statementLabelOf(q, contractId));
      const acquirer = this.acquirers.forMode(found.session.mode);
      const widget = input.token && !input.paymentMethodId && acquirer.widgetTokens && acquirer.readWidget
        ? await acquirer.readWidget(q, found.session.mode, input.token)
        : undefined;
      return { ...found, statementLabel, widget };
    });
    if (!loaded) throw new AppError('NOT_FOUND', 'Unknown session');
    if ('inactive' in loaded) {
      if (input.token) return this.widgetOnClosedSession(loaded, input.token);
      throw this.closedError(loaded.state);
    }
    const { session, payment, statementLabel, widget } = loaded;
    await this.acquirers.requireLive({ merchantId: session.merchant_id, mode: session.mode }, payment.contract_id);
    const acquirer = this.acquirers.forMode(session.mode);

    let email = session.email ?? payment.email;
    if (!email) {
      const typed = (input.email ?? '').trim();
      if (!EMAIL.test(typed) || typed.length > 254) throw invalidField('email', 'must be a valid email address');
      email = typed;
      await this.rememberEmail(payment, typed);
    }

    let source: CardSource;
    if (input.paymentMethodId) {
      const cardRef = this.savedCards && session.offer_saved_cards === 1 && session.customer_id
        ? await this.savedCards.cardRefOf({ merchantId: session.merchant_id, mode: session.mode }, session.customer_id, input.paymentMethodId)
        : null;
      if (!cardRef) throw invalidField('paymentMethodId', 'is not a saved card of this customer');
      source = { cardRef };
    } else if (input.token) {
      source = { token: input.token };
    } else {
      throw invalidField('token', 'is required');
    }
    const saveCard = session.allow_save_payment_method === 1 && input.saveCard === true && !input.paymentMethodId;
    // A widget's token names a card the acquirer authorized or refused already, and the page's pay call, the acquirer's
    // return and its notification all send it: the attempt is spent with the outcome, by whichever records it first.
    const typedAtAcquirer = 'token' in source && acquirer.widgetTokens === true;
    const authorizeInput: AuthorizeInput = {
      mode: session.mode, source, amount: payment.amount, currency: payment.currency, merchantReference: payment.id, statementLabel,
      threeDSecure: { returnUrl: input.threeDSReturnUrl ?? `${this.config.publicUrl}/checkout/${session.id}/3ds-return` }, saveCard, // the SDK returns to its own route
    };
    const local = localRecords(acquirer, this.db);
    if (local && !typedAtAcquirer) return this.payLocally(local, acquirer, { session, payment }, authorizeInput, input.paymentMethodId);
    if (!typedAtAcquirer) await this.takeAttempt(session);
    const outcome = typedAtAcquirer && widget ? await widget(authorizeInput) : await acquirer.authorize(authorizeInput);
    // A token the acquirer did not take (unknown, expired, or spent by the same card's first click) sent no card to the
    // bank: its attempt is given back, so a double click on Pay costs the payer one card, not two.
    if (!typedAtAcquirer && 'token' in source && outcome.status === 'error' && outcome.code === 'INVALID_TOKEN') await this.giveAttemptBack(session);
    if (outcome.status === 'challenge' && !typedAtAcquirer) {
      // Its answer comes back through completeChallenge, as the end of this same attempt. (A widget still in 3-D
      // Secure: its outcome comes back with the same token, and is counted then.)
      await this.db.transaction((trx) => transitions.countAttempt(trx, payment.id));
    }
    return this.handle(acquirer, session.id, outcome, true, input.paymentMethodId, typedAtAcquirer, { session, payment });
  }

  /**
   * pay, when the acquirer's records are rows of this database (LocalRecords): the card attempt, the acquirer's
   * authorization and Motu's record of its answer (the payment's transition and event, or the challenge counted) in
   * one transaction, one commit where there were three, and all or nothing: a failure anywhere leaves the attempt
   * unspent, the token usable and no authorization at the acquirer. The same rules as the steps apart: the attempt is
   * taken first, by the same conditional increment (concurrent calls take the payment's row lock first and run one
   * after the other), a token the acquirer did not take costs no attempt (nothing of the transaction is kept), any
   * other answer spends it. What follows the commit (voiding an authorization that lost to another, an AUTO capture)
   * is as in `handle`.
   */
  private async payLocally(
    local: LocalRecords, acquirer: Acquirer, ctx: { session: PaymentSessionRow; payment: PaymentRow }, input: AuthorizeInput, savedCardId?: string,
  ): Promise<NextStep> {
    const { session, payment } = ctx;
    type Answered = Extract<AuthorizationOutcome, { status: 'authorized' | 'refused' }>;
    type Done = { outcome: Exclude<AuthorizationOutcome, Answered> } | { outcome: Answered; recorded: PaymentRow | null | 'recorded' };
    const result = await undoable(this.db, async (trx, undo: (outcome: AuthorizationOutcome | null) => never): Promise<Done> => {
      if (this.db.caps.multiProcess) await lockPayment.defer(trx, { id: payment.id });
      // The attempt's increment, then the acquirer's statements; on PostgreSQL the increment goes with the first of them
      // (alongside), and an attempt not taken undoes what they wrote.
      const attempt = takeCardAttempt.bind(trx, { id: session.id, maxCardAttempts: this.config.maxCardAttempts });
      const [taken, outcome] = await alongside(trx, attempt, () => local.authorizeIn(trx, input));
      if (taken.changed !== 1) undo(null);
      if (outcome.status === 'error') {
        // A token the acquirer did not take (unknown, expired, or spent by the same card's first click) sent no card to
        // the bank: its attempt is not spent, so a double click on Pay costs the payer one card, not two.
        if (outcome.code === 'INVALID_TOKEN' && 'token' in input.source) undo(outcome);
        return { outcome };
      }
      // Its answer comes back through completeChallenge, as the end of this same attempt.
      if (outcome.status === 'challenge') {
        await transitions.countAttempt(trx, payment.id);
        return { outcome };
      }
      return { outcome, recorded: await this.record(trx, outcome, true, ctx, savedCardId, false) };
    });
    if ('undone' in result) {
      if (result.undone) return this.handle(acquirer, session.id, result.undone, true);
      const current = await this.loadAny(session.id);
      throw this.closedError(current ? this.cardState(current.session, current.payment) : 'closed');
    }
    const done = result.done;
    if (!('recorded' in done)) return this.handle(acquirer, session.id, done.outcome, true); // an error or a challenge: the page's next step
    return this.afterRecord(acquirer, done.outcome, done.recorded, ctx);
  }

  /**
   * A widget's token for a session that no longer takes a card: a double click or a browser's retry reaching Motu after
   * the first call (or Monext's notification) recorded the widget's outcome, or a widget finished after the payment was
   * paid another way, expired or ran out of attempts (Monext's widget authorizes whatever Motu's session says). What the
   * payment does not hold is given back at once; a paid payment's customer goes to the success page, as the first call
   * sent them, any other is refused as closed. A token of Motu's own fields (test mode) is refused: its card was never sent.
   */
  private async widgetOnClosedSession(closed: { state: CardState; session: PaymentSessionRow; payment: PaymentRow }, token: string): Promise<NextStep> {
    const { session, payment } = closed;
    const live = this.acquirers.monext;
    if (this.acquirers.forMode(session.mode) !== live) throw this.closedError(closed.state);
    await live.releaseWidget(session.mode, token, payment.id, payment.acquirer_authorization_id);
    if (!isPaid(payment.status)) throw this.closedError(closed.state);
    return { next: 'redirect', url: this.successTarget(session, payment) };
  }

  /**
   * Card testing: each card sent to the acquirer first takes one of the session's attempts, by a conditional
   * increment, so concurrent requests cannot pass MOTU_MAX_CARD_ATTEMPTS together. An attempt is spent whatever the
   * acquirer answers (a refusal, a challenge, an error), except a token it did not take (giveAttemptBack); a 3-D Secure
   * completion is part of the attempt it follows.
   */
  private async takeAttempt(session: PaymentSessionRow): Promise<void> {
    // Database.singleWrite: on SQLite a turn of the group commit, not a commit and an fsync of its own on the event loop.
    const taken = await this.db.singleWrite((q) => takeCardAttempt.run(q, { id: session.id, maxCardAttempts: this.config.maxCardAttempts }));
    if (taken === 1) return;
    const current = await this.loadAny(session.id);
    throw this.closedError(current ? this.cardState(current.session, current.payment) : 'closed');
  }

  /** Returns an attempt `takeAttempt` took for a call that reached no bank (never below zero). */
  private async giveAttemptBack(session: PaymentSessionRow): Promise<void> {
    await this.db.singleWrite((q) => q.updateTable('payment_sessions').set((eb) => ({ card_attempts: eb('card_attempts', '-', 1) }))
      .where('id', '=', session.id).where('card_attempts', '>', 0).execute());
  }

  private closedError(state: CardState): AppError {
    return state === 'exhausted' ? this.tooManyAttempts() : new AppError('SESSION_EXPIRED', 'This payment session is no longer active');
  }

  /** 429 for a session whose every allowed card was sent (the hosted page's pay call and the card component alike). */
  tooManyAttempts(): AppError {
    return new AppError('TOO_MANY_ATTEMPTS', 'Too many card attempts for this payment; return to the merchant to start again', {
      maxAttempts: this.config.maxCardAttempts,
    });
  }

  /** The bank page sent the customer back: finish the authorization. */
  async completeChallenge(sessionId: string, authorizationId: string): Promise<NextStep> {
    const ctx = await this.loadAny(sessionId);
    if (!ctx) throw new AppError('NOT_FOUND', 'Unknown session');
    const acquirer = this.acquirers.forMode(ctx.session.mode);
    const view = await acquirer.getAuthorization(ctx.session.mode, authorizationId);
    if (!view || view.merchantReference !== ctx.payment.id) throw new AppError('NOT_FOUND', 'Unknown authentication');
    const outcome = await acquirer.completeChallenge(ctx.session.mode, authorizationId);
    return this.handle(acquirer, sessionId, outcome, false);
  }

  /** The cardholder's cancel link: a pending payment becomes cancelled (cancelledBy "porteur"). */
  async cancel(sessionId: string): Promise<string | null> {
    const ctx = await this.loadAny(sessionId);
    if (!ctx) return null;
    await this.db.transaction((trx) => transitions.cancel(trx, { paymentId: ctx.payment.id, from: OPEN_PAYMENT, by: 'porteur', at: this.clock.now() }));
    const after = await this.db.kysely.selectFrom('payments').select('status').where('id', '=', ctx.payment.id).executeTakeFirstOrThrow();
    if (after.status !== 'cancelled') return null; // already paid, refused for good or expired: nothing to cancel
    return returnUrlFor(ctx.session, ctx.payment, 'cancelled');
  }

  /**
   * Where the customer goes once the payment succeeded: always /checkout/success (a mobile app's web view watches
   * that path), which moves on to the merchant when successPageMode says so (successOnward).
   */
  successTarget(session: PaymentSessionRow, _payment?: PaymentRow): string {
    return `/checkout/success?sessionId=${encodeURIComponent(session.id)}`;
  }

  /** The merchant's return URL /checkout/success moves on to without showing itself (successPageMode), or null. */
  successOnward(session: PaymentSessionRow, payment: PaymentRow): string | null {
    const redirect = returnUrlFor(session, payment, 'success');
    const mode = session.success_page_mode;
    return redirect && (mode === 'redirect' || (mode === 'auto' && Boolean(session.email))) ? redirect : null;
  }

  /** Where the customer goes after a refusal: always /checkout/failed, which moves on per failurePageMode. */
  failureTarget(session: PaymentSessionRow, _payment?: PaymentRow): string {
    return `/checkout/failed?sessionId=${encodeURIComponent(session.id)}`;
  }

  /** The merchant's failure URL /checkout/failed moves on to (failurePageMode redirect with a valid URL), or null. */
  failureOnward(session: PaymentSessionRow, payment: PaymentRow): string | null {
    const redirect = returnUrlFor(session, payment, 'failed');
    return session.failure_page_mode === 'redirect' ? redirect : null;
  }

  private async rememberEmail(payment: PaymentRow, email: string): Promise<void> {
    const privateData = { ...(payment.private_data ? JSON.parse(payment.private_data) as object : {}), customerEmail: email };
    await this.db.kysely.updateTable('payments')
      .set({ email, private_data: JSON.stringify(privateData), updated_at: this.clock.now().toISOString() })
      .where('id', '=', payment.id).execute();
  }

  /**
   * `newAttempt`: the outcome is a new authorization at the acquirer (false: the end of a 3-D Secure challenge).
   * `savedCardId`: the saved card a one-click payment used (removed when the acquirer no longer knows it).
   * `spendCardAttempt`: the session's card attempt is spent here, with the outcome (a widget's), not before the call.
   * `loaded`: the session and its payment as the caller read them before the acquirer call (the pay call): what is
   * used of them here (ids, the capture mode, the session's return settings) does not change meanwhile, and every
   * write below is conditional on the payment's status as it is then; without it they are read.
   */
  private async handle(
    acquirer: Acquirer, sessionId: string, outcome: AuthorizationOutcome, newAttempt: boolean, savedCardId?: string, spendCardAttempt = false,
    loaded?: { session: PaymentSessionRow; payment: PaymentRow },
  ): Promise<NextStep> {
    if (outcome.status === 'error') return { next: 'error', code: outcome.code, message: outcome.message };
    if (outcome.status === 'challenge') return { next: 'challenge', url: outcome.challengeUrl };
    const ctx = loaded ?? await this.loadAny(sessionId);
    if (!ctx) throw new AppError('NOT_FOUND', 'Unknown session');
    // Undone: another call recorded this same answer (record's `recordedElsewhere`), and nothing of this one is kept.
    const result = await undoable(this.db, (trx, undo: (value: 'recorded') => never) =>
      this.record(trx, outcome, newAttempt, ctx, savedCardId, spendCardAttempt, () => undo('recorded')));
    return this.afterRecord(acquirer, outcome, 'undone' in result ? result.undone : result.done, ctx);
  }

  /**
   * Motu's record of an authorization or a refusal, on `trx` (handle's arguments): the payment's row as it stands after
   * it (failed, authorized, or as another call left it); null for an authorization that lost to a concurrent one.
   * An authorization another call recorded already (a widget's, `keep`) calls `recordedElsewhere`, which must undo the
   * transaction: what was sent with the keep is not to be kept.
   */
  private async record(
    trx: Trx, outcome: Extract<AuthorizationOutcome, { status: 'authorized' | 'refused' }>, newAttempt: boolean,
    ctx: { session: PaymentSessionRow; payment: PaymentRow }, savedCardId: string | undefined, spendCardAttempt: boolean,
    recordedElsewhere?: () => never,
  ): Promise<PaymentRow | null> {
    const { session } = ctx;
    const reload = () => trx.selectFrom('payments').selectAll().where('id', '=', ctx.payment.id).executeTakeFirstOrThrow();
    // Its answer is not needed: on PostgreSQL it goes with the transition's UPDATE that follows (deferWrite).
    const spend = async () => {
      if (spendCardAttempt) await spendAttempt.defer(trx, { id: session.id });
    };

    if (outcome.status === 'refused') {
      // The acquirer's record of this answer, committed with Motu's; false: another call recorded this same answer.
      if (outcome.keep && (await runBound(trx, outcome.keep)).changed === 0) return reload();
      await spend();
      const failed = await transitions.fail(trx, {
        paymentId: ctx.payment.id, from: OPEN_PAYMENT, refusalCode: outcome.refusalCode, refusalMessage: outcome.refusalMessage,
        card: outcome.card, at: this.clock.now(), newAttempt,
      });
      if (failed && outcome.refusalCode === 'card_unknown') await removeUnknownCard(trx, savedCardId ?? null, this.clock.now());
      if (!failed && newAttempt) await transitions.countAttempt(trx, ctx.payment.id);
      return failed ?? reload();
    }

    // Authorized: claim the payment; a concurrent attempt that already won makes ours void. The acquirer's record of
    // this answer goes first, with the claim (alongside: on PostgreSQL in the same message); when it changed nothing,
    // another call recorded this same answer, and what was sent with it is undone.
    const claim = async () => {
      await spend();
      return transitions.authorize(trx, {
        paymentId: ctx.payment.id, from: OPEN_PAYMENT, authorizationId: outcome.authorizationId, card: outcome.card,
        at: this.clock.now(), newAttempt, claimCapture: ctx.payment.capture_mode === 'AUTO',
        beforeEvent: (row) => this.attachCustomerAndCard(trx, row, outcome.cardRef ?? null, outcome.card), feeTerms: this.feeTerms,
      });
    };
    let row: PaymentRow | null;
    if (outcome.keep) {
      const [kept, claimed] = await alongside(trx, outcome.keep, claim);
      if (kept.changed === 0) {
        if (!recordedElsewhere) throw new Error('record: a kept outcome needs recordedElsewhere');
        recordedElsewhere();
      }
      row = claimed;
    } else {
      row = await claim();
    }
    if (row) await this.queueReceipt(trx, row, session);
    else if (newAttempt) await transitions.countAttempt(trx, ctx.payment.id); // voided below, but asked all the same
    return row;
  }

  /** What follows Motu's record of an answer, once committed (`record`'s result), and where the customer goes. */
  private async afterRecord(
    acquirer: Acquirer, outcome: Extract<AuthorizationOutcome, { status: 'authorized' | 'refused' }>, recorded: PaymentRow | null | 'recorded',
    ctx: { session: PaymentSessionRow; payment: PaymentRow },
  ): Promise<NextStep> {
    const { session } = ctx;
    if (outcome.status === 'refused') {
      const payment = recorded as PaymentRow;
      return { next: 'redirect', url: payment.status === 'failed' ? this.failureTarget(session, payment) : this.afterTarget(session, payment) };
    }
    const authorized = recorded;
    if (authorized === 'recorded' || !authorized) {
      const current = (await this.loadAny(session.id))!;
      // Given back unless it is the payment's own: the same authorization, recorded already by another call that read
      // the same outcome, is the payment's, not a second one.
      if (authorized !== 'recorded' && current.payment.acquirer_authorization_id !== outcome.authorizationId) {
        await acquirer.cancel({ mode: ctx.session.mode, authorizationId: outcome.authorizationId });
      }
      return { next: 'redirect', url: this.afterTarget(session, current.payment) };
    }
    if (authorized.capture_mode !== 'AUTO') return { next: 'redirect', url: this.afterTarget(session, authorized) };
    // The captured row as its transaction wrote it; read only when this call did not capture (the acquirer refused, or
    // another observer captured first).
    const final = await this.captureNow(acquirer, authorized)
      ?? await this.db.kysely.selectFrom('payments').selectAll().where('id', '=', authorized.id).executeTakeFirstOrThrow();
    return { next: 'redirect', url: this.afterTarget(session, final) };
  }

  /**
   * The receipt goes by mail, on the authorization's transaction, to the customer's address: the one stored in
   * privateData.customerEmail (given at session creation or typed on the page), else the payment's email.
   */
  private async queueReceipt(trx: Trx, payment: PaymentRow, session: PaymentSessionRow): Promise<void> {
    if (!this.mail) return;
    const privateData = payment.private_data ? JSON.parse(payment.private_data) as { customerEmail?: unknown } : {};
    const recipient = typeof privateData.customerEmail === 'string' ? privateData.customerEmail : payment.email;
    if (!mailable(recipient) || !this.mailsReceipt(payment.mode, recipient)) return;
    await this.mail.enqueue(trx, {
      merchantId: payment.merchant_id, mode: payment.mode, kind: 'receipt', subjectId: payment.id, recipient, locale: session.language_code,
    });
  }

  /**
   * AUTO capture: right after the authorization, the full amount, under the capture claim the authorization took (a
   * merchant's capture or cancel meanwhile waits for it, and a stopped process leaves it to the recovery job). The
   * payment's row as the capture wrote it; null when it did not (refused, or no longer in transit).
   */
  private async captureNow(acquirer: Acquirer, payment: PaymentRow): Promise<PaymentRow | null> {
    const release = () => this.db.transaction((trx) => transitions.releaseClaim(trx, payment.id, 'capture'));
    const local = localRecords(acquirer, this.db);
    if (local) {
      // The acquirer's capture and Motu's record of it in one transaction (LocalRecords), sent together (alongside). Refused
      // or failed, nothing of it is kept, and the claim is released as below.
      let captured: { done: PaymentRow | null } | { undone: undefined };
      try {
        captured = await undoable(this.db, async (trx, undo: (value: undefined) => never) => {
          const captured = await transitions.captureWithLocal(trx, local, {
            mode: payment.mode, authorizationId: payment.acquirer_authorization_id!,
            paymentId: payment.id, amount: payment.amount, operation: 'capture', at: this.clock.now(), feeTerms: this.feeTerms,
          });
          return captured.refused ? undo(undefined) : captured.row;
        });
      } catch (err) {
        await release();
        throw err;
      }
      if ('done' in captured) return captured.done;
      await release(); // stays in transit; the lifecycle's capture can retry
      return null;
    }
    let result: OperationResult;
    try {
      result = await acquirer.capture({ mode: payment.mode, authorizationId: payment.acquirer_authorization_id!, amount: payment.amount });
    } catch (err) {
      await release();
      throw err;
    }
    if (!result.ok) {
      await release(); // stays in transit; the lifecycle's capture can retry
      return null;
    }
    return this.db.transaction(async (trx) => {
      await result.keep?.(trx);
      return transitions.capture(trx, { paymentId: payment.id, amount: payment.amount, operation: 'capture', at: this.clock.now(), feeTerms: this.feeTerms });
    });
  }

  /** Outcome of a payment no longer open to this attempt: success page for a paid one, else the failure route. */
  private afterTarget(session: PaymentSessionRow, payment: PaymentRow): string {
    if (isPaid(payment.status)) return this.successTarget(session, payment);
    if (payment.status === 'failed') return this.failureTarget(session, payment);
    return '/expired';
  }

  /**
   * After a successful authorization, on its transaction: a `saveCustomer` session gets its customer, created from
   * the payment's email and the order's buyer (name, phone, billing address), and a card the customer chose to save
   * becomes a payment method (`payment_method.added` once per card, deduplicated by fingerprint).
   * An email that already belongs to a customer proves nothing about the payer (anyone can type it on the page): the
   * payment is then attached to nobody, no customer is created (the email is taken) and no card is saved, so a stranger
   * can never add a card to someone else's wallet. `customerCreated` stays false and `customerId` null.
   * Returns whether it wrote the payment (a customer or a payment method attached).
   */
  private async attachCustomerAndCard(trx: Trx, payment: PaymentRow, cardRef: string | null, card: CardInfo): Promise<boolean> {
    const paymentId = payment.id;
    let wrote = false;
    const owner = { merchantId: payment.merchant_id, mode: payment.mode };
    let customerId = payment.customer_id;
    if (!customerId && payment.save_customer === 1 && this.customers) {
      const email = payment.email;
      const taken = email
        ? await trx.selectFrom('customers').select('id').where(ownedBy(owner))
          .where('email_key', '=', email.toLowerCase()).executeTakeFirst()
        : undefined;
      if (!taken) {
        const order = JSON.parse(payment.order_json) as Pick<OrderInput, 'buyer'>;
        customerId = (await this.customers.insert(trx, owner, { email, ...customerFromBuyer(order) })).id;
        await trx.updateTable('payments').set({ customer_id: customerId, customer_created: 1 }).where('id', '=', paymentId).execute();
        wrote = true;
      }
    }
    if (cardRef && customerId) {
      const saved = await savePaymentMethod(trx, { owner, customerId, cardRef, card, at: this.clock.now() });
      await trx.updateTable('payments').set({ payment_method_id: saved.paymentMethod.id }).where('id', '=', paymentId).execute();
      wrote = true;
    }
    return wrote;
  }
}
