// Reading outcomes: what Monext's answers say of a widget session (GET /v1/checkout/payments/sessions/{token}) and of a
// transaction (GET /v1/checkout/transactions/{id}), sorted into what Motu records, and the card as Monext describes it.
// The wire rules each function follows, and the public file behind each: docs/live.md, "The wire rules and where they
// come from" and "Which transaction of a session is read".
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { compiledQuery } from '../../db/compiled.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { Mode } from '../../modules/merchants/merchants.table.js';
import { AppError } from '../../shared/errors.js';
import type { AuthorizationOutcome, AuthorizationView, CardBrand, CardInfo, CardNetwork, RefusalCode } from '../acquirer.js';
import { REFUSAL_MESSAGES } from '../acquirer.js';
import { ABANDONED, BUYER_CANCELLED, isAuthentication, PENDING_TITLES, refusalOf } from './monext.codes.js';
import { MonextUnavailable, resultOf, type MonextAnswer } from './monext.client.js';
import type { AttemptRow, MonextContext } from './monext.context.js';

export type SessionRead =
  | { kind: 'pending'; card: CardInfo | null }
  /** No attempt was made (the buyer left, the session expired or was abandoned): nothing to record. */
  | { kind: 'cancelled' }
  /** Monext refused to read the session (a 4xx other than credentials or "no such session"): final, nothing authorized. */
  | { kind: 'rejected'; reason: string }
  | { kind: 'authorized'; transactionId: string; card: CardInfo | null; captured: boolean; issuerTransactionId: string | null }
  | { kind: 'refused'; transactionId: string; card: CardInfo | null; refusalCode: RefusalCode };

/** Transactions of a session that move money after the authorization: never the one the session's outcome is about. */
const FOLLOW_UPS = new Set(['CAPTURE', 'REFUND', 'CANCEL_AUTHORIZATION', 'RESET', 'CREDIT', 'CANCEL']);

/**
 * The transaction a session's outcome is about. Monext does not document the order of `transactions` (its plugins take
 * the first; a session whose cardholder retried after a refusal, or that lists a later capture, has several): the
 * authorization (not a capture, refund or cancel) with the latest date, whatever the order of the list.
 */
export function sessionTransaction(list: unknown): Record<string, unknown> | null {
  if (!Array.isArray(list)) return null;
  const candidates = list.filter((t): t is Record<string, unknown> => t !== null && typeof t === 'object' && !FOLLOW_UPS.has(String((t as Record<string, unknown>).type ?? '')));
  let best: Record<string, unknown> | null = null;
  let bestAt = -Infinity;
  for (const t of candidates) {
    const at = Date.parse(String(t.date ?? ''));
    const when = Number.isNaN(at) ? -Infinity : at;
    if (best === null || when > bestAt) {
      best = t;
      bestAt = when;
    }
  }
  return best;
}

/** A widget session as Monext has it now (one call). */
export async function readSession(ctx: MonextContext, token: string): Promise<SessionRead> {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(token)) return { kind: 'cancelled' };
  const answer = await ctx.client.call('GET', `/v1/checkout/payments/sessions/${encodeURIComponent(token)}`);
  if (answer.kind === 'rejected') {
    if (answer.status === 401 || answer.status === 403) throw rejectedError(answer);
    if (answer.status === 404 || (answer.code !== null && ABANDONED.has(answer.code))) return { kind: 'cancelled' };
    // Monext refused the read itself: a final answer (asking again gets the same), recorded as the widget's outcome
    // rather than a 503 that would fail the return page and make Monext notify again and again.
    return { kind: 'rejected', reason: `${answer.title}${answer.code ? ` (${answer.code})` : ''}` };
  }
  const result = resultOf(answer.body);
  if (!result) throw new MonextUnavailable('a session without its result');
  const chosen = sessionTransaction(answer.body.transactions);
  const card = chosen ? cardOf(chosen.paymentInstrumentData) : null;
  if (PENDING_TITLES.has(result.title)) return { kind: 'pending', card };
  // An abandoned or expired session answered 200 with its code: no attempt.
  if (ABANDONED.has(result.code)) return { kind: 'cancelled' };
  const transactionId = typeof chosen?.id === 'string' && chosen.id !== '' ? chosen.id : null;
  if (result.title === 'CANCELLED') {
    // Monext ends a failed 3-D Secure as CANCELLED (03xxx) with the transaction it attempted: a refusal. Without a
    // transaction, or with the buyer's own cancel (02319), nobody was charged: the buyer left.
    if (transactionId && result.code !== BUYER_CANCELLED && isAuthentication(result.code)) {
      return { kind: 'refused', transactionId, card, refusalCode: 'authentication_failed' };
    }
    return { kind: 'cancelled' };
  }
  if (result.code === BUYER_CANCELLED) return { kind: 'cancelled' };
  if (result.title === 'ACCEPTED') {
    if (!transactionId) throw new MonextUnavailable('an accepted session without its transaction');
    const partner = chosen!.partnerReturnedData as Record<string, unknown> | undefined;
    return {
      kind: 'authorized', transactionId, card, captured: chosen!.type === 'AUTHORIZATION_AND_CAPTURE',
      issuerTransactionId: typeof partner?.issuerTransactionId === 'string' ? partner.issuerTransactionId : null,
    };
  }
  if (result.title === 'REFUSED' || result.title === 'ERROR') {
    if (!transactionId) return { kind: 'cancelled' };
    return { kind: 'refused', transactionId, card, refusalCode: refusalOf(result.code, result.title) };
  }
  throw new MonextUnavailable('an unknown session status');
}

