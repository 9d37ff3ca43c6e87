// The Acquirer interface over Monext's Retail API, for one contract (its credentials). Card numbers never reach
// Motu: the cardholder types the card, chooses the CB network of a co-badged card and passes 3-D Secure in Monext's
// widget, which authorizes; Motu holds the widget session's token and reads the outcome back (authorize/verify with
// { token }). Merchant-initiated charges use the card Monext keeps in a wallet (cardRef). Authorization ids given to
// Motu are `<contract id>.<Monext transaction id>`, so every later call finds its contract without a database read.
//
// Recovery: an answer lost on the way (timeout, 5xx, an unreadable body) throws MonextUnavailable and nothing final is
// recorded; the state is read back from Monext (GET transaction, GET session). Monext offers no idempotency key, so
// the connector keeps its own: each direct authorization and each refund is written (monext_authorizations,
// monext_refunds) before it is sent, and a repeated call with the same reference answers from that row or from
// Monext's record of the transaction, never by asking Monext to charge or refund a second time while the first call
// may still be on its way.
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../db/database.js';
import type { Mode } from '../../modules/merchants/merchants.table.js';
import type { Clock } from '../../shared/clock.js';
import { addSeconds, iso } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { base62 } from '../../shared/ids.js';
import type {
  Acquirer, AuthorizationOutcome, AuthorizationView, AuthorizeInput, CardBrand, CardInfo, CardNetwork, CardSource, Keep, KeepOnce,
  DisputeNotice, OperationResult, RefundInput, RefundView, RefusalCode, SettlementLine, TokenizeInput, TokenizeResult, VerifyOutcome,
} from '../acquirer.js';
import { REFUSAL_MESSAGES } from '../acquirer.js';
import { chooseNetwork } from '../cards.js';
import { BUYER_CANCELLED, PENDING_TITLES, refusalOf, USED_ORDER } from './monext.codes.js';
import { MonextClient, MonextUnavailable, resultOf, type MonextAnswer, type MonextClientOptions } from './monext.client.js';
import { MONEXT_WIDGET_URLS, type MonextCredentials } from './monext.config.js';
import type { MonextAuthorizationsTable, MonextRefundsTable } from './monext.table.js';
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { DB } from '../../db/schema.js';

export interface CardEntryInput {
  mode: Mode;
  /** Motu's payment id (a payment) or wallet session id (a card registration): the order reference at Monext. */
  merchantReference: string;
  /** 0 for a card registration (zero-amount verification). */
  amount: number;
  currency: string;
  /** Where Monext sends the browser back (with `monext_session_id`), and where it notifies. */
  returnUrl: string;
  notificationUrl: string;
  languageCode?: string;
  statementLabel?: string;
  email?: string | null;
  /** A payment whose card the customer may choose to save: the session registers it in a Monext wallet as it pays. */
  saveAllowed?: boolean;
}

export interface CardEntry {
  /** The widget session's token: the `data-token` of Monext's widget, then the token authorize/verify read. */
  token: string;
  /** Monext's own payment page for the same session (the redirection mode). */
  redirectUrl: string | null;
  scriptUrl: string;
  styleUrl: string;
}

/** Monext remits a day's captures the next day (MOTU_MONEXT_SETTLEMENT_DELAY overrides it). */
const SETTLEMENT_DELAY_SECONDS = 86_400;
/** How far back open authorizations are looked for: a capture can come up to an authorization's life after it. */
const SETTLEMENT_LOOKBACK_SECONDS = 35 * 86_400;
/** A card authorization Monext keeps open for capture (7 days); one not captured by then is closed. */
const AUTHORIZATION_LIFE_SECONDS = 8 * 86_400;
/** Authorizations read from Monext per run and contract (the next run goes on). */
const SETTLEMENT_BATCH = 200;

function genId(prefix: string): string {
  return `${prefix}_${base62(randomBytes(12), 16)}`;
}

export class MonextAcquirer implements Acquirer {
  readonly name = 'monext';
  readonly widgetTokens = true;
  private readonly client: MonextClient;

