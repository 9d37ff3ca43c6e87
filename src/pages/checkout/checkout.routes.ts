// Hosted payment pages, on paths a mobile app's web view watches (docs/checkout.md): /checkout/{sessionId},
// /checkout/success, /checkout/failed, /api/internal/checkout-cancel, /expired, plus the page's own pay and 3-D Secure
// return calls. The session id is the browser's only credential.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sendHtml } from '../../http/html.js';
import type { CheckoutService } from '../../modules/checkout/checkout.service.js';
import { returnUrlFor } from '../../modules/checkout/return-urls.js';
import { isPaid } from '../../modules/payments/payment-status.js';
import { CHECKOUT_JS, RETURN_JS } from './checkout.script.js';
import { CHECKOUT_CSS } from './checkout.style.js';
import { langOf, TEXT } from './checkout.messages.js';
import { checkoutPage, expiredPage, failedPage, pageTheme, paidPage, returnPage, successPage } from './checkout.views.js';
import type { Branded } from '../../modules/merchants/branding.js';
import { hostedRateLimit, registerHostedRateLimit } from '../../http/hosted-rate-limit.js';
import type { DocumentPdfs } from '../pdf/documents.js';
import { receiptJob } from '../pdf/jobs.js';
import { cspWithWidget, type WidgetCsp } from '../../http/csp.js';