export interface TransactionDetails {
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

/** Titles a transaction ends with; CANCELLED is a 3-D Secure that failed (never authorized). */
const FINAL_TRANSACTION_TITLES = new Set(['ACCEPTED', 'REFUSED', 'ERROR', 'CANCELLED']);

/** Monext's record of a transaction (one call); null when Monext has none under this id. */
export async function transactionDetails(ctx: MonextContext, transactionId: string): Promise<TransactionDetails | null> {
  const answer = await ctx.client.call('GET', `/v1/checkout/transactions/${encodeURIComponent(transactionId)}`);
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
  if (!FINAL_TRANSACTION_TITLES.has(result.title)) throw new MonextUnavailable('a transaction with an unknown status');
  return {
    id: transactionId, type: String(transaction.type ?? ''), amount, currency: String(transaction.currency ?? order?.currency ?? ''),
    date: String(transaction.date ?? ''), orderReference: String(order?.reference ?? ''), result, associated,
    card: cardOf(transaction.paymentInstrumentData),
  };
}

/** The refusal a transaction that was not accepted means: a CANCELLED one is a failed 3-D Secure. */
export function transactionRefusal(result: { title: string; code: string }): RefusalCode {
  return result.title === 'CANCELLED' ? 'authentication_failed' : refusalOf(result.code, result.title);
}

export function viewOf(authorizationId: string, d: TransactionDetails): AuthorizationView {
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
    refusalCode: status === 'refused' ? transactionRefusal(d.result) : null,
    createdAt: normalDate(d.date), capturedAt: capturedAtOnce ? normalDate(d.date) : captures[0] ? normalDate(captures[0].date) : null,
  };
}

/** An attempt from what Monext answered Motu (its row), as viewOf would show Monext's record of it. */
export function attemptOf(id: string, row: AttemptRow): AuthorizationView {
  const card = parseCard(row.card) ?? unknownCard();
  const capturedAmount = row.captured_at ? row.captured_amount ?? 0 : 0;
  const status: AuthorizationView['status'] = row.state === 'refused' ? 'refused' : row.state === 'cancelled' ? 'cancelled' : capturedAmount > 0 ? 'captured' : 'authorized';
  return {
    id, merchantReference: row.merchant_reference, status, amount: row.amount, currency: row.currency, capturedAmount, refundedAmount: row.refunded, card,
    refusalCode: status === 'refused' ? (row.refusal_code as RefusalCode | null) ?? 'processing_error' : null,
    createdAt: row.created_at, capturedAt: capturedAmount > 0 ? row.captured_at : null,
  };
}

const attempts = (db: Kysely<DB>, p: { merchantReference: string; mode: Mode }) => db.selectFrom('monext_authorizations as a').selectAll('a')
  .select((eb) => eb.selectFrom('monext_refunds as r').select((r) => r.fn.sum<number | string>('r.amount').as('sum'))
    .where('r.authorization_id', '=', sql<string>`a.contract_id || '.' || a.transaction_id`).where('r.status', '=', 'succeeded').as('refunded'))
  .where('a.merchant_reference', '=', p.merchantReference).where('a.mode', '=', p.mode);
// Compiled once (src/db/compiled.ts): every live capture's answer (the payment's detail) reads them.
const attemptsOfAll = compiledQuery((db, p: { merchantReference: string; mode: Mode }) => attempts(db, p).orderBy('a.created_at').orderBy('a.id'));
const attemptsOfContract = compiledQuery((db, p: { merchantReference: string; mode: Mode; contractId: string }) => attempts(db, p)
  .where('a.contract_id', '=', p.contractId).orderBy('a.created_at').orderBy('a.id'));