  get environment(): string {
    return this.credentials.environment;
  }

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    readonly contractId: string,
    private readonly credentials: MonextCredentials,
    private readonly clientOptions: MonextClientOptions,
  ) {
    this.client = new MonextClient(credentials, clientOptions);
  }

  chooseNetwork(networks: CardNetwork[]): CardNetwork {
    return chooseNetwork(networks); // the widget offers the choice; CB by default
  }

  async tokenize(_input: TokenizeInput): Promise<TokenizeResult> {
    throw new AppError('BUSINESS_RULE_VIOLATION', "Live cards are typed in Monext's secure widget: Motu's card fields serve test mode only");
  }

  async describe(_mode: Mode, source: CardSource): Promise<CardInfo | null> {
    if ('cardRef' in source) return parseCardRef(source.cardRef)?.card ?? null;
    return null;
  }

  /**
   * A widget session for one payment (amount > 0) or one card registration (amount 0, a new wallet). `along`: the
   * caller's write that goes with it (the session's card-token slot), in the transaction that keeps the widget's row;
   * when it throws, no row is kept and the widget session Monext made is never usable.
   */
  async startCardEntry(input: CardEntryInput, along?: Keep): Promise<CardEntry> {
    const verification = input.amount === 0;
    const walletId = verification || input.saveAllowed ? genId('motu') : undefined;
    const body = {
      pointOfSaleReference: this.credentials.pointOfSaleReference,
      paymentMethod: { paymentMethodIDs: [this.credentials.contractNumber] },
      order: { reference: input.merchantReference, amount: input.amount, currency: input.currency, origin: 'E_COM' },
      payment: { paymentType: 'ONE_OFF', capture: 'MANUAL', ...(input.statementLabel ? { softDescriptor: input.statementLabel } : {}) },
      ...(walletId ? { walletId } : {}),
      ...(input.email ? { buyer: { email: input.email } } : {}),
      threeDS: { challengeInd: verification ? 'CHALLENGE_MANDATE' : 'NO_PREFERENCE' },
      privateData: { motuReference: input.merchantReference },
      returnURL: input.returnUrl,
      notificationURL: input.notificationUrl,
      languageCode: (input.languageCode ?? 'fr').slice(0, 2).toUpperCase(),
    };
    const answer = await this.client.call('POST', '/v1/checkout/payments/sessions', body);
    if (answer.kind === 'rejected') throw rejectedError(answer);
    const sessionId = answer.body.sessionId;
    if (typeof sessionId !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(sessionId)) throw new MonextUnavailable('a session without a usable sessionId');
    const now = iso(this.clock.now());
    // Database.singleWrite: one transaction of the group commit on SQLite; on PostgreSQL the two statements in order, no
    // transaction (two round trips instead of four): they need no atomicity, a slot taken without its row is only a
    // slot lost.
    await this.db.singleWrite(async (trx) => {
      await along?.(trx);
      await trx.insertInto('monext_authorizations').values({
        id: genId('mxa'), contract_id: this.contractId, mode: input.mode, merchant_reference: input.merchantReference, reference: sessionId,
        kind: 'session', amount: input.amount, currency: input.currency, transaction_id: verification ? `wallet:${walletId}` : null,
        wallet_id: walletId ?? null, state: 'created', created_at: now, updated_at: now,
      }).execute();
    });
    const override = this.clientOptions.widgetUrl?.replace(/\/+$/, '');
    const widget = override
      ? { script: `${override}/cdn/scripts/widget-min.js`, style: `${override}/cdn/styles/widget-min.css` }
      : MONEXT_WIDGET_URLS[this.credentials.environment];
    const redirectUrl = typeof answer.body.redirectURL === 'string' ? answer.body.redirectURL : null;
    return { token: sessionId, redirectUrl, scriptUrl: widget.script, styleUrl: widget.style };
  }

  async verify(input: { mode: Mode; token: string }, known?: WidgetRow): Promise<VerifyOutcome> {
    const row = known ?? await this.sessionRow(input.mode, input.token);
    if (!row || row.amount !== 0) return { status: 'error', code: 'INVALID_TOKEN', message: 'The Monext session is unknown or was not made for a card registration' };
    const walletId = row.wallet_id ?? (row.transaction_id?.startsWith('wallet:') ? row.transaction_id.slice('wallet:'.length) : null);
    const read = await this.readSession(input.token);
    if (read.kind === 'pending') return { status: 'error', code: 'INVALID_TOKEN', message: 'The card registration is not finished in the widget' };
    if (read.kind === 'cancelled') return { status: 'error', code: 'INVALID_TOKEN', message: "The cardholder left Monext's widget" };
    if (read.kind === 'refused') {
      return { status: 'refused', card: read.card, refusalCode: read.refusalCode, refusalMessage: REFUSAL_MESSAGES[read.refusalCode] };
    }
    if (!walletId || !read.card) throw new MonextUnavailable('a registration without its card');
    const issuer = read.issuerTransactionId ?? '';
    return { status: 'verified', cardRef: cardRefOf(this.contractId, walletId, issuer, read.card), card: read.card };
  }

  /** `known`: the widget session's row when the caller already read it (the router, to find the contract). */
  async authorize(input: AuthorizeInput, known?: WidgetRow): Promise<AuthorizationOutcome> {
    if ('token' in input.source) return this.authorizeSession(input, input.source.token, known);
    return this.authorizeDirect(input, input.source.cardRef);
  }

  /** The widget's authorization, read from its session (a repeated read answers the same). */
  private async authorizeSession(input: AuthorizeInput, token: string, known?: WidgetRow): Promise<AuthorizationOutcome> {
    const row = known ?? await this.sessionRow(input.mode, token);
    if (!row || row.merchant_reference !== input.merchantReference || row.amount !== input.amount || row.currency !== input.currency) {
      return { status: 'error', code: 'INVALID_TOKEN', message: 'The Monext session is unknown, or was made for another payment or amount' };
    }
    return this.sessionOutcome(token, input.saveCard && row.wallet_id ? row.wallet_id : null);
  }

  /** `saveIn`: the Monext wallet the widget registered the card in, when the customer asked to save it (answers its cardRef). */
  private async sessionOutcome(token: string, saveIn: string | null = null): Promise<AuthorizationOutcome> {
    const read = await this.readSession(token);
    if (read.kind === 'pending') {
      return {
        status: 'challenge', authorizationId: `${this.contractId}.s.${token}`, card: read.card ?? unknownCard(),
        challengeUrl: read.redirectUrl ?? '',
      };
    }
    if (read.kind === 'cancelled') return { status: 'error', code: 'INVALID_TOKEN', message: "The cardholder left Monext's widget (02319)" };
    const authorizationId = `${this.contractId}.${read.transactionId}`;
    const at = iso(this.clock.now());
    // What Monext answered is kept with the attempt (the payment's detail lists it from there, no call), in the
    // transaction that records the outcome in Motu (KeepOnce), by the first caller only: the row leaves `created` once.
    // Unrecorded, the attempt is read from Monext again.
    const keep: KeepOnce = async (trx) => {
      const written = await trx.updateTable('monext_authorizations').set({
        transaction_id: read.transactionId, state: read.kind, updated_at: at, card: JSON.stringify(read.card ?? unknownCard()),
        refusal_code: read.kind === 'refused' ? read.refusalCode : null,
        ...(read.kind === 'authorized' && read.captured ? { captured_amount: sql<number>`amount`, captured_at: at } : {}),
      }).where('contract_id', '=', this.contractId).where('reference', '=', token).where('state', '=', 'created').executeTakeFirst();
      return Number(written.numUpdatedRows) > 0;
    };
    if (read.kind === 'refused') {
      return { status: 'refused', authorizationId, card: read.card, refusalCode: read.refusalCode, refusalMessage: REFUSAL_MESSAGES[read.refusalCode], keep };
    }
    const card = read.card ?? unknownCard();
    const cardRef = saveIn && read.card ? cardRefOf(this.contractId, saveIn, read.issuerTransactionId ?? '', read.card) : undefined;
    return { status: 'authorized', authorizationId, card, captured: read.captured, ...(cardRef ? { cardRef } : {}), keep };
  }

  async completeChallenge(_mode: Mode, authorizationId: string): Promise<AuthorizationOutcome> {
    const parsed = splitAuthorizationId(authorizationId);
    if (parsed?.session) return this.sessionOutcome(parsed.session);
    if (!parsed) return { status: 'error', code: 'INVALID_TOKEN', message: 'Unknown authorization' };
    const view = await this.getAuthorization(_mode, authorizationId);
    if (!view) return { status: 'error', code: 'INVALID_TOKEN', message: 'Unknown authorization' };
    return outcomeOfView(view);
  }

  /** A merchant-initiated charge of a card kept in a Monext wallet: POST /v1/checkout/payments. */
  private async authorizeDirect(input: AuthorizeInput, cardRef: string): Promise<AuthorizationOutcome> {
    const saved = parseCardRef(cardRef);
    if (!saved || saved.contractId !== this.contractId) return { status: 'error', code: 'UNKNOWN_CARD', message: 'The saved card is not kept at Monext for this contract' };
    const reference = input.reference ?? genId('mxr');
    const now = this.clock.now();
    const intent = {
      id: genId('mxa'), contract_id: this.contractId, mode: input.mode, merchant_reference: input.merchantReference, reference,
      kind: 'direct' as const, amount: input.amount, currency: input.currency, transaction_id: null, state: 'sending',
      created_at: iso(now), updated_at: iso(now),
    };
    try {
      await this.db.singleWrite((db) => db.insertInto('monext_authorizations').values(intent).execute());
    } catch (err) {
      if (!this.db.isUniqueViolation(err)) throw err;
      const earlier = await this.db.kysely.selectFrom('monext_authorizations').selectAll()
        .where('contract_id', '=', this.contractId).where('reference', '=', reference).executeTakeFirstOrThrow();
      if (earlier.transaction_id) {
        const view = await this.getAuthorization(input.mode, `${this.contractId}.${earlier.transaction_id}`);
        if (view) return outcomeOfView(view);
      }
      // The first call may still be on its way: nothing is final until it is surely over (past the timeout).
      if (earlier.state === 'sending' && now.getTime() - Date.parse(earlier.updated_at) < this.clientOptions.timeoutMs + 1000) {
        throw new MonextUnavailable('an earlier call under the same reference is still on its way');
      }
      // Its answer was lost. Monext's API finds a transaction by its id only, never by order reference, so the call is
      // never sent again: that could charge the card twice. Not an attempt Motu can see; the operator reconciles it
      // in Monext's back office (docs/live.md, "A lost answer of a merchant-initiated charge").
      await this.db.singleWrite((db) => db.updateTable('monext_authorizations').set({ state: 'unknown', updated_at: iso(now) })
        .where('id', '=', earlier.id).where('transaction_id', 'is', null).execute());
      return {
        status: 'error', code: 'INVALID_TOKEN',
        message: `Monext's answer to the charge under ${reference} was lost; it is not sent again (no double charge): check Monext's back office for order ${input.merchantReference}`,
      };
    }
    const body = {
      pointOfSaleReference: this.credentials.pointOfSaleReference,
      paymentMethodId: this.credentials.contractNumber,
      order: { reference: input.merchantReference, amount: input.amount, currency: input.currency, origin: 'E_COM' },
      payment: {
        paymentType: 'ONE_OFF', capture: input.capture ? 'AUTOMATIC' : 'MANUAL',
        ...(input.statementLabel ? { softDescriptor: input.statementLabel } : {}),
      },
      ...(saved.issuerTransactionId ? { issuerTransactionId: saved.issuerTransactionId } : {}),
      paymentInstrument: { walletId: saved.walletId, cardIndex: 1 },
      privateData: { motuReference: reference },
    };
    const answer = await this.client.call('POST', '/v1/checkout/payments', body);
    const at = iso(this.clock.now());
    const mine = (set: Updateable<MonextAuthorizationsTable>) => this.db.singleWrite((db) => db.updateTable('monext_authorizations').set({ ...set, updated_at: at })
      .where('contract_id', '=', this.contractId).where('reference', '=', reference).execute());
    if (answer.kind === 'rejected') {
      if (answer.code === USED_ORDER) {
        await mine({ state: 'unknown' });
        return { status: 'error', code: 'INVALID_TOKEN', message: `Monext already holds a transaction for order ${input.merchantReference} (01185)` };
      }
      await mine({ state: 'refused' });
      if (answer.status === 401 || answer.status === 403) throw rejectedError(answer);
      return {
        status: 'refused', authorizationId: `${this.contractId}.rejected.${reference}`, card: saved.card, refusalCode: 'processing_error',
        refusalMessage: REFUSAL_MESSAGES.processing_error,
      };
    }
    const result = resultOf(answer.body);
    const transaction = answer.body.transaction as Record<string, unknown> | undefined;
    const transactionId = typeof transaction?.id === 'string' && transaction.id !== '' ? transaction.id : null;
    if (!result || !transactionId) throw new MonextUnavailable('a payment answer without its result or transaction');
    const accepted = result.title === 'ACCEPTED';
    const refused = result.title === 'REFUSED' || result.title === 'ERROR';
    const code = refused ? refusalOf(result.code, result.title) : null;
    // A status this connector does not know is not final: the transaction is kept, its outcome read back later.
    await mine({
      transaction_id: transactionId, state: accepted ? 'answered' : 'refused', card: accepted || refused ? JSON.stringify(saved.card) : null,
      refusal_code: code, ...(accepted && input.capture ? { captured_amount: input.amount, captured_at: at } : {}),
    });
    const authorizationId = `${this.contractId}.${transactionId}`;
    if (accepted) return { status: 'authorized', authorizationId, card: saved.card, captured: Boolean(input.capture) };
    if (code) return { status: 'refused', authorizationId, card: saved.card, refusalCode: code, refusalMessage: REFUSAL_MESSAGES[code] };
    throw new MonextUnavailable(`an unknown payment status ${JSON.stringify(result.title).slice(0, 40)}`);
  }

  async capture(input: { mode: Mode; authorizationId: string; amount: number }): Promise<OperationResult> {
    return this.operation(input.authorizationId, 'captures', { amount: input.amount });
  }

  async cancel(input: { mode: Mode; authorizationId: string }): Promise<OperationResult> {
    const view = await this.getAuthorization(input.mode, input.authorizationId);
    if (!view) return { ok: false, reason: 'unknown authorization' };
    if (view.status === 'cancelled') return { ok: true };
    if (view.status !== 'authorized') return { ok: false, reason: `the authorization is ${view.status}` };
    return this.operation(input.authorizationId, 'cancels', { amount: view.amount });
  }

  private async operation(authorizationId: string, kind: 'captures' | 'cancels', body: Record<string, unknown>): Promise<OperationResult> {
    const parsed = splitAuthorizationId(authorizationId);
    if (!parsed?.transaction) return { ok: false, reason: 'unknown authorization' };
    const answer = await this.client.call('POST', `/v1/checkout/transactions/${encodeURIComponent(parsed.transaction)}/${kind}`, body);
    if (answer.kind === 'rejected') return { ok: false, reason: `${answer.title}${answer.code ? ` (${answer.code})` : ''}: ${answer.detail}`.slice(0, 300) };
    const result = resultOf(answer.body);
    if (!result) throw new MonextUnavailable(`a ${kind.slice(0, -1)} answer without its result`);
    if (result.title === 'ACCEPTED') {
      // A capture is kept in the transaction that records it in Motu (Keep); a cancel at once.
      if (kind === 'captures') return { ok: true, keep: (trx) => this.noteOperation(parsed.transaction!, { captured: Number(body.amount) }, trx) };
      await this.noteOperation(parsed.transaction, { cancelled: true });
      return { ok: true };
    }
    if (result.title === 'REFUSED' || result.title === 'ERROR') return { ok: false, reason: `${result.title} ${result.code}${result.detail ? `: ${result.detail}` : ''}`.slice(0, 300) };
    throw new MonextUnavailable(`an unknown ${kind.slice(0, -1)} status`);
  }

  async refund(input: RefundInput): Promise<OperationResult> {
    const parsed = splitAuthorizationId(input.authorizationId);
    if (!parsed?.transaction) return { ok: false, reason: 'unknown authorization' };
    if (!Number.isInteger(input.amount) || input.amount <= 0) return { ok: false, reason: 'amount must be a positive integer' };
    const now = this.clock.now();
    try {
      await this.db.singleWrite((db) => db.insertInto('monext_refunds').values({
        reference: input.reference, contract_id: this.contractId, mode: input.mode, authorization_id: input.authorizationId,
        amount: input.amount, status: 'sent', transaction_id: null, reason: null, created_at: iso(now),
      }).execute());
    } catch (err) {
      if (!this.db.isUniqueViolation(err)) throw err;
      const found = await this.getRefund(input.mode, input.reference);
      if (found) return found.status === 'succeeded' ? { ok: true } : { ok: false, reason: found.reason ?? 'refused' };
      // Never received by Monext (getRefund made sure, past the timeout): sent again, by one caller only.
      const row = await this.db.kysely.selectFrom('monext_refunds').selectAll().where('reference', '=', input.reference).executeTakeFirstOrThrow();
      const retaken = await this.db.singleWrite((db) => db.updateTable('monext_refunds').set({ created_at: iso(now) })
        .where('reference', '=', input.reference).where('status', '=', 'sent').where('created_at', '=', row.created_at).executeTakeFirst());
      if (Number(retaken.numUpdatedRows) !== 1) throw new MonextUnavailable('another refund under the same reference is on its way');
    }
    const answer = await this.client.call('POST', `/v1/checkout/transactions/${encodeURIComponent(parsed.transaction)}/refunds`, {
      amount: input.amount, merchantReference: input.reference,
    });
    return this.recordRefund(input.reference, answer);
  }

  private async recordRefund(reference: string, answer: MonextAnswer): Promise<OperationResult> {
    const record = (set: Updateable<MonextRefundsTable>) => this.db.singleWrite((db) => db.updateTable('monext_refunds').set(set)
      .where('reference', '=', reference).where('status', '=', 'sent').execute());
    if (answer.kind === 'rejected') {
      const reason = `${answer.title}${answer.code ? ` (${answer.code})` : ''}: ${answer.detail}`.slice(0, 300);
      await record({ status: 'refused', reason });
      return { ok: false, reason };
    }
    const result = resultOf(answer.body);
    const transaction = answer.body.transaction as Record<string, unknown> | undefined;
    if (!result) throw new MonextUnavailable('a refund answer without its result');
    if (result.title === 'ACCEPTED') {
      const transactionId = typeof transaction?.id === 'string' ? transaction.id : null;
      await record({ status: 'succeeded', transaction_id: transactionId });
      return { ok: true };
    }
    if (result.title === 'REFUSED' || result.title === 'ERROR') {
      const reason = `${result.title} ${result.code}${result.detail ? `: ${result.detail}` : ''}`.slice(0, 300);
      await record({ status: 'refused', reason });
      return { ok: false, reason };
    }
    throw new MonextUnavailable('an unknown refund status');
  }

  /**
   * The refund under this reference: from its row once answered; a row whose answer was lost is matched against
   * Monext's record of the authorization (a successful REFUND of the same amount that no other reference owns).
   * Null when Monext surely never received it (no such refund, and the call is past its timeout).
   */
  async getRefund(mode: Mode, reference: string): Promise<RefundView | null> {
    const row = await this.db.kysely.selectFrom('monext_refunds').selectAll().where('reference', '=', reference).where('mode', '=', mode).executeTakeFirst();
    if (!row) return null;
    const view = (status: 'succeeded' | 'refused', reason: string | null): RefundView => ({
      reference, authorizationId: row.authorization_id, amount: row.amount, status, reason, createdAt: row.created_at,
    });
    if (row.status !== 'sent') return view(row.status, row.reason);
    const parsed = splitAuthorizationId(row.authorization_id);
    if (!parsed?.transaction) return null;
    const details = await this.transactionDetails(parsed.transaction);
    if (!details) throw new MonextUnavailable('the authorization of a refund is unknown to Monext');
    const owned = new Set((await this.db.kysely.selectFrom('monext_refunds').select('transaction_id')
      .where('authorization_id', '=', row.authorization_id).where('transaction_id', 'is not', null).execute()).map((r) => r.transaction_id));
    const match = details.associated.find((t) => t.type === 'REFUND' && t.status === 'OK' && t.amount === row.amount && !owned.has(t.id));
    if (match) {
      await this.db.kysely.updateTable('monext_refunds').set({ status: 'succeeded', transaction_id: match.id }).where('reference', '=', reference).where('status', '=', 'sent').execute();
      return view('succeeded', null);
    }
    if (this.clock.now().getTime() - Date.parse(row.created_at) < this.clientOptions.timeoutMs + 1000) {
      throw new MonextUnavailable('the refund call may still be on its way');
    }
    return null;
  }

  /** Monext's record of the authorization (a call); a capture or cancel found there that the attempt's row lacks is kept. */
  async getAuthorization(mode: Mode, authorizationId: string): Promise<AuthorizationView | null> {
    const parsed = splitAuthorizationId(authorizationId);
    if (!parsed?.transaction || parsed.contractId !== this.contractId) return null;
    const details = await this.transactionDetails(parsed.transaction);
    if (!details) return null;
    const view = viewOf(authorizationId, details, mode);
    if (view.status === 'captured' || view.status === 'cancelled') {
      await this.noteOperation(parsed.transaction, view.status === 'captured' ? { captured: view.capturedAmount, at: view.capturedAt } : { cancelled: true });
    }
    return view;
  }

  /**
   * A capture or cancel Monext accepted, kept with the attempt: a capture once (the first one's date), which the
   * settlement then reports without reading the transaction back; a cancel as the attempt's state. Alone (no `trx`:
   * what a read of Monext found), it is written only when the row does not have it yet: reads that find nothing new
   * write nothing.
   */
  private async noteOperation(transactionId: string, what: { captured: number; at?: string | null } | { cancelled: true }, trx?: Kysely<DB>): Promise<void> {
    const at = iso(this.clock.now());
    const write = (db: Kysely<DB>) => {
      const q = db.updateTable('monext_authorizations').where('contract_id', '=', this.contractId).where('transaction_id', '=', transactionId);
      return 'cancelled' in what
        ? q.set({ state: 'cancelled', updated_at: at }).where('state', '!=', 'cancelled').execute()
        : q.set({ captured_amount: what.captured, captured_at: what.at ?? at, updated_at: at }).where('captured_at', 'is', null).execute();
    };
    if (trx) {
      await write(trx);
      return;
    }
    const row = await this.db.kysely.selectFrom('monext_authorizations').select(['state', 'captured_at'])
      .where('contract_id', '=', this.contractId).where('transaction_id', '=', transactionId).executeTakeFirst();
    if (!row || ('cancelled' in what ? row.state === 'cancelled' : row.captured_at !== null)) return;
    await this.db.singleWrite(write);
  }

  /**
   * The attempts as Monext answered them to Motu, for a payment's detail: from the connector's rows, without a call.
   * An attempt whose outcome Motu has not heard yet (a widget session not read, an answer lost) is read from Monext;
   * when Monext cannot answer it is left out rather than failing the read.
   */
  async listAttempts(mode: Mode, merchantReference: string, read?: AttemptRow[]): Promise<AuthorizationView[]> {
    const rows = read ?? await attemptRows(this.db, mode, merchantReference, this.contractId);
    const out: AuthorizationView[] = [];
    for (const row of rows) {
      if (row.card !== null && row.transaction_id !== null && !row.transaction_id.startsWith('wallet:')) {
        out.push(attemptOf(`${this.contractId}.${row.transaction_id}`, row));
        continue;
      }
      try {
        const view = await this.readAttempt(mode, row);
        if (view) out.push(view);
      } catch (err) {
        if (!(err instanceof AppError)) throw err; // MonextUnavailable, or Monext refusing the read
      }
    }
    return out;
  }

  private rowsOf(mode: Mode, merchantReference: string) {
    return this.db.kysely.selectFrom('monext_authorizations').selectAll()
      .where('merchant_reference', '=', merchantReference).where('contract_id', '=', this.contractId).where('mode', '=', mode)
      .orderBy('created_at').orderBy('id').execute();
  }

  /** One attempt as Monext has it now (calls); null when Monext holds no transaction for it. */
  private async readAttempt(mode: Mode, row: WidgetRow): Promise<AuthorizationView | null> {
    let transactionId = row.transaction_id && !row.transaction_id.startsWith('wallet:') ? row.transaction_id : null;
    if (!transactionId && row.kind === 'session') {
      const read = await this.readSession(row.reference).catch(() => null);
      if (read && (read.kind === 'authorized' || read.kind === 'refused')) transactionId = read.transactionId;
    }
    if (!transactionId) return null;
    return this.getAuthorization(mode, `${this.contractId}.${transactionId}`);
  }

  /** Every attempt as Monext has it now (a call or two each): what recovery decides on. */
  async listAuthorizations(mode: Mode, merchantReference: string): Promise<AuthorizationView[]> {
    const out: AuthorizationView[] = [];
    for (const row of await this.rowsOf(mode, merchantReference)) {
      const view = await this.readAttempt(mode, row);
      if (view) out.push(view);
    }
    return out;
  }

  /**
   * Monext's REST API publishes no settlement report, so the connector makes one: each open authorization of this
   * contract is read back from Monext (GET transaction) until it shows a capture — made by Motu, by Monext's
   * automatic capture, or in Monext's back-office — and is reported settled once the remittance delay has passed
   * since Monext's capture date. Not yet captured ones are read again at most every `recheck` seconds (the delay,
   * at most 15 minutes); an authorization that ended without a capture (refused, cancelled, expired) is closed and
   * never read again. Lines reported after `from` are reported again (from what is kept, no call), so a run
   * interrupted before its cursor moved loses nothing; Motu settles a payment once.
   */
  async settlementReport(input: { mode: Mode; from: Date; to: Date }): Promise<SettlementLine[]> {
    const delay = this.clientOptions.settlementDelaySeconds ?? SETTLEMENT_DELAY_SECONDS;
    const recheck = Math.min(delay, 900);
    const to = iso(input.to);
    const lines: SettlementLine[] = [];
    const line = (row: { transaction_id: string | null; merchant_reference: string; captured_amount: number | null; currency: string; captured_at: string | null }): SettlementLine => ({
      authorizationId: `${this.contractId}.${row.transaction_id}`, merchantReference: row.merchant_reference, capturedAmount: row.captured_amount!,
      currency: row.currency, capturedAt: row.captured_at!, settledAt: iso(addSeconds(new Date(row.captured_at!), delay)),
    });
    const base = () => this.db.kysely.selectFrom('monext_authorizations').selectAll()
      .where('contract_id', '=', this.contractId).where('mode', '=', input.mode);
    // Reported by a run whose cursor did not move.
    for (const row of await base().where('settled_at', '>', iso(input.from)).where('settled_at', '<=', to).where('captured_amount', '>', 0).execute()) {
      lines.push(line(row));
    }
    const open = await base().where('settled_at', 'is', null).where('amount', '>', 0)
      .where('state', 'in', ['answered', 'authorized'])
      .where('transaction_id', 'is not', null).where('transaction_id', 'not like', 'wallet:%')
      .where('created_at', '>=', iso(addSeconds(input.to, -SETTLEMENT_LOOKBACK_SECONDS)))
      .where('created_at', '<=', iso(addSeconds(input.to, -delay)))
      .where((eb) => eb.or([
        // A capture already seen is read again only once it is due: nothing to ask Monext, nothing to write before.
        eb('captured_at', '<=', iso(addSeconds(input.to, -delay))),
        eb.and([eb('captured_at', 'is', null), eb('checked_at', 'is', null)]),
        eb.and([eb('captured_at', 'is', null), eb('checked_at', '<=', iso(addSeconds(input.to, -recheck)))]),
      ]))
      .orderBy('created_at').limit(SETTLEMENT_BATCH).execute();
    for (const row of open) {
      let { captured_amount: capturedAmount, captured_at: capturedAt } = row;
      let closed = false;
      if (capturedAt === null) {
        // Monext not answering for one authorization leaves it for the next run; the others are reported now (their
        // rows are marked as reported, so a line dropped here would never come back).
        let details: TransactionDetails | null;
        try {
          details = await this.transactionDetails(row.transaction_id!);
        } catch (err) {
          if (err instanceof MonextUnavailable) continue;
          throw err;
        }
        const capture = details ? captureOf(details) : null;
        if (capture) ({ amount: capturedAmount, at: capturedAt } = capture);
        // Refused, cancelled, or an authorization past its life (Monext's are valid 7 days) that was never captured.
        else closed = !details || details.result.title !== 'ACCEPTED'
          || details.associated.some((t) => t.type === 'CANCEL_AUTHORIZATION' && t.status === 'OK')
          || Date.parse(row.created_at) < input.to.getTime() - AUTHORIZATION_LIFE_SECONDS * 1000;
      }
      const due = capturedAt !== null && Date.parse(capturedAt) + delay * 1000 <= input.to.getTime();
      await this.db.kysely.updateTable('monext_authorizations').set({
        captured_amount: closed ? 0 : capturedAmount, captured_at: capturedAt, checked_at: to, settled_at: due || closed ? to : null,
      }).where('id', '=', row.id).execute();
      if (due) lines.push(line({ ...row, captured_amount: capturedAmount, captured_at: capturedAt }));
    }
    return lines;
  }

  /** Chargebacks come from Monext's dispute files, not its REST API (docs/live.md). */
  async disputeNotices(_input: { mode: Mode; from: Date; to: Date }): Promise<DisputeNotice[]> {
    return [];
  }

  private sessionRow(mode: Mode, token: string) {
    return this.db.kysely.selectFrom('monext_authorizations').selectAll()
      .where('contract_id', '=', this.contractId).where('reference', '=', token).where('kind', '=', 'session').where('mode', '=', mode)
      .executeTakeFirst();
  }

  private async readSession(token: string): Promise<SessionRead> {
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(token)) return { kind: 'cancelled' };
    const answer = await this.client.call('GET', `/v1/checkout/payments/sessions/${encodeURIComponent(token)}`);
    if (answer.kind === 'rejected') {
      if (answer.status === 404 || answer.code === '02304' || answer.code === '02324') return { kind: 'cancelled' };
      throw rejectedError(answer);
    }
    const result = resultOf(answer.body);
    if (!result) throw new MonextUnavailable('a session without its result');
    const transactions = Array.isArray(answer.body.transactions) ? answer.body.transactions as Record<string, unknown>[] : [];
    const last = transactions.at(-1);
    const card = last ? cardOf(last.paymentInstrumentData) : null;
    const redirectUrl = typeof answer.body.redirectURL === 'string' ? answer.body.redirectURL : null;
    if (PENDING_TITLES.has(result.title)) return { kind: 'pending', card, redirectUrl };
    if (result.title === 'CANCELLED' || result.code === BUYER_CANCELLED) return { kind: 'cancelled' };
    const transactionId = typeof last?.id === 'string' && last.id !== '' ? last.id : null;
    if (result.title === 'ACCEPTED') {
      if (!transactionId) throw new MonextUnavailable('an accepted session without its transaction');
      const partner = last!.partnerReturnedData as Record<string, unknown> | undefined;
      return {
        kind: 'authorized', transactionId, card, captured: last!.type === 'AUTHORIZATION_AND_CAPTURE',
        issuerTransactionId: typeof partner?.issuerTransactionId === 'string' ? partner.issuerTransactionId : null,
      };
    }
    if (result.title === 'REFUSED' || result.title === 'ERROR') {
      if (!transactionId) return { kind: 'cancelled' };
      return { kind: 'refused', transactionId, card, refusalCode: refusalOf(result.code, result.title) };
    }
    throw new MonextUnavailable('an unknown session status');
  }

  private async transactionDetails(transactionId: string): Promise<TransactionDetails | null> {
    const answer = await this.client.call('GET', `/v1/checkout/transactions/${encodeURIComponent(transactionId)}`);
    if (answer.kind === 'rejected') {
      if (answer.status === 404) return null;
      throw rejectedError(answer);
    }
    const transaction = answer.body.transaction as Record<string, unknown> | undefined;
    const result = resultOf(answer.body);
    if (!transaction || typeof transaction !== 'object' || !result) throw new MonextUnavailable('a transaction without its details');
    const associated = (Array.isArray(answer.body.associatedTransactions) ? answer.body.associatedTransactions : [])
      .filter((t): t is Record<string, unknown> => t !== null && typeof t === 'object')
      .map((t) => ({ id: String(t.id ?? ''), type: String(t.type ?? ''), status: String(t.status ?? ''), amount: Number(t.amount ?? 0), date: String(t.date ?? '') }));
    if (associated.some((t) => !Number.isInteger(t.amount) || t.amount < 0)) throw new MonextUnavailable('an associated transaction with an unreadable amount');
    const order = answer.body.order as Record<string, unknown> | undefined;
    const amount = Number(transaction.authorizedAmount ?? transaction.requestedAmount ?? order?.amount);
    if (!Number.isInteger(amount)) throw new MonextUnavailable('a transaction without its amount');
    if (!['ACCEPTED', 'REFUSED', 'ERROR'].includes(result.title)) throw new MonextUnavailable('a transaction with an unknown status');
    return {
      id: transactionId, type: String(transaction.type ?? ''), amount, currency: String(transaction.currency ?? order?.currency ?? ''),
      date: String(transaction.date ?? ''), orderReference: String(order?.reference ?? ''), result, associated,
      card: cardOf(transaction.paymentInstrumentData),
    };
  }
}

