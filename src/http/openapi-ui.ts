// The API reference at /docs: swagger-ui on the merchant document, in Motu's name and colours (the hosted pages'
// blue, #1d4ed8), with the document's own introduction on top. Nothing is fetched from elsewhere (no validator
// badge, no web font), so the page works offline and under its strict CSP.
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { FAVICON_SVG } from './favicon.js';

const BLUE = '#1d4ed8';
const INK = '#111827';

const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="104" height="32" viewBox="0 0 104 32" role="img" aria-label="Motu">
<rect width="32" height="32" rx="7" fill="#ffffff"/><path d="M7 23V9h3.6l5.4 7.2L21.4 9H25v14h-3.4v-8.6L16 21.6l-5.6-7.2V23z" fill="${BLUE}"/>
<text x="40" y="23" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="19" font-weight="700" fill="#ffffff">Motu</text></svg>`;

const CSS = `
body { margin: 0; background: #f8fafc; color: ${INK}; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.swagger-ui, .swagger-ui .info .title, .swagger-ui .opblock-tag, .swagger-ui .opblock .opblock-summary-description { font-family: inherit; color: ${INK}; }
.swagger-ui .topbar { background: ${BLUE}; padding: 12px 0; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .topbar a { max-width: 180px; }
.swagger-ui .info { margin: 32px 0 24px; }
.swagger-ui .info .title small.version-stamp { background: ${BLUE}; }
.swagger-ui .info a, .swagger-ui a.nostyle, .swagger-ui .info .base-url { color: ${BLUE}; }
.swagger-ui .btn.authorize { color: ${BLUE}; border-color: ${BLUE}; }
.swagger-ui .btn.authorize svg { fill: ${BLUE}; }
.swagger-ui .btn.execute { background: ${BLUE}; border-color: ${BLUE}; }
.swagger-ui .opblock.opblock-post { border-color: ${BLUE}; background: rgba(29, 78, 216, .06); }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: ${BLUE}; }
.swagger-ui .opblock.opblock-post .opblock-summary { border-color: ${BLUE}; }
.swagger-ui .opblock-tag { border-bottom-color: #e5e7eb; }
.swagger-ui section.models { display: none; }
`;

export function docsUiOptions(): FastifySwaggerUiOptions {
  return {
    routePrefix: '/docs',
    staticCSP: true,
    // swagger-ui's bundle adds a <style> element at run time, which style-src 'self' refuses (a console error and a
    // missing style). The page holds no secret and shows only this document: inline styles are allowed, scripts stay
    // strictly 'self' and hashed.
    transformStaticCSP: (header) => header.replace(/style-src ([^;]*);/, "style-src $1 'unsafe-inline';"),
    validatorUrl: false,
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO), href: '/docs', target: '_self' },
    theme: {
      title: 'Motu API reference',
      css: [{ filename: 'motu.css', content: CSS }],
      favicon: [{ filename: 'motu.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(FAVICON_SVG) }],
    },
    uiConfig: {
      docExpansion: 'list',
      deepLinking: true,
      displayOperationId: true,
      defaultModelsExpandDepth: -1,
      defaultModelExpandDepth: 3,
      filter: true,
      tryItOutEnabled: false,
      syntaxHighlight: { activate: true, theme: 'nord' },
    },
  };
}
