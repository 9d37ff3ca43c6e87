// The hosted card-registration page (/wallet/{sessionId}): the web SDK's component in tokenization intent, and
// our own "Save card" button calling its submit(). The outcome goes back to the merchant's returnUrl with
// status=success|failed|error (and paymentMethodId on success), or to /wallet/{id}/done for a link without one.
import { esc, jsonForScript } from '../../http/html.js';
import { catalog, fillText } from '../../i18n/index.js';
import { pageLang } from '../../shared/lang.js';
import type { Merchant } from '../../modules/merchants/merchants.table.js';
import { hostedPage, type Brand } from '../hosted/layout.js';

export type WalletLang = 'fr' | 'en';

export const WALLET_TEXT = { fr: catalog.fr.wallet, en: catalog.en.wallet };

export const walletLang: (code: string | null | undefined) => WalletLang = pageLang;

/** What the registration page adds to the hosted pages' stylesheet: the card component's panel and the Save button. */
export const WALLET_CSS = `
.wallet { max-width: 460px; margin: 0 auto; }
.wallet .intro { color: var(--muted); margin: 0 0 16px; }
.wallet #save { width: 100%; margin-top: 16px; height: 52px; font: inherit; font-size: 17px; font-weight: 650; border: 0; border-radius: 10px; background: var(--accent); color: var(--accent-fg); cursor: pointer; }
.wallet #save[disabled] { opacity: .65; cursor: progress; }
.wallet #save:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.wallet .alert { min-height: 1em; margin: 8px 0 0; }
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
      if (err.code === 'SESSION_EXPIREE') { window.location.assign('/expired?lang=' + cfg.lang + '&sessionId=' + encodeURIComponent(cfg.sessionId)); return; }
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

/** The header's facts of a registration: the merchant and the session's mode. */
function brandOf(merchant: Merchant | null, mode: string): Brand | null {
  return merchant ? { merchant, mode } : null;
}

export function walletPage(input: { sessionId: string; merchantName: string; lang: WalletLang; mode: string; merchant?: Merchant }): string {
  const t = WALLET_TEXT[input.lang];
  const config = { sessionId: input.sessionId, lang: input.lang, text: { save: t.save, saving: t.saving, unavailable: t.unavailable, cardTitle: t.cardTitle } };
  // The card component takes the merchant's colours from its session; the Save button from the page's theme sheet.
  const body = `<main class="panel wallet"><h1>${esc(t.title)}</h1><p class="intro">${esc(fillText(t.intro, { merchant: input.merchantName }))}</p>
<div id="card"></div><p class="alert" id="alert" role="alert" aria-live="assertive"></p>
<button type="button" id="save">${esc(t.save)}</button></main>`;
  return hostedPage({
    lang: input.lang, title: t.title, brand: brandOf(input.merchant ?? null, input.mode), body, stylesheets: ['/wallet/assets/wallet.css'],
    after: `<script type="application/json" id="wallet-config">${jsonForScript(config)}</script>`, scripts: ['/sdk/v1/motu.js', '/wallet/assets/wallet.js'],
  });
}

export function walletDonePage(lang: WalletLang, outcome: string | null, merchant: Merchant | null = null, mode = 'live'): string {
  const t = WALLET_TEXT[lang];
  const text = outcome === 'success' ? t.doneOk : outcome === 'failed' ? t.doneFailed : t.doneError;
  return hostedPage({ lang, title: t.title, brand: brandOf(merchant, mode), body: `<main class="panel wallet"><h1>${esc(t.title)}</h1><p role="status">${esc(text)}</p></main>`, stylesheets: ['/wallet/assets/wallet.css'] });
}
