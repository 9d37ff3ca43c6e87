// The card fields' token endpoint is anonymous: anyone may call it, and each call writes a card and a token. So
// every call names the payment or wallet session its fields are mounted for, and spends one of that session's
// MOTU_TOKENS_PER_SESSION tokens. Only a merchant's secret key makes sessions, so the rows an anonymous caller can
// write are bounded by the sessions the merchant made, on top of the per-address rate limit.
import type { Database } from '../../db/database.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';

/** Takes one token of the session's budget, or says why not (unknown, closed or spent session). */
export type TakeCardToken = (sessionId: string, mode: Mode) => Promise<void>;

export function cardTokenBudget(db: Database, clock: Clock, tokensPerSession: number): TakeCardToken {
  return async (sessionId, mode) => {
    const now = clock.now().toISOString();
    // One conditional increment: concurrent calls for one session can never pass the budget together.
    const taken = await db.kysely.updateTable('payment_sessions').set((eb) => ({ card_tokens: eb('card_tokens', '+', 1) }))
      .where('id', '=', sessionId).where('mode', '=', mode).where('status', '=', 'open').where('expires_at', '>', now)
      .where('card_tokens', '<', tokensPerSession)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 1) return;
    const session = await db.kysely.selectFrom('payment_sessions').select(['status', 'expires_at', 'card_tokens'])
      .where('id', '=', sessionId).where('mode', '=', mode).executeTakeFirst();
    if (!session) throw new AppError('NOT_FOUND', 'No session with this id', { field: 'session' });
    if (session.status !== 'open' || session.expires_at <= now) throw new AppError('SESSION_EXPIRED', 'This session is no longer active');
    throw new AppError('TOO_MANY_ATTEMPTS', 'Too many cards entered for this session; return to the merchant to start again', {
      maxTokens: tokensPerSession,
    });
  };
}