const PayBody = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 100 })),
  paymentMethodId: Type.Optional(Type.String({ maxLength: 100 })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
  saveCard: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

type SessionQuery = { Querystring: { sessionId?: string; lang?: string } };
/**
 * The query the result pages read, checked before they read it: a parameter sent twice arrives as an array, which the
 * session lookup and the language choice cannot take (400 VALIDATION_ERROR, as a malformed link deserves).
 */
const PageQuery = Type.Object({
  sessionId: Type.Optional(Type.String({ maxLength: 200 })),
  lang: Type.Optional(Type.String({ maxLength: 35 })),
});
const pageSchema = { hide: true, querystring: PageQuery };
const CardQuery = Type.Object({ card: Type.Optional(Type.String({ maxLength: 100 })) });

/** `pdfs` draws receipts (kept once drawn); `hostedPerMinute` bounds the receipt's PDF per client address. */
export function checkoutRoutes(checkout: CheckoutService, publicUrl: string, pdfs: DocumentPdfs, hostedPerMinute: number, widget?: WidgetCsp): FastifyPluginAsync {
  const publicOrigin = new URL(publicUrl).origin;
  // Live pages mount the acquirer's widget: its origins for scripts, styles, fonts, images, calls and frames, inline
  // styles, and the 3-D Secure frames and forms of any issuing bank (https). Test pages keep the strict policy.
  const cspWith = (styleSource: string | null, live = false) => cspWithWidget([
    ['default-src', "'none'"], ['script-src', "'self'"], ['style-src', "'self'", ...(styleSource ? [styleSource] : [])], ['img-src', "'self'", 'data:'],
    ['connect-src', "'self'"], ['frame-src', "'self'", publicOrigin], ['form-action', "'self'"], ['base-uri', "'none'"], ['frame-ancestors', "'self'"],
  ], live ? widget : undefined);
  const pageCsp = cspWith(null);
  /** The merchant's inline theme sheet is allowed by its hash, nothing else inline. */
  const themedCsp = (merchant: Branded, live = false) => cspWith(pageTheme(merchant)?.cspSource ?? null, live);
  const hostOrigin = (request: FastifyRequest) =>
    request.host === new URL(publicUrl).host ? publicOrigin : `${request.protocol}://${request.host}`;
  const asset = (type: string, body: string) => async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.header('content-type', `${type}; charset=utf-8`).header('cache-control', 'public, max-age=300').send(body);
  /** To /expired, with the session (if known) so the page keeps its merchant's header. */
  const expired = (reply: FastifyReply, lang: string, sessionId?: string) =>
    reply.redirect(`/expired?lang=${langOf(lang)}${sessionId ? `&sessionId=${encodeURIComponent(sessionId)}` : ''}`, 302);

  return async (app) => {
    await registerHostedRateLimit(app);
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    app.get('/checkout/assets/checkout.js', { schema: { hide: true } }, asset('text/javascript', CHECKOUT_JS));
    app.get('/checkout/assets/return.js', { schema: { hide: true } }, asset('text/javascript', RETURN_JS));
    app.get('/checkout/assets/checkout.css', { schema: { hide: true } }, asset('text/css', CHECKOUT_CSS));

    // `card`: the card chosen as the page opens ('new' or a saved card's id), from the failure page's buttons.
    app.get<{ Params: { sessionId: string }; Querystring: { card?: string } }>('/checkout/:sessionId', { schema: { hide: true, querystring: CardQuery } }, async (request, reply) => {
      const loaded = await checkout.load(request.params.sessionId);
      if (!loaded) return sendHtml(reply, expiredPage('fr', null, TEXT.fr.notFound), pageCsp, 404);
      if ('inactive' in loaded) {
        // No card attempt left: the outcome page (its reason, the way back to the merchant), not "expired".
        if (loaded.state === 'exhausted') return reply.redirect(`/checkout/failed?sessionId=${encodeURIComponent(request.params.sessionId)}`, 302);
        // Paid already: say so, with the way back, never "start again" (a second payment).
        const ctx = await checkout.loadAny(request.params.sessionId);
        if (ctx && isPaid(ctx.payment.status)) {
          const lang = langOf(ctx.session.language_code);
          const back = returnUrlFor(ctx.session, ctx.payment, 'success');
          return sendHtml(reply, paidPage(ctx, lang, back), themedCsp(ctx.merchant));
        }
        return expired(reply, loaded.lang, request.params.sessionId);
      }
      const lang = langOf(loaded.session.language_code);
      const page = checkoutPage(loaded, lang, hostOrigin(request), checkout.mailsReceipt(loaded.session.mode), request.query.card);
      return sendHtml(reply, page, themedCsp(loaded.merchant, loaded.session.mode === 'live'));
    });

    app.post<{ Params: { sessionId: string }; Body: { token?: string; paymentMethodId?: string; email?: string; saveCard?: boolean } }>(
      '/checkout/:sessionId/pay', { schema: { hide: true, body: PayBody } }, async (request, reply) => {
        const next = await checkout.pay(request.params.sessionId, request.body);
        return reply.header('cache-control', 'no-store').send(next);
      });

    app.get<{ Params: { sessionId: string }; Querystring: { authorizationId?: string } }>(
      '/checkout/:sessionId/3ds-return', { schema: { hide: true } }, async (request, reply) => {
        const next = await checkout.completeChallenge(request.params.sessionId, request.query.authorizationId ?? '');
        const url = next.next === 'redirect' ? next.url : `/checkout/${encodeURIComponent(request.params.sessionId)}`;
        const ctx = await checkout.loadAny(request.params.sessionId);
        return sendHtml(reply, returnPage(url, langOf(ctx?.session.language_code)), pageCsp);
      });

    app.get<SessionQuery>('/checkout/success', { schema: pageSchema }, async (request, reply) => {
      const ctx = request.query.sessionId ? await checkout.loadAny(request.query.sessionId) : null;
      if (!ctx) return expired(reply, request.query.lang ?? 'fr');
      if (!isPaid(ctx.payment.status)) {
        return checkout.isOpen(ctx.session, ctx.payment) ? reply.redirect(`/checkout/${ctx.session.id}`, 302) : expired(reply, ctx.session.language_code, ctx.session.id);
      }
      const lang = langOf(ctx.session.language_code);
      const onward = checkout.successOnward(ctx.session, ctx.payment);
      if (onward) return sendHtml(reply, returnPage(onward, lang), pageCsp);
      const back = returnUrlFor(ctx.session, ctx.payment, 'success');
      return sendHtml(reply, successPage(ctx, lang, back, `/checkout/success/receipt.pdf?sessionId=${encodeURIComponent(ctx.session.id)}`), themedCsp(ctx.merchant));
    });

    app.get<SessionQuery>('/checkout/success/receipt.pdf', { schema: pageSchema, config: hostedRateLimit(hostedPerMinute) }, async (request, reply) => {
      const ctx = request.query.sessionId ? await checkout.loadAny(request.query.sessionId) : null;
      if (!ctx || !isPaid(ctx.payment.status)) {
        return reply.code(404).send({ code: 'NOT_FOUND', message: 'No receipt for this session' });
      }
      const pdf = await pdfs.pdf(receiptJob(ctx, await checkout.receiptFacts(ctx), langOf(ctx.session.language_code)), ctx.payment.id);
      return reply.header('content-type', 'application/pdf')
        .header('content-disposition', `attachment; filename="receipt-${ctx.payment.reference}.pdf"`)
        .header('cache-control', 'no-store').send(pdf);
    });

    app.get<SessionQuery>('/checkout/failed', { schema: pageSchema }, async (request, reply) => {
      const ctx = request.query.sessionId ? await checkout.loadAny(request.query.sessionId) : null;
      if (!ctx) return expired(reply, request.query.lang ?? 'fr');
      if (ctx.payment.status !== 'failed') {
        return checkout.isOpen(ctx.session, ctx.payment) ? reply.redirect(`/checkout/${ctx.session.id}`, 302) : expired(reply, ctx.session.language_code, ctx.session.id);
      }
      const lang = langOf(ctx.session.language_code);
      const onward = checkout.failureOnward(ctx.session, ctx.payment);
      if (onward) return sendHtml(reply, returnPage(onward, lang), pageCsp);
      const back = returnUrlFor(ctx.session, ctx.payment, 'failed');
      return sendHtml(reply, failedPage(ctx, lang, checkout.cardState(ctx.session, ctx.payment), back), themedCsp(ctx.merchant));
    });

    // The cardholder's cancel (watched by mobile web views): a link (GET) or a form post.
    const cancel = async (sessionId: string | undefined, reply: FastifyReply) => {
      const ctx = sessionId ? await checkout.loadAny(sessionId) : null;
      if (!ctx) return expired(reply, 'fr');
      const back = await checkout.cancel(ctx.session.id);
      return back ? reply.redirect(back, 303) : expired(reply, ctx.session.language_code, ctx.session.id);
    };
    app.get<SessionQuery>('/api/internal/checkout-cancel', { schema: pageSchema }, async (request, reply) => cancel(request.query.sessionId, reply));
    app.post<{ Body: { sessionId?: string } | undefined; Querystring: { sessionId?: string } }>(
      '/api/internal/checkout-cancel', { schema: pageSchema }, async (request, reply) => {
        // The form's field, else the link's; a field that is not text (a JSON post of anything) is no session.
        const fromBody: unknown = request.body?.sessionId;
        return cancel(typeof fromBody === 'string' ? fromBody : request.query.sessionId, reply);
      });
  };
}
