// /docs/guides: the index of the guides, and /docs/guides/<name>: one guide, the whole of it on one page (the
// browser's find searches it). Plain HTML without script, under a CSP that allows nothing but its own style.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { esc, sendHtml } from '../../http/html.js';
import type { Guide, Guides } from './guides.js';

const BLUE = '#1d4ed8';

const CSS = `
body { margin: 0; color: #111827; background: #f8fafc; font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header { background: ${BLUE}; color: #fff; padding: 12px 24px; display: flex; gap: 24px; align-items: baseline; }
header a { color: #fff; text-decoration: none; } header .brand { font-weight: 700; font-size: 20px; }
.layout { display: flex; gap: 32px; max-width: 1200px; margin: 0 auto; padding: 24px; }
nav { flex: 0 0 200px; font-size: 14px; } nav ul { list-style: none; padding: 0; margin: 0; } nav li { margin: 4px 0; }
nav a { color: #374151; text-decoration: none; } nav a[aria-current="page"] { color: ${BLUE}; font-weight: 600; }
main { flex: 1; min-width: 0; background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: 8px 32px 32px; }
main a { color: ${BLUE}; }
h1, h2, h3, h4 { line-height: 1.25; margin: 1.6em 0 .6em; } h1 { font-size: 2em; }
a.anchor { float: left; margin-left: -1em; width: 1em; color: #9ca3af; text-decoration: none; visibility: hidden; }
h1:hover a.anchor, h2:hover a.anchor, h3:hover a.anchor, h4:hover a.anchor { visibility: visible; }
code { font: 14px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f3f4f6; padding: .1em .3em; border-radius: 4px; }
pre { background: #111827; color: #f9fafb; padding: 16px; border-radius: 6px; overflow-x: auto; }
pre code { background: none; color: inherit; padding: 0; }
table { border-collapse: collapse; display: block; overflow-x: auto; margin: 1em 0; font-size: 14px; }
th, td { border: 1px solid #e5e7eb; padding: 6px 10px; text-align: left; vertical-align: top; } th { background: #f9fafb; }
blockquote { margin: 1em 0; padding: 0 1em; color: #4b5563; border-left: 4px solid #e5e7eb; }
dl dt { font-weight: 600; margin-top: 1em; }
main img { max-width: 100%; height: auto; border: 1px solid #e5e7eb; border-radius: 6px; }
@media (max-width: 800px) { .layout { flex-direction: column; } nav { flex: none; } main { padding: 8px 16px 24px; } }
`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

/** Nothing but this page's own style: no script, no frame, no form, no other origin. */
export const GUIDES_CSP = [
  "default-src 'none'", `style-src ${STYLE_HASH}`, "img-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

function page(guides: Guides, title: string, current: string | undefined, body: string): string {
  const links = guides.names().map((name) => {
    const guide = guides.get(name)!;
    return `<li><a href="/docs/guides/${esc(name)}"${name === current ? ' aria-current="page"' : ''}>${esc(guide.title)}</a></li>`;
  }).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Motu</title><style>${CSS}</style></head>
<body><header><a class="brand" href="/docs/guides">Motu guides</a><a href="/docs">API reference</a></header>
<div class="layout"><nav aria-label="Guides"><ul>${links}</ul></nav>
<main>${body}</main></div></body></html>`;
}

function index(guides: Guides): string {
  const items = guides.all().map((g: Guide) => `<dt><a href="/docs/guides/${esc(g.name)}">${esc(g.title)}</a></dt><dd>${esc(g.summary)}</dd>`).join('\n');
  return `<h1 id="guides">Guides</h1>
<p>How Motu works and how to integrate with it, beside the <a href="/docs">API reference</a>. Each guide is one page: your
browser's find searches all of it.</p>
<dl>${items}</dl>`;
}

export function guidesRoutes(guides: Guides) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/docs/guides', { schema: { hide: true } }, async (_request, reply) => sendHtml(reply, page(guides, 'Guides', undefined, index(guides)), GUIDES_CSP));
    app.get<{ Params: { file: string } }>('/docs/guides/images/:file', { schema: { hide: true } }, async (request, reply) => {
      const image = guides.image(request.params.file);
      if (!image) return reply.code(404).send({ code: 'NOT_FOUND', message: 'No such picture' });
      return reply.header('content-type', 'image/png').header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=3600').send(image);
    });
    app.get<{ Params: { name: string } }>('/docs/guides/:name', { schema: { hide: true } }, async (request, reply) => {
      const guide = guides.get(request.params.name);
      if (!guide) {
        const missing = `<h1 id="not-found">No such guide</h1><p>There is no guide “${esc(request.params.name)}”: the list is on the left, and at <a href="/docs/guides">/docs/guides</a>.</p>`;
        return sendHtml(reply, page(guides, 'No such guide', undefined, missing), GUIDES_CSP, 404);
      }
      return sendHtml(reply, page(guides, guide.title, guide.name, guide.html), GUIDES_CSP);
    });
  };
}
