// Motu's icon, on every page it serves (the hosted pages, the back-office, /docs and the page at /): an SVG at
// /favicon.svg, named by each page's <link rel="icon">, and the same at /favicon.ico, which browsers ask for on
// their own when a page names none. Without it every page costs a 404 and a console error.
import type { FastifyInstance } from 'fastify';

const BLUE = '#1d4ed8';

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="${BLUE}"/>
<path d="M7 23V9h3.6l5.4 7.2L21.4 9H25v14h-3.4v-8.6L16 21.6l-5.6-7.2V23z" fill="#ffffff"/></svg>`;

/** The element each page's <head> carries. */
export const FAVICON_LINK = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">';

export function faviconRoutes() {
  return async function routes(app: FastifyInstance): Promise<void> {
    for (const url of ['/favicon.svg', '/favicon.ico']) {
      app.get(url, { schema: { hide: true } }, async (_request, reply) => reply
        .header('content-type', 'image/svg+xml').header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff')
        .send(FAVICON_SVG));
    }
  };
}
