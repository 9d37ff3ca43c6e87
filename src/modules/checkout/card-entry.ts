// What a live acquirer's widget needs from a Motu session (a payment session or a card registration), and what
// happens when the widget is done. The acquirer's routes get these as functions (it knows nothing of sessions).
import { compiledQuery } from '../../db/compiled.js';
import type { Database } from '../../db/database.js';
import type { WalletSessionsService } from '../wallet/wallet-sessions.service.js';
import type { CheckoutService } from './checkout.service.js';
import type { MonextSessionInfo } from '../../acquirer/monext/monext.routes.js';
import { AppError } from '../../shared/errors.js';
import type { TokenBudgetRow } from '../sessions/token-budget.js';

/** A Motu session as the acquirer's widget routes see it (their own type: the acquirer knows nothing of sessions). */
export type CardEntrySession = MonextSessionInfo;

// The session with its payment and the payment's contract, in one statement (a card registration has no payment);
// compiled once (src/db/compiled.ts): every live payment reads it to start its widget.
const sessionWithPayment = compiledQuery((db, p: { sessionId: string }) => db.selectFrom('payment_sessions as s')
  .leftJoin('payments as p', 'p.id', 's.payment_id').leftJoin('contracts as c', 'c.id', 'p.contract_id')
  .select([
    's.kind', 's.status', 's.merchant_id', 's.mode', 's.language_code', 's.email', 's.allow_save_payment_method', 's.expires_at',
    's.tokens_issued', 's.test_clock_id', 's.card_attempts', 'p.id as payment_id', 'p.amount', 'p.currency', 'p.contract_id',
    'p.email as payment_email', 'p.status as payment_status', 'c.statement_label',
  ])
  .where('s.id', '=', p.sessionId));

/**
 * The open session a widget may be started for; null when it is unknown or no longer takes a card. `finished`: also a
 * session that is over (Monext's return or notification of a widget finished late: its authorization is given back).
 */
export async function cardEntrySession(db: Database, sessionId: string, finished = false): Promise<CardEntrySession | null> {
  const s = await sessionWithPayment.executeTakeFirst(db.kysely, { sessionId });
  if (!s || (s.status !== 'open' && !finished)) return null;
  if (s.kind === 'payment') {
    if (!s.payment_id || !s.contract_id || s.amount === null || s.currency === null) return null;
    if (!finished && s.payment_status !== 'pending' && s.payment_status !== 'failed') return null;
    return {
      kind: 'payment', merchantId: s.merchant_id, mode: s.mode, contractId: s.contract_id, merchantReference: s.payment_id, amount: s.amount,
      currency: s.currency, languageCode: s.language_code, email: s.email ?? s.payment_email, statementLabel: s.statement_label,
      saveAllowed: s.allow_save_payment_method === 1, budget: s, cardAttempts: s.card_attempts,
    };
  }
  const contract = await db.kysely.selectFrom('contracts').select(['id', 'statement_label'])
    .where('merchant_id', '=', s.merchant_id).where('is_default', '=', 1).where('active', '=', 1).executeTakeFirst();
  if (!contract) return null;
  return {
    kind: 'wallet', merchantId: s.merchant_id, mode: s.mode, contractId: contract.id, merchantReference: sessionId, amount: 0,
    currency: 'EUR', languageCode: s.language_code, email: s.email, statementLabel: contract.statement_label, budget: s,
    cardAttempts: s.card_attempts,
  };
}

/**
 * What a widget may be started for, decided on the session as read: a card-token slot left (`tokenCheck`) and, for a
 * payment, a card attempt left. A widget authorizes on its own, so a payment out of attempts must not get one: its
 * authorization could only be given back.
 */
export function cardEntryCheck(checkout: CheckoutService, tokenCheck: (budget: TokenBudgetRow) => void) {
  return (session: CardEntrySession): void => {
    tokenCheck(session.budget);
    if (!checkout.hasCardAttemptLeft(session.cardAttempts)) throw checkout.tooManyAttempts();
  };
}

/**
 * The widget is done (Monext sent the browser back, or notified): the payment or the registration is finished from
 * the widget's token, as the pay and submit calls finish it. Answers where the browser goes next.
 */
export function cardEntryCompletion(checkout: CheckoutService, walletSessions: WalletSessionsService) {
  return async (sessionId: string, kind: 'payment' | 'wallet', token: string): Promise<string> => {
    // A card link refused with attempts left: back to its page, for another card.
    if (kind === 'wallet') return (await walletSessions.register(sessionId, token)).redirectUrl ?? `/wallet/${encodeURIComponent(sessionId)}`;
    try {
      const next = await checkout.pay(sessionId, { token });
      return next.next === 'error' ? `/checkout/${encodeURIComponent(sessionId)}` : next.url;
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'SESSION_EXPIRED' && err.code !== 'TOO_MANY_ATTEMPTS')) throw err;
      // The session no longer takes a card (expired, out of attempts): pay gave back what the widget authorized; the
      // session's page says how it ended.
      return `/checkout/${encodeURIComponent(sessionId)}`;
    }
  };
}
