// The hosted card-registration page (/wallet/{sessionId}): the web SDK's component in tokenization intent, and
// our own "Save card" button calling its submit(). The outcome goes back to the merchant's returnUrl with
// status=success|failed|error (and paymentMethodId on success), or to /wallet/{id}/done for a link without one.
import { FAVICON_LINK } from '../../http/favicon.js';
import { esc, jsonForScript } from '../../http/html.js';
import { catalog, fillText } from '../../i18n/index.js';
import { pageLang } from '../../shared/lang.js';
import { themeCss, themeOf, type Branded } from '../../modules/merchants/branding.js';

export type WalletLang = 'fr' | 'en';

export const WALLET_TEXT = { fr: catalog.fr.wallet, en: catalog.en.wallet };

export const walletLang: (code: string | null | undefined) => WalletLang = pageLang;

export const WALLET_CSS = `
:root { color-scheme: light dark; --bg: #f3f4f6; --panel: #fff; --fg: #111827; --muted: #4b5563; --primary: #2563eb; --focus: #2563eb; --border: #e5e7eb; --error: #b91c1c; }
@media (prefers-color-scheme: dark) { :root { --bg: #030712; --panel: #111827; --fg: #f3f4f6; --muted: #9ca3af; --primary: #2563eb; --focus: #60a5fa; --border: #374151; --error: #fca5a5; } }
body { margin: 0; padding: 0 16px; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 460px; margin: 32px auto; padding: 24px; background: var(--panel); border: 1px solid var(--border); border-radius: 16px; }
h1 { font-size: 22px; margin: 0 0 4px; } p.intro { color: var(--muted); margin: 0 0 16px; }
button { width: 100%; margin-top: 16px; padding: 12px; font: inherit; font-weight: 600; border: 0; border-radius: 10px; background: var(--primary); color: var(--on-primary, #fff); cursor: pointer; }
button[disabled] { opacity: .6; cursor: progress; }
button:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.alert { color: var(--error); min-height: 1em; margin: 8px 0 0; }
`;

export const WALLET_JS = `(function () {
  'use strict';
  var cfg = JSON.parse(document.getElementById('wallet-config').textContent);
  var button = document.getElementById('save');
  var alertBox = document.getElementById('alert');
  var controller = null;
  var ready = false;
  function busy(on) { button.disabled = on; button.textContent = on ? cfg.text.saving : cfg.text.save; }
  // The button comes alive once the fields are ready AND mount() has handed over its controller (either may come first).
  function enableWhenReady() { if (ready && controller) busy(false); }
  busy(true);
  window.Service.mount({
    session: cfg.sessionId, container: '#card', title: cfg.text.cardTitle,
    onReady: function () { ready = true; enableWhenReady(); },
    onError: function (err) {
      if (err.redirectUrl) { window.location.assign(err.redirectUrl); return; }
      if (err.code === 'SESSION_EXPIREE') { window.location.assign('/expired?lang=' + cfg.lang); return; }
      // Once mounted, the component shows its own errors (a refused card): the page says nothing twice.
      busy(false); if (!controller) alertBox.textContent = err.message;
    },
    onSuccess: function () { busy(true); }
  }).then(function (c) { controller = c; enableWhenReady(); }, function () { busy(false); button.disabled = true; alertBox.textContent = alertBox.textContent || cfg.text.unavailable; });
  button.addEventListener('click', function () {
    if (!controller) return;
    alertBox.textContent = '';
    busy(true);
    controller.submit().catch(function () { busy(false); });
  });
})();`;

function layout(lang: WalletLang, title: string, body: string, scripts: string[], merchant: Branded | null = null): string {
  // The merchant's colours after wallet.css: the Save button (text white or dark by contrast); the card component
  // takes the same colours from its session.
  const theme = merchant ? themeOf(merchant) : null;
  const style = theme ? `<style id="merchant-theme">${themeCss(theme, { primary: '--primary', onPrimary: '--on-primary' })}</style>` : '';
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="robots" content="noindex"><title>${esc(title)}</title>${FAVICON_LINK}
<link rel="stylesheet" href="/wallet/assets/wallet.css">${style}</head><body>${body}${scripts.map((s) => `<script src="${esc(s)}"></script>`).join('')}</body></html>`;
}

export function walletPage(input: { sessionId: string; merchantName: string; lang: WalletLang; mode: string; merchant?: Branded }): string {
  const t = WALLET_TEXT[input.lang];
  const config = { sessionId: input.sessionId, lang: input.lang, text: { save: t.save, saving: t.saving, unavailable: t.unavailable, cardTitle: t.cardTitle } };
  const body = `<main><h1>${esc(t.title)}</h1><p class="intro">${esc(fillText(t.intro, { merchant: input.merchantName }))}</p>
<div id="card"></div><p class="alert" id="alert" role="alert" aria-live="assertive"></p>
<button type="button" id="save">${esc(t.save)}</button></main>
<script type="application/json" id="wallet-config">${jsonForScript(config)}</script>`;
  return layout(input.lang, t.title, body, ['/sdk/v1/motu.js', '/wallet/assets/wallet.js'], input.merchant ?? null);
}

export function walletDonePage(lang: WalletLang, outcome: string | null): string {
  const t = WALLET_TEXT[lang];
  const text = outcome === 'success' ? t.doneOk : outcome === 'failed' ? t.doneFailed : t.doneError;
  return layout(lang, t.title, `<main><h1>${esc(t.title)}</h1><p role="status">${esc(text)}</p></main>`, []);
}
