// Widget sessions: Monext's widget takes the card (the three fields, the CB choice of a co-badged card, 3-D Secure) and
// authorizes on its own; Motu creates the session (POST /v1/checkout/payments/sessions), keeps its row, then reads its
// outcome back from the token (monext.outcomes.ts) when the page, Monext's return or its notification brings it.
import { sql, type Insertable, type Kysely } from 'kysely';
import { compiledQuery } from '../../db/compiled.js';
import type { DB } from '../../db/schema.js';
import type { Mode } from '../../modules/merchants/merchants.table.js';
import { iso } from '../../shared/clock.js';
import type { AuthorizationOutcome, Keep, KeepOnce, VerifyOutcome } from '../acquirer.js';
import { REFUSAL_MESSAGES } from '../acquirer.js';
import { MonextUnavailable } from './monext.client.js';
import { MONEXT_WIDGET_URLS } from './monext.config.js';
import { genId, type MonextContext, type WidgetRow } from './monext.context.js';
import { cardRefOf, readSession, rejectedError, unknownCard, type SessionRead } from './monext.outcomes.js';
import type { MonextAuthorizationsTable } from './monext.table.js';

// Compiled once (src/db/compiled.ts): every live payment writes its widget session's row, reads it back and records
// its outcome on it; Kysely's building and compiling of each cost Motu more CPU than the database takes to run them.
const insertWidgetRow = compiledQuery((db, p: Insertable<MonextAuthorizationsTable>) => db.insertInto('monext_authorizations').values({
  id: p.id, contract_id: p.contract_id, mode: p.mode, merchant_reference: p.merchant_reference, reference: p.reference, kind: p.kind,
  amount: p.amount, currency: p.currency, transaction_id: p.transaction_id, wallet_id: p.wallet_id, state: p.state, created_at: p.created_at,
  updated_at: p.updated_at, redirect_url: p.redirect_url,
}));
const widgetRow = compiledQuery((db, p: { contractId: string; token: string; mode: Mode }) => db.selectFrom('monext_authorizations').selectAll()
  .where('contract_id', '=', p.contractId).where('reference', '=', p.token).where('kind', '=', 'session').where('mode', '=', p.mode));
const widgetRowOfAnyContract = compiledQuery((db, p: { token: string; mode: Mode }) => db.selectFrom('monext_authorizations').selectAll()
  .where('reference', '=', p.token).where('kind', '=', 'session').where('mode', '=', p.mode));
/** keepOutcome's update: a refusal or an authorization to capture later; `capturedAtOnce`: one Monext captured as it authorized. */
type Outcome = { contractId: string; token: string; transactionId: string; state: string; at: string; card: string; refusalCode: string | null };
const keepOutcomeRow = compiledQuery((db, p: Outcome) => db.updateTable('monext_authorizations').set({
  transaction_id: p.transactionId, state: p.state, updated_at: p.at, card: p.card, refusal_code: p.refusalCode,
}).where('contract_id', '=', p.contractId).where('reference', '=', p.token).where('state', '=', 'created'));
const keepOutcomeCapturedRow = compiledQuery((db, p: Outcome) => db.updateTable('monext_authorizations').set({
  transaction_id: p.transactionId, state: p.state, updated_at: p.at, card: p.card, refusal_code: p.refusalCode,
  captured_amount: sql<number>`amount`, captured_at: p.at,
}).where('contract_id', '=', p.contractId).where('reference', '=', p.token).where('state', '=', 'created'));