/** The attempts kept for a merchant reference (of one contract, or all), oldest first, each with its refunds' sum: one query. */
export async function attemptRows(db: Database, mode: Mode, merchantReference: string, contractId?: string): Promise<AttemptRow[]> {
  const rows = contractId
    ? await attemptsOfContract.execute(db.kysely, { merchantReference, mode, contractId })
    : await attemptsOfAll.execute(db.kysely, { merchantReference, mode });
  return rows.map((row) => ({ ...row, refunded: Number(row.refunded ?? 0) }));
}

export function parseCard(json: string | null): CardInfo | null {
  if (!json) return null;
  try {
    return JSON.parse(json) as CardInfo;
  } catch {
    return null;
  }
}

export function outcomeOfView(view: AuthorizationView): AuthorizationOutcome {
  if (view.status === 'refused') {
    const code = view.refusalCode ?? 'processing_error';
    return { status: 'refused', authorizationId: view.id, card: view.card, refusalCode: code, refusalMessage: REFUSAL_MESSAGES[code] };
  }
  if (view.status === 'cancelled') return { status: 'error', code: 'INVALID_TOKEN', message: `Authorization ${view.id} was cancelled` };
  return { status: 'authorized', authorizationId: view.id, card: view.card, captured: view.status === 'captured' };
}

export function normalDate(value: string): string {
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

/**
 * The last digits a masked number shows, at most four, the others as "•". Monext masks all but the BIN and the last
 * two digits (`453257XXXXXXXX17`): such a card shows "••17"; no digit is ever made up.
 */
export function visibleLast4(masked: string): string {
  const digits = /(\d{0,4})$/.exec(masked)?.[1] ?? '';
  return '•'.repeat(4 - digits.length) + digits;
}

/** What Monext tells of the card (paymentInstrumentData): never the number, a masked one and Monext's mxToken. */
export function cardOf(raw: unknown): CardInfo | null {
  if (!raw || typeof raw !== 'object') return null;
  const d = raw as Record<string, unknown>;
  const masked = typeof d.maskedNumber === 'string' ? d.maskedNumber : '';
  const network = String(d.selectedNetwork ?? d.network ?? (d.paymentInstrumentType as Record<string, unknown> | undefined)?.code ?? '').toUpperCase();
  const brand = brandOf(masked, network);
  const own: CardNetwork | null = brand === 'UNKNOWN' ? null : brand;
  const networks: CardNetwork[] = network === 'CB' ? ['CB', ...(own ? [own] : [])] : own ? [own] : ['VISA'];
  const exp = typeof d.expirationDate === 'string' && /^\d{4}$/.test(d.expirationDate) ? d.expirationDate : '';
  const token = typeof d.mxToken === 'string' ? d.mxToken : masked;
  return {
    brand, network: network === 'CB' ? 'CB' : networks[0]!, networks, last4: visibleLast4(masked),
    expMonth: exp ? Number(exp.slice(0, 2)) : 1, expYear: exp ? 2000 + Number(exp.slice(2)) : 2000,
    fingerprint: createHash('sha256').update(`monext:${token}`).digest('base64url').slice(0, 22),
  };
}

export function unknownCard(): CardInfo {
  return { brand: 'UNKNOWN', network: 'VISA', networks: ['VISA'], last4: '••••', expMonth: 1, expYear: 2000, fingerprint: 'monext-unknown' };
}

/** A saved card: the contract, Monext's wallet, the issuer's transaction id of the first payment, and the card's facts. */
export function cardRefOf(contractId: string, walletId: string, issuerTransactionId: string, card: CardInfo): string {
  const facts = Buffer.from(JSON.stringify([card.brand, card.network, card.networks, card.last4, card.expMonth, card.expYear, card.fingerprint])).toString('base64url');
  return `mx1.${contractId}.${walletId}.${issuerTransactionId.replace(/[^A-Za-z0-9_-]/g, '')}.${facts}`;
}

export function parseCardRef(ref: string): { contractId: string; walletId: string; issuerTransactionId: string | null; card: CardInfo } | null {
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

export function rejectedError(answer: Extract<MonextAnswer, { kind: 'rejected' }>): AppError {
  if (answer.status === 401 || answer.status === 403) {
    return new AppError('ACQUIRER_NOT_CONFIGURED', "Monext refused this contract's credentials: check the merchant id and access key (motu contracts update)");
  }
  return new AppError('SERVICE_UNAVAILABLE', `Monext refused the request: ${answer.title}${answer.code ? ` (${answer.code})` : ''}`);
}
