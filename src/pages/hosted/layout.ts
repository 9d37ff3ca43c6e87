// The one layout of every page a paying customer opens (checkout, success, failure, expired, card registration and
// card links, invoice page): the same stylesheet (/checkout/assets/checkout.css), the same header with the merchant's
// logo (or initial), name and colour, and the same test banner. A page adds only its own body.
import { FAVICON_LINK } from '../../http/favicon.js';
import { esc } from '../../http/html.js';
import { catalog } from '../../i18n/index.js';
import type { Lang } from '../../shared/lang.js';
import { displayName, inlineStyle, themeCss, themeOf, type Branded, type InlineStyle } from '../../modules/merchants/branding.js';
import type { Merchant } from '../../modules/merchants/merchants.table.js';
import { logoPath } from '../../modules/merchants/merchants.service.js';

/** What the header shows: the merchant (its logo's digest too), the store's name if any, the session's mode. */
export interface Brand {
  merchant: Branded & Pick<Merchant, 'id' | 'logo_digest'>;
  storeName?: string | null;
  mode: 'test' | 'live' | string;
}

/**
 * The merchant's colours as an inline stylesheet after checkout.css (the Pay button, the initial's tile, buttons,
 * and links where readable); a page's CSP allows exactly this sheet by its hash. Null: the default look.
 */
export function pageTheme(merchant: Branded): InlineStyle | null {
  const theme = themeOf(merchant);
  if (!theme) return null;
  return inlineStyle(themeCss(theme, {
    primary: '--accent', onPrimary: '--accent-fg',
    links: [{ name: '--link', light: '#1d4ed8', dark: '#60a5fa' }, { name: '--focus', light: '#2563eb', dark: '#60a5fa' }],
  }));
}

/** The test banner, word for word the same on every page. */
export function testBanner(lang: Lang): string {
  return `<p class="test" role="note">${catalog[lang].checkout.testMode}</p>`;
}

const LOCK = '<svg aria-hidden="true" viewBox="0 0 16 16"><path d="M8 1a3.5 3.5 0 0 0-3.5 3.5V7H4a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h8a1 1 0 0 0 1-1V8a1 1 0 0 0-1-1h-.5V4.5A3.5 3.5 0 0 0 8 1Zm-2 6V4.5a2 2 0 1 1 4 0V7H6Z"/></svg>';

/** The header: logo (an uploaded one, else the name's initial on the primary colour), name, store; then the banner. */
export function brandHeader(brand: Brand, lang: Lang): string {
  const name = displayName(brand.merchant);
  const logo = logoPath(brand.merchant);
  // The name is written beside it: the picture is decoration for assistive technology (alt="").
  const mark = logo
    ? `<img class="logo logo-img" src="${esc(logo)}" alt="" width="40" height="40">`
    : `<div class="logo" aria-hidden="true">${esc(name.slice(0, 1).toUpperCase())}</div>`;
  return `<header class="top"><div class="merchant">${mark}
<div class="merchant-text"><p class="merchant-name">${esc(name)}</p>${brand.storeName ? `<p class="store-name">${esc(brand.storeName)}</p>` : ''}</div></div>
<div class="secure">${LOCK}${catalog[lang].checkout.secure}</div></header>
${brand.mode === 'test' ? testBanner(lang) : ''}`;
}

/** A whole page: `body` goes inside `.page`, under the header when there is a brand (an unknown session has none). */
export function hostedPage(input: {
  lang: Lang; title: string; brand: Brand | null; body: string; scripts?: string[]; stylesheets?: string[]; after?: string;
}): string {
  const theme = input.brand ? pageTheme(input.brand.merchant) : null;
  const sheets = ['/checkout/assets/checkout.css', ...(input.stylesheets ?? [])];
  return `<!doctype html>
<html lang="${input.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="robots" content="noindex">
<title>${esc(input.title)}</title>${FAVICON_LINK}${sheets.map((s) => `<link rel="stylesheet" href="${esc(s)}">`).join('')}${theme ? `<style id="merchant-theme">${theme.css}</style>` : ''}</head>
<body><div class="page">${input.brand ? brandHeader(input.brand, input.lang) : ''}${input.body}</div>${input.after ?? ''}${(input.scripts ?? []).map((s) => `<script src="${esc(s)}"></script>`).join('')}</body></html>`;
}

/** The CSP source of the page's theme sheet, or null (default look). */
export function themeSource(brand: Brand | null): string | null {
  return brand ? pageTheme(brand.merchant)?.cspSource ?? null : null;
}

/**
 * The policy of a hosted page without script: `img-src 'self'` lets the logo in, the theme sheet by its hash.
 * `framedBy`: who may frame it ('self' for the checkout's family, 'none' for the invoice page).
 */
export function plainPageCsp(styleSource: string | null, framedBy: "'self'" | "'none'" = "'self'"): string {
  return [
    "default-src 'none'", `style-src 'self'${styleSource ? ` ${styleSource}` : ''}`, "img-src 'self' data:", "form-action 'self'",
    "base-uri 'none'", `frame-ancestors ${framedBy}`,
  ].join('; ');
}