/** A widget session's row (monext_authorizations, kind 'session'). */
export type WidgetRow = Selectable<MonextAuthorizationsTable>;
/** An attempt's row with what was refunded of it (monext_refunds succeeded). */
export type AttemptRow = WidgetRow & { refunded: number };

/** The attempts kept for a merchant reference (of one contract, or all), oldest first, each with its refunds' sum: one query. */
export async function attemptRows(db: Database, mode: Mode, merchantReference: string, contractId?: string): Promise<AttemptRow[]> {
  let q = db.kysely.selectFrom('monext_authorizations as a').selectAll('a')
    .select((eb) => eb.selectFrom('monext_refunds as r').select((r) => r.fn.sum<number | string>('r.amount').as('sum'))
      .where('r.authorization_id', '=', sql<string>`a.contract_id || '.' || a.transaction_id`).where('r.status', '=', 'succeeded').as('refunded'))
    .where('a.merchant_reference', '=', merchantReference).where('a.mode', '=', mode);
  if (contractId) q = q.where('a.contract_id', '=', contractId);
  const rows = await q.orderBy('a.created_at').orderBy('a.id').execute();
  return rows.map((row) => ({ ...row, refunded: Number(row.refunded ?? 0) }));
}

type SessionRead =
  | { kind: 'pending'; card: CardInfo | null; redirectUrl: string | null }
  | { kind: 'cancelled' }
  | { kind: 'authorized'; transactionId: string; card: CardInfo | null; captured: boolean; issuerTransactionId: string | null }
  | { kind: 'refused'; transactionId: string; card: CardInfo | null; refusalCode: import('../acquirer.js').RefusalCode };