export interface CardEntryInput {
  mode: Mode;
  /** Motu's payment id (a payment) or wallet session id (a card registration): the order reference at Monext. */
  merchantReference: string;
  /** 0 for a card registration (a verification of the card, nothing charged). */
  amount: number;
  currency: string;
  /** Where Monext sends the browser back (with `paylinetoken`), and where it notifies. */
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

/**
 * The session Monext is asked for. A card registration is an ACCOUNT_VERIFICATION at zero amount: the card is checked
 * (and 3-D Secure asked for, the stored credential's first, customer-present transaction) without being charged;
 * Monext refuses a zero-amount ONE_OFF.
 */
export function sessionBody(ctx: MonextContext, input: CardEntryInput, walletId: string | undefined) {
  const verification = input.amount === 0;
  return {
    pointOfSaleReference: ctx.credentials.pointOfSaleReference,
    paymentMethod: { paymentMethodIDs: [ctx.credentials.contractNumber] },
    order: { reference: input.merchantReference, amount: input.amount, currency: input.currency, origin: 'E_COM' },
    payment: {
      paymentType: verification ? 'ACCOUNT_VERIFICATION' : 'ONE_OFF', capture: 'MANUAL',
      ...(input.statementLabel && !verification ? { softDescriptor: input.statementLabel } : {}),
    },
    ...(walletId ? { walletId } : {}),
    ...(input.email ? { buyer: { email: input.email } } : {}),
    threeDS: { challengeInd: verification ? 'CHALLENGE_MANDATE' : 'NO_PREFERENCE' },
    privateData: { motuReference: input.merchantReference },
    returnURL: input.returnUrl,
    notificationURL: input.notificationUrl,
    languageCode: (input.languageCode ?? 'fr').slice(0, 2).toUpperCase(),
  };
}

/**
 * A widget session for one payment (amount > 0) or one card registration (amount 0, a new wallet). `along`: the
 * caller's write that goes with it (the session's card-token slot), in the transaction that keeps the widget's row;
 * when it throws, no row is kept and the widget session Monext made is never usable.
 */
export async function startCardEntry(ctx: MonextContext, input: CardEntryInput, along?: Keep): Promise<CardEntry> {
  const verification = input.amount === 0;
  const walletId = verification || input.saveAllowed ? genId('motu') : undefined;
  const answer = await ctx.client.call('POST', '/v1/checkout/payments/sessions', sessionBody(ctx, input, walletId));
  if (answer.kind === 'rejected') throw rejectedError(answer);
  const sessionId = answer.body.sessionId;
  if (typeof sessionId !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(sessionId)) throw new MonextUnavailable('a session without a usable sessionId');
  // Only the creation's answer carries the session's page (3-D Secure, the redirection mode): kept with the row.
  const redirectUrl = typeof answer.body.redirectURL === 'string' && /^https?:\/\//.test(answer.body.redirectURL) ? answer.body.redirectURL : null;
  const now = iso(ctx.clock.now());
  // Database.singleWrite: one transaction of the group commit on SQLite; on PostgreSQL the two statements in order, no
  // transaction (two round trips instead of four): they need no atomicity, a slot taken without its row is only a
  // slot lost.
  await ctx.db.singleWrite(async (trx) => {
    await along?.(trx);
    await insertWidgetRow.run(trx, {
      id: genId('mxa'), contract_id: ctx.contractId, mode: input.mode, merchant_reference: input.merchantReference, reference: sessionId,
      kind: 'session', amount: input.amount, currency: input.currency, transaction_id: verification ? `wallet:${walletId}` : null,
      wallet_id: walletId ?? null, state: 'created', created_at: now, updated_at: now, redirect_url: redirectUrl,
    });
  });
  const override = ctx.clientOptions.widgetUrl?.replace(/\/+$/, '');
  const widget = override
    ? { script: `${override}/cdn/scripts/widget-min.js`, style: `${override}/cdn/styles/widget-min.css` }
    : MONEXT_WIDGET_URLS[ctx.credentials.environment];
  return { token: sessionId, redirectUrl, scriptUrl: widget.script, styleUrl: widget.style };
}

export function sessionRow(ctx: MonextContext, mode: Mode, token: string): Promise<WidgetRow | undefined> {
  return widgetRow.executeTakeFirst(ctx.db.kysely, { contractId: ctx.contractId, token, mode });
}

/** A widget session's row, whichever contract made it (the live router finds the contract from it). */
export function sessionRowOfAnyContract(q: Kysely<DB>, mode: Mode, token: string): Promise<WidgetRow | undefined> {
  return widgetRowOfAnyContract.executeTakeFirst(q, { token, mode });
}

/** A card registration's outcome: the card saved in the session's Monext wallet, or why not. */
export async function verifySession(ctx: MonextContext, mode: Mode, token: string, known?: WidgetRow): Promise<VerifyOutcome> {
  const row = known ?? await sessionRow(ctx, mode, token);
  if (!row || row.amount !== 0) return { status: 'error', code: 'INVALID_TOKEN', message: 'The Monext session is unknown or was not made for a card registration' };
  const walletId = row.wallet_id ?? (row.transaction_id?.startsWith('wallet:') ? row.transaction_id.slice('wallet:'.length) : null);
  const read = await readSession(ctx, token);
  if (read.kind === 'pending') return { status: 'error', code: 'INVALID_TOKEN', message: 'The card registration is not finished in the widget' };
  if (read.kind === 'cancelled') return { status: 'error', code: 'INVALID_TOKEN', message: "The cardholder left Monext's widget" };
  if (read.kind === 'rejected') {
    await markRejected(ctx, token);
    return { status: 'error', code: 'INVALID_TOKEN', message: `Monext refused to read the card registration: ${read.reason}` };
  }
  if (read.kind === 'refused') {
    return { status: 'refused', card: read.card, refusalCode: read.refusalCode, refusalMessage: REFUSAL_MESSAGES[read.refusalCode] };
  }
  if (!walletId || !read.card) throw new MonextUnavailable('a registration without its card');
  const issuer = read.issuerTransactionId ?? '';
  return { status: 'verified', cardRef: cardRefOf(ctx.contractId, walletId, issuer, read.card), card: read.card };
}

/**
 * A widget's outcome, read from its session (a repeated read answers the same). `saveIn`: the Monext wallet the widget
 * registered the card in, when the customer asked to save it (answers its cardRef). `row`: the session's row when the
 * caller has it (its page at Monext, for a 3-D Secure still under way).
 */
export async function sessionOutcome(ctx: MonextContext, token: string, saveIn: string | null = null, row?: WidgetRow): Promise<AuthorizationOutcome> {
  const read = await readSession(ctx, token);
  if (read.kind === 'pending') {
    const page = row ?? await ctx.db.kysely.selectFrom('monext_authorizations').selectAll()
      .where('contract_id', '=', ctx.contractId).where('reference', '=', token).where('kind', '=', 'session').executeTakeFirst();
    return {
      status: 'challenge', authorizationId: `${ctx.contractId}.s.${token}`, card: read.card ?? unknownCard(),
      challengeUrl: page?.redirect_url ?? '',
    };
  }
  if (read.kind === 'cancelled') return { status: 'error', code: 'INVALID_TOKEN', message: "The cardholder left Monext's widget (02319)" };
  if (read.kind === 'rejected') {
    await markRejected(ctx, token);
    return { status: 'error', code: 'INVALID_TOKEN', message: `Monext refused to read the widget's session: ${read.reason}` };
  }
  const authorizationId = `${ctx.contractId}.${read.transactionId}`;
  const at = iso(ctx.clock.now());
  const keep = keepOutcome(ctx, token, read, at);
  if (read.kind === 'refused') {
    return { status: 'refused', authorizationId, card: read.card, refusalCode: read.refusalCode, refusalMessage: REFUSAL_MESSAGES[read.refusalCode], keep };
  }
  const card = read.card ?? unknownCard();
  const cardRef = saveIn && read.card ? cardRefOf(ctx.contractId, saveIn, read.issuerTransactionId ?? '', read.card) : undefined;
  return { status: 'authorized', authorizationId, card, captured: read.captured, ...(cardRef ? { cardRef } : {}), keep };
}

/**
 * What Monext answered is kept with the attempt (the payment's detail lists it from there, no call), in the
 * transaction that records the outcome in Motu (KeepOnce), by the first caller only: the row leaves `created` once.
 * Unrecorded, the attempt is read from Monext again.
 */
function keepOutcome(ctx: MonextContext, token: string, read: Extract<SessionRead, { kind: 'authorized' | 'refused' }>, at: string): KeepOnce {
  const update = read.kind === 'authorized' && read.captured ? keepOutcomeCapturedRow : keepOutcomeRow;
  return update.bind(ctx.db.kysely, {
    contractId: ctx.contractId, token, transactionId: read.transactionId, state: read.kind, at, card: JSON.stringify(read.card ?? unknownCard()),
    refusalCode: read.kind === 'refused' ? read.refusalCode : null,
  });
}

/** Monext refused to read the session: its row leaves `created` (nothing authorized under it), once. */
async function markRejected(ctx: MonextContext, token: string): Promise<void> {
  await ctx.db.singleWrite((db) => db.updateTable('monext_authorizations').set({ state: 'rejected', updated_at: iso(ctx.clock.now()) })
    .where('contract_id', '=', ctx.contractId).where('reference', '=', token).where('state', '=', 'created').execute());
}
