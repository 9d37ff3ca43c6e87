// The back-office application's HTML shell and assets. Every page under /dashboard is the same shell: the application
// (src/dashboard/app) routes in the browser. /dashboard/api/* is the back-office's JSON API, registered elsewhere;
// an unknown path under it answers a JSON 404 here rather than the shell.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendHtml } from '../../http/html.js';
import { pageLang } from '../../shared/lang.js';
import { FAVICON_LINK } from '../../http/favicon.js';
import { dashboardBundle, type DashboardAsset, type DashboardBundle } from './dashboard.bundle.js';

/** No inline script or style anywhere in the application: it is one script and one stylesheet from here. */
export const DASHBOARD_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'", "font-src 'self'",
  "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

function shell(lang: string, bundle: DashboardBundle): string {
  const preload = bundle.preload.map((name) => `<link rel="modulepreload" href="/dashboard/assets/${name}">\n`).join('');
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Motu</title>
${FAVICON_LINK}
<link rel="stylesheet" href="/dashboard/assets/app-${bundle.css.hash}.css">
<script type="module" src="/dashboard/assets/app-${bundle.js.hash}.js"></script>
${preload}</head>
<body>
<div id="root"></div>
<noscript>Motu's back-office needs JavaScript. / Le back-office de Motu a besoin de JavaScript.</noscript>
</body>
</html>
`;
}

/** The first language the browser asks for: French for fr*, English otherwise (the application may switch). */
function shellLang(request: FastifyRequest): 'fr' | 'en' {
  const first = String(request.headers['accept-language'] ?? '').split(',')[0]!.split(';')[0]!.trim();
  return first === '' ? 'en' : pageLang(first);
}

/**
 * The encoding to send, from the request's Accept-Encoding: the one it weighs most of brotli and gzip (brotli on a
 * tie), else none (identity). A coding with `q=0` is refused; `*` stands for any coding not named.
 */
export function preferredEncoding(header: string | string[] | undefined): 'br' | 'gzip' | null {
  const accepted = new Map<string, number>();
  for (const part of String(header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    accepted.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  const [br, gz] = [weight('br'), weight('gzip')];
  if (br > 0 && br >= gz) return 'br';
  return gz > 0 ? 'gzip' : null;
}

export function dashboardPageRoutes() {
  return async function routes(app: FastifyInstance): Promise<void> {
    const page = async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.url.startsWith('/dashboard/api/') || request.url === '/dashboard/api') {
        return reply.code(404).send({ code: 'NOT_FOUND', message: `Route ${request.method}:${request.url.split('?')[0]} not found` });
      }
      const bundle = await dashboardBundle();
      return sendHtml(reply, shell(shellLang(request), bundle), DASHBOARD_CSP);
    };
    app.get('/dashboard', { schema: { hide: true } }, page);
    app.get('/dashboard/*', { schema: { hide: true } }, page);

    const serve = (type: string, pick: (b: DashboardBundle, hash: string) => DashboardAsset | undefined) =>
      async (request: FastifyRequest<{ Params: { hash: string } }>, reply: FastifyReply) => {
        const file = pick(await dashboardBundle(), request.params.hash);
        if (!file) return reply.code(404).send({ code: 'NOT_FOUND', message: 'No such back-office build' });
        const encoding = preferredEncoding(request.headers['accept-encoding']);
        // Each encoding is its own representation: its own ETag, and caches keep them apart by Accept-Encoding.
        const etag = `"${file.hash}${encoding ? `-${encoding === 'br' ? 'br' : 'gz'}` : ''}"`;
        reply.header('content-type', `${type}; charset=utf-8`).header('etag', etag).header('x-content-type-options', 'nosniff')
          .header('cache-control', 'public, max-age=31536000, immutable').header('vary', 'accept-encoding');
        if (request.headers['if-none-match'] === etag) return reply.code(304).send();
        if (encoding) reply.header('content-encoding', encoding);
        return reply.send(encoding === 'br' ? file.br : encoding === 'gzip' ? file.gzip : file.body);
      };
    const current = (file: DashboardAsset, hash: string) => (hash === file.hash ? file : undefined);
    app.get<{ Params: { hash: string } }>('/dashboard/assets/app-:hash.js', { schema: { hide: true } }, serve('text/javascript', (b, hash) => current(b.js, hash)));
    app.get<{ Params: { hash: string } }>('/dashboard/assets/app-:hash.css', { schema: { hide: true } }, serve('text/css', (b, hash) => current(b.css, hash)));
    // A chunk's name is its content hash already (esbuild's): served by that name.
    app.get<{ Params: { hash: string } }>('/dashboard/assets/chunk-:hash.js', { schema: { hide: true } }, serve('text/javascript', (b, hash) => b.chunks.get(`chunk-${hash}.js`)));
  };
}
