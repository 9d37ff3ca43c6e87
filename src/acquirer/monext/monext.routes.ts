// The browser side of a live Monext contract: the hosted page (or the SDK component) asks for a widget session for
// its Motu session, mounts Monext's widget with the token (card number, expiry, security code, the CB choice of a
// co-badged card, 3-D Secure all happen there), then sends that token to the pay or submit call as it would a card
// token. Monext sends the browser back to /acquirer/v1/monext/return (its redirection mode) and notifies
// /acquirer/v1/monext/notify; both finish the session from the token, once (the transitions are conditional).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Mode } from '../../modules/merchants/merchants.table.js';
import { AppError } from '../../shared/errors.js';
import type { LiveRouter } from '../acquirers.js';
import type { TakeTokenSlot } from '../fields/fields.routes.js';
import type { TokenBudgetRow } from '../../modules/sessions/token-budget.js';

export interface MonextSessionInfo {
  kind: 'payment' | 'wallet';
  merchantId: string;
  mode: Mode;
  contractId: string;
  merchantReference: string;
  amount: number;
  currency: string;
  languageCode: string;
  email: string | null;
  statementLabel: string | null;
  /** A payment whose customer may save the card: its widget session registers the card in a Monext wallet too. */
  saveAllowed?: boolean;
  /** What the session's card-token budget is decided on (its row, as read). */
  budget: TokenBudgetRow;
  /** Cards already sent for a payment session (its card attempts; 0 for a card registration). */
  cardAttempts: number;
}

export interface MonextRouteDeps {
  publicUrl: string;
  /** `finished`: also a session that no longer takes a card (a late return or notification). */
  resolve(sessionId: string, finished?: boolean): Promise<MonextSessionInfo | null>;
  /**
   * Whether the session may start a widget, from its row as read (no query), before Monext is asked: a card-token slot
   * left (a widget session spends one, as a card token does; taken in the transaction that keeps the widget session's
   * row) and, for a payment, a card attempt left. Throws as the card fields would (410, 429 TOO_MANY_ATTEMPTS).
   */
  checkCardEntry(session: MonextSessionInfo): void;
  takeTokenSlot: TakeTokenSlot;
  /** Finishes the session from the widget's token; answers where the browser goes. */
  complete(sessionId: string, kind: 'payment' | 'wallet', token: string): Promise<string>;
}

const StartBody = Type.Object({ session: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
const ReturnQuery = Type.Object({
  session: Type.String({ minLength: 1, maxLength: 100 }),
  monext_session_id: Type.Optional(Type.String({ maxLength: 100 })),
  token: Type.Optional(Type.String({ maxLength: 100 })),
  paylinetoken: Type.Optional(Type.String({ maxLength: 100 })),
  notificationType: Type.Optional(Type.String({ maxLength: 50 })),
}, { additionalProperties: true });

type ReturnQueryT = { session: string; monext_session_id?: string; token?: string; paylinetoken?: string };

/** A widget session for a Motu session (the hosted page's call, and the SDK's `POST /api/v1/sdk/sessions/{id}/widget`). */
export function widgetStarter(router: LiveRouter, deps: MonextRouteDeps) {
  return async (sessionId: string) => {
    const info = await deps.resolve(sessionId);
    if (!info) throw new AppError('SESSION_EXPIRED', 'This session is unknown or no longer takes a card');
    if (info.mode !== 'live') throw new AppError('BUSINESS_RULE_VIOLATION', "Test mode takes cards in Motu's own fields (the simulator)");
    deps.checkCardEntry(info);
    const base = `${deps.publicUrl}/acquirer/v1/monext`;
    const q = `session=${encodeURIComponent(sessionId)}`;
    return router.startCardEntry(info.contractId, {
      mode: info.mode, merchantReference: info.merchantReference, amount: info.amount, currency: info.currency,
      returnUrl: `${base}/return?${q}`, notificationUrl: `${base}/notify?${q}`, languageCode: info.languageCode,
      statementLabel: info.statementLabel ?? undefined, email: info.email, saveAllowed: info.saveAllowed,
    }, (trx) => deps.takeTokenSlot(sessionId, info.mode, trx));
  };
}

export function monextRoutes(router: LiveRouter, deps: MonextRouteDeps) {
  const tokenOf = (q: ReturnQueryT) => q.monext_session_id ?? q.token ?? q.paylinetoken ?? '';
  const start = widgetStarter(router, deps);
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: { session: string } }>('/acquirer/v1/monext/sessions', { schema: { hide: true, body: StartBody } }, async (request, reply) => {
      const entry = await start(request.body.session);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(entry);
    });

    // Monext sends the browser back here with the session's token (`paylinetoken`, as Monext's plugins read it).
    app.get<{ Querystring: ReturnQueryT }>('/acquirer/v1/monext/return', { schema: { hide: true, querystring: ReturnQuery } }, async (request, reply) => {
      const info = await deps.resolve(request.query.session, true);
      const token = tokenOf(request.query);
      if (!info || !token) return reply.redirect(`/checkout/${encodeURIComponent(request.query.session)}`, 302);
      try {
        return reply.redirect(await deps.complete(request.query.session, info.kind, token), 302);
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'SERVICE_UNAVAILABLE') throw err;
        // Finished already (or expired): the session's own page says how it ended.
        const id = encodeURIComponent(request.query.session);
        return reply.redirect(info.kind === 'wallet' ? `/wallet/${id}/done` : `/checkout/${id}`, 302);
      }
    });

    // Monext's notification: answered 200 whatever happened (Monext notifies again until it gets one), after the
    // session was finished from the token when it still could be.
    const notify = async (request: { query: ReturnQueryT }, reply: import('fastify').FastifyReply) => {
      const token = tokenOf(request.query);
      const info = token ? await deps.resolve(request.query.session, true) : null;
      if (info && token) {
        try {
          await deps.complete(request.query.session, info.kind, token);
        } catch (err) {
          // Monext could not be read (or anything unexpected): 5xx, so that Monext notifies again. A session already
          // finished (paid, expired, out of attempts) is an AppError of its own: nothing left to do, 200.
          if (!(err instanceof AppError) || err.code === 'SERVICE_UNAVAILABLE') throw err;
        }
      }
      return reply.code(200).send('');
    };
    app.get<{ Querystring: ReturnQueryT }>('/acquirer/v1/monext/notify', { schema: { hide: true, querystring: ReturnQuery } }, notify);
    app.post<{ Querystring: ReturnQueryT }>('/acquirer/v1/monext/notify', { schema: { hide: true, querystring: ReturnQuery } }, notify);
  };
}
