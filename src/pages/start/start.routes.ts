// The page at `/`: where a person who opens Motu's address lands, with the two places meant for people, the
// back-office (/dashboard) and the API reference (/docs). In the browser's language (French for fr*, English
// otherwise); no script, one small inline style.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { catalog } from '../../i18n/index.js';
import { esc, sendHtml } from '../../http/html.js';
import { pageLang } from '../../shared/lang.js';
import { FAVICON_LINK } from '../../http/favicon.js';

const STYLE = `body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#f8fafc}
main{max-width:40rem;margin:0 auto;padding:2rem 1rem}h1{margin:0 0 .25rem}ul{list-style:none;padding:0}li{margin:1rem 0}
a{color:#1d4ed8;font-weight:600;font-size:1.125rem}p{margin:.25rem 0}
@media (prefers-color-scheme:dark){body{background:#0b1220;color:#e5e7eb}a{color:#93b4ff}}`;

const CSP = ["default-src 'none'", "style-src 'unsafe-inline'", "img-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join('; ');

function startPage(lang: 'fr' | 'en'): string {
  const t = catalog[lang].start;
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>${esc(t.title)}</title>${FAVICON_LINK}<style>${STYLE}</style></head>
<body><main><h1>${esc(t.title)}</h1><p>${esc(t.intro)}</p>
<ul><li><a href="/dashboard">${esc(t.dashboard)}</a><p>${esc(t.dashboardText)}</p></li>
<li><a href="/docs">${esc(t.docs)}</a><p>${esc(t.docsText)}</p></li></ul></main></body></html>
`;
}

function lang(request: FastifyRequest): 'fr' | 'en' {
  const first = String(request.headers['accept-language'] ?? '').split(',')[0]!.split(';')[0]!.trim();
  return first === '' ? 'en' : pageLang(first);
}

export function startRoutes() {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/', { schema: { hide: true } }, async (request, reply) => sendHtml(reply, startPage(lang(request)), CSP).header('vary', 'accept-language'));
  };
}