interface TransactionDetails {
  id: string;
  type: string;
  amount: number;
  currency: string;
  date: string;
  orderReference: string;
  result: { title: string; code: string };
  associated: { id: string; type: string; status: string; amount: number; date: string }[];
  card: CardInfo | null;
}

/** The capture Monext's transaction shows: at once (authorization and capture) or its captures' sum, at the first one's date. */
function captureOf(d: TransactionDetails): { amount: number; at: string } | null {
  if (d.result.title !== 'ACCEPTED') return null;
  const stamp = (date: string) => (Number.isNaN(Date.parse(date)) ? null : new Date(date).toISOString());
  if (d.type === 'AUTHORIZATION_AND_CAPTURE') {
    const at = stamp(d.date);
    return at && d.amount > 0 ? { amount: d.amount, at } : null;
  }
  const captures = d.associated.filter((t) => t.type === 'CAPTURE' && t.status === 'OK');
  const amount = captures.reduce((sum, t) => sum + t.amount, 0);
  const at = captures.map((t) => stamp(t.date)).find((x) => x !== null) ?? null;
  return amount > 0 && at ? { amount, at } : null;
}

function viewOf(authorizationId: string, d: TransactionDetails, _mode: Mode): AuthorizationView {
  const ok = (type: string) => d.associated.filter((t) => t.type === type && t.status === 'OK');
  const captures = ok('CAPTURE');
  const capturedAtOnce = d.type === 'AUTHORIZATION_AND_CAPTURE' && d.result.title === 'ACCEPTED';
  const capturedAmount = capturedAtOnce ? d.amount : captures.reduce((sum, t) => sum + t.amount, 0);
  const refundedAmount = ok('REFUND').reduce((sum, t) => sum + t.amount, 0);
  let status: AuthorizationView['status'];
  if (d.result.title !== 'ACCEPTED') status = 'refused';
  else if (ok('CANCEL_AUTHORIZATION').length > 0 || ok('RESET').length > 0) status = 'cancelled';
  else if (capturedAmount > 0) status = 'captured';
  else status = 'authorized';
  return {
    id: authorizationId, merchantReference: d.orderReference, status, amount: d.amount, currency: d.currency,
    capturedAmount, refundedAmount, card: d.card ?? unknownCard(),
    refusalCode: status === 'refused' ? refusalOf(d.result.code, d.result.title) : null,
    createdAt: normalDate(d.date), capturedAt: capturedAtOnce ? normalDate(d.date) : captures[0] ? normalDate(captures[0].date) : null,
  };
}

