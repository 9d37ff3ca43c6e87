// What a live acquirer's widget needs from a Motu session (a payment session or a card registration), and what
// happens when the widget is done. The acquirer's routes get these as functions (it knows nothing of sessions).
import type { Database } from '../../db/database.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { WalletSessionsService } from '../wallet/wallet-sessions.service.js';
import type { CheckoutService } from './checkout.service.js';

export interface CardEntrySession {
  kind: 'payment' | 'wallet';
  merchantId: string;
  mode: Mode;
  /** The payment's contract; a card registration's is the merchant's active default contract. */
  contractId: string;
  /** The payment's id, or the wallet session's id: Monext's order reference. */
  merchantReference: string;
  amount: number;
  currency: string;
  languageCode: string;
  email: string | null;
  statementLabel: string | null;
}

/** The open session a widget may be started for; null when it is unknown or no longer takes a card. */
export async function cardEntrySession(db: Database, sessionId: string): Promise<CardEntrySession | null> {
  const s = await db.kysely.selectFrom('payment_sessions').selectAll().where('id', '=', sessionId).executeTakeFirst();
  if (!s || s.status !== 'open') return null;
  if (s.kind === 'payment') {
    if (!s.payment_id) return null;
    const p = await db.kysely.selectFrom('payments').innerJoin('contracts', 'contracts.id', 'payments.contract_id')
      .select(['payments.id', 'payments.amount', 'payments.currency', 'payments.contract_id', 'payments.email', 'payments.status', 'contracts.statement_label'])
      .where('payments.id', '=', s.payment_id).executeTakeFirst();
    if (!p || (p.status !== 'pending' && p.status !== 'failed')) return null;
    return {
      kind: 'payment', merchantId: s.merchant_id, mode: s.mode, contractId: p.contract_id, merchantReference: p.id, amount: p.amount,
      currency: p.currency, languageCode: s.language_code, email: s.email ?? p.email, statementLabel: p.statement_label,
    };
  }
  const contract = await db.kysely.selectFrom('contracts').select(['id', 'statement_label'])
    .where('merchant_id', '=', s.merchant_id).where('is_default', '=', 1).where('active', '=', 1).executeTakeFirst();
  if (!contract) return null;
  return {
    kind: 'wallet', merchantId: s.merchant_id, mode: s.mode, contractId: contract.id, merchantReference: s.id, amount: 0,
    currency: 'EUR', languageCode: s.language_code, email: s.email, statementLabel: contract.statement_label,
  };
}

/**
 * The widget is done (Monext sent the browser back, or notified): the payment or the registration is finished from
 * the widget's token, as the pay and submit calls finish it. Answers where the browser goes next.
 */
export function cardEntryCompletion(checkout: CheckoutService, walletSessions: WalletSessionsService) {
  return async (sessionId: string, kind: 'payment' | 'wallet', token: string): Promise<string> => {
    if (kind === 'wallet') return (await walletSessions.register(sessionId, token)).redirectUrl;
    const next = await checkout.pay(sessionId, { token });
    return next.next === 'error' ? `/checkout/${encodeURIComponent(sessionId)}` : next.url;
  };
}
