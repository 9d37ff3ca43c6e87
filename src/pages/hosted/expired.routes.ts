// /expired: the page of a session that no longer takes a card (checkout or card registration), a path mobile web
// views watch. With `sessionId` it wears the session's merchant's header like the pages before it; without (an
// unknown session, an old link) the plain page. Always 410.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Database } from '../../db/database.js';
import { sendHtml } from '../../http/html.js';
import { pageLang } from '../../shared/lang.js';
import { expiredPage } from '../checkout/checkout.views.js';
import { plainPageCsp, themeSource, type Brand } from './layout.js';

const Query = Type.Object({
  sessionId: Type.Optional(Type.String({ maxLength: 200 })),
  lang: Type.Optional(Type.String({ maxLength: 35 })),
});

/** The header's facts of any session (payment or wallet), or null for an unknown id. */
export async function sessionBrand(db: Database, sessionId: string): Promise<Brand | null> {
  const session = await db.kysely.selectFrom('payment_sessions').select(['merchant_id', 'mode']).where('id', '=', sessionId).executeTakeFirst();
  if (!session) return null;
  const merchant = await db.kysely.selectFrom('merchants').selectAll().where('id', '=', session.merchant_id).executeTakeFirstOrThrow();
  return { merchant, mode: session.mode };
}

export function expiredRoutes(db: Database) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: Static<typeof Query> }>('/expired', { schema: { hide: true, querystring: Query } }, async (request, reply) => {
      const brand = request.query.sessionId ? await sessionBrand(db, request.query.sessionId) : null;
      return sendHtml(reply, expiredPage(pageLang(request.query.lang), brand), plainPageCsp(themeSource(brand)), 410);
    });
  };
}