/** An attempt from what Monext answered Motu (its row), as viewOf would show Monext's record of it. */
function attemptOf(id: string, row: AttemptRow): AuthorizationView {
  const card = parseCard(row.card) ?? unknownCard();
  const capturedAmount = row.captured_at ? row.captured_amount ?? 0 : 0;
  const status: AuthorizationView['status'] = row.state === 'refused' ? 'refused' : row.state === 'cancelled' ? 'cancelled' : capturedAmount > 0 ? 'captured' : 'authorized';
  return {
    id, merchantReference: row.merchant_reference, status, amount: row.amount, currency: row.currency, capturedAmount, refundedAmount: row.refunded, card,
    refusalCode: status === 'refused' ? (row.refusal_code as RefusalCode | null) ?? 'processing_error' : null,
    createdAt: row.created_at, capturedAt: capturedAmount > 0 ? row.captured_at : null,
  };
}

function parseCard(json: string | null): CardInfo | null {
  if (!json) return null;
  try {
    return JSON.parse(json) as CardInfo;
  } catch {
    return null;
  }
}

function outcomeOfView(view: AuthorizationView): AuthorizationOutcome {
  if (view.status === 'refused') {
    const code = view.refusalCode ?? 'processing_error';
    return { status: 'refused', authorizationId: view.id, card: view.card, refusalCode: code, refusalMessage: REFUSAL_MESSAGES[code] };
  }
  if (view.status === 'cancelled') return { status: 'error', code: 'INVALID_TOKEN', message: `Authorization ${view.id} was cancelled` };
  return { status: 'authorized', authorizationId: view.id, card: view.card, captured: view.status === 'captured' };
}

