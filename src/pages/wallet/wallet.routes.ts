// Hosted card-registration pages: /wallet/{sessionId} and /wallet/{sessionId}/done.
import type { FastifyInstance } from 'fastify';
import { sendHtml } from '../../http/html.js';
import type { WalletSessionsService } from '../../modules/wallet/wallet-sessions.service.js';
import { cspWithWidget, type WidgetCsp } from '../../http/csp.js';
import { WALLET_CSS, WALLET_JS, walletDonePage, walletLang, walletPage } from './wallet.page.js';

/** The component's frames and calls are same-origin here; inline styles are the component's shadow stylesheet. */
const PAGE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "connect-src 'self'",
  "frame-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'self'",
].join('; ');

/** A live registration page mounts the acquirer's widget (Monext) through the component: its origins, the banks' 3-D Secure. */
function liveCsp(widget: WidgetCsp): string {
  return cspWithWidget([
    ['default-src', "'none'"], ['script-src', "'self'"], ['style-src', "'self'", "'unsafe-inline'"], ['img-src', "'self'", 'data:'], ['connect-src', "'self'"],
    ['frame-src', "'self'"], ['form-action', "'self'"], ['base-uri', "'none'"], ['frame-ancestors', "'self'"],
  ], widget);
}

export function walletPagesRoutes(wallet: WalletSessionsService, widget?: WidgetCsp) {
  const livePageCsp = widget ? liveCsp(widget) : PAGE_CSP;
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/wallet/assets/wallet.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(WALLET_JS));
    app.get('/wallet/assets/wallet.css', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(WALLET_CSS));

    app.get<{ Params: { sessionId: string } }>('/wallet/:sessionId', { schema: { hide: true } }, async (request, reply) => {
      const open = await wallet.loadOpen(request.params.sessionId);
      if (!open) return reply.code(404).send({ code: 'NOT_FOUND', message: 'Unknown session' });
      if (open === 'inactive') {
        const any = await wallet.loadAny(request.params.sessionId);
        return reply.redirect(`/expired?lang=${walletLang(any?.session.language_code)}&sessionId=${encodeURIComponent(request.params.sessionId)}`, 302);
      }
      const lang = walletLang(open.session.language_code);
      return sendHtml(reply, walletPage({ sessionId: open.session.id, merchantName: open.merchantName, lang, mode: open.session.mode, merchant: open.merchant }),
        open.session.mode === 'live' ? livePageCsp : PAGE_CSP);
    });

    app.get<{ Params: { sessionId: string } }>('/wallet/:sessionId/done', { schema: { hide: true } }, async (request, reply) => {
      const any = await wallet.loadAny(request.params.sessionId);
      if (!any) return reply.code(404).send({ code: 'NOT_FOUND', message: 'Unknown session' });
      return sendHtml(reply, walletDonePage(walletLang(any.session.language_code), any.wallet.outcome, any.merchant, any.session.mode), PAGE_CSP);
    });
  };
}