function normalDate(value: string): string {
  const t = Date.parse(value);
  return Number.isNaN(t) ? new Date(0).toISOString() : new Date(t).toISOString();
}

/** `<contract>.<transaction>` or `<contract>.s.<session token>` (a widget session not finished yet). */
export function splitAuthorizationId(id: string): { contractId: string; transaction?: string; session?: string } | null {
  const m = /^(mcf_[A-Za-z0-9]+)\.(?:s\.([A-Za-z0-9_-]+)|([A-Za-z0-9_-]+))$/.exec(id);
  if (!m) return null;
  return m[2] ? { contractId: m[1]!, session: m[2] } : { contractId: m[1]!, transaction: m[3]! };
}

function brandOf(masked: string, code: string): CardBrand {
  if (code === 'VISA' || masked.startsWith('4')) return 'VISA';
  if (code === 'MASTERCARD' || /^(5[1-5]|2[2-7])/.test(masked)) return 'MASTERCARD';
  if (code === 'AMEX' || /^3[47]/.test(masked)) return 'AMEX';
  return 'UNKNOWN';
}

/** What Monext tells of the card (paymentInstrumentData): never the number, a masked one and Monext's mxToken. */
function cardOf(raw: unknown): CardInfo | null {
  if (!raw || typeof raw !== 'object') return null;
  const d = raw as Record<string, unknown>;
  const masked = typeof d.maskedNumber === 'string' ? d.maskedNumber : '';
  const network = String(d.selectedNetwork ?? d.network ?? (d.paymentInstrumentType as Record<string, unknown> | undefined)?.code ?? '').toUpperCase();
  const brand = brandOf(masked, network);
  const own: CardNetwork | null = brand === 'UNKNOWN' ? null : brand;
  const networks: CardNetwork[] = network === 'CB' ? ['CB', ...(own ? [own] : [])] : own ? [own] : ['VISA'];
  const exp = typeof d.expirationDate === 'string' && /^\d{4}$/.test(d.expirationDate) ? d.expirationDate : '';
  const last = masked.slice(-4).replace(/[^0-9]/g, '•');
  const token = typeof d.mxToken === 'string' ? d.mxToken : masked;
  return {
    brand, network: network === 'CB' ? 'CB' : networks[0]!, networks, last4: last.length === 4 ? last : '••••',
    expMonth: exp ? Number(exp.slice(0, 2)) : 1, expYear: exp ? 2000 + Number(exp.slice(2)) : 2000,
    fingerprint: createHash('sha256').update(`monext:${token}`).digest('base64url').slice(0, 22),
  };
}

function unknownCard(): CardInfo {
  return { brand: 'UNKNOWN', network: 'VISA', networks: ['VISA'], last4: '••••', expMonth: 1, expYear: 2000, fingerprint: 'monext-unknown' };
}

/** A saved card: the contract, Monext's wallet, the issuer's transaction id of the first payment, and the card's facts. */
function cardRefOf(contractId: string, walletId: string, issuerTransactionId: string, card: CardInfo): string {
  const facts = Buffer.from(JSON.stringify([card.brand, card.network, card.networks, card.last4, card.expMonth, card.expYear, card.fingerprint])).toString('base64url');
  return `mx1.${contractId}.${walletId}.${issuerTransactionId.replace(/[^A-Za-z0-9_-]/g, '')}.${facts}`;
}

function parseCardRef(ref: string): { contractId: string; walletId: string; issuerTransactionId: string | null; card: CardInfo } | null {
  const parts = ref.split('.');
  if (parts.length !== 5 || parts[0] !== 'mx1') return null;
  try {
    const [brand, network, networks, last4, expMonth, expYear, fingerprint] = JSON.parse(Buffer.from(parts[4]!, 'base64url').toString('utf8')) as [CardBrand, CardNetwork, CardNetwork[], string, number, number, string];
    return {
      contractId: parts[1]!, walletId: parts[2]!, issuerTransactionId: parts[3] || null,
      card: { brand, network, networks, last4, expMonth, expYear, fingerprint },
    };
  } catch {
    return null;
  }
}

function rejectedError(answer: Extract<MonextAnswer, { kind: 'rejected' }>): AppError {
  if (answer.status === 401 || answer.status === 403) {
    return new AppError('ACQUIRER_NOT_CONFIGURED', "Monext refused this contract's credentials: check the merchant id and access key (motu contracts update)");
  }
  return new AppError('SERVICE_UNAVAILABLE', `Monext refused the request: ${answer.title}${answer.code ? ` (${answer.code})` : ''}`);
}

