// Server-rendered HTML of the hosted payment pages: checkout, success, failure, inactive session.
import { randomBytes } from 'node:crypto';
import { FAVICON_LINK } from '../../http/favicon.js';
import { esc, jsonForScript } from '../../http/html.js';
import type { CardState, CheckoutContext } from '../../modules/checkout/checkout.service.js';
import { money } from '../format.js';
import { displayName } from '../../modules/merchants/branding.js';
import { hostedPage, type Brand } from '../hosted/layout.js';

export { pageTheme } from '../hosted/layout.js';
import { fill, TEXT, type Lang } from './checkout.messages.js';


/** The header's facts of a checkout: the merchant, its store, the session's mode. */
function brandOf(ctx: CheckoutContext): Brand {
  return { merchant: ctx.merchant, storeName: ctx.store?.name ?? null, mode: ctx.session.mode };
}

const CLOSE_ICON = '<svg aria-hidden="true" focusable="false" viewBox="0 0 16 16"><path d="M3.5 3.5l9 9m0-9l-9 9" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>';
/** A clock (the session ran out of time), drawn, hidden from assistive technology: the heading says it. */
const CLOCK_ICON = '<svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="28" height="28"><circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" stroke-width="2"/><path d="M12 7v5l3 2" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>';

interface OrderItem { product?: string; description?: string; unitPrice: number; quantity: number; discount?: number }

function orderSummary(ctx: CheckoutContext, lang: Lang): string {
  const t = TEXT[lang];
  const { payment } = ctx;
  const order = JSON.parse(payment.order_json) as { items?: OrderItem[]; reference?: string; amount: number; taxDetail?: { rate?: number } };
  const items = (order.items ?? []).map((item) => `<li><span>${esc(item.product ?? item.description ?? '')}
<span class="q"> × ${item.quantity}</span></span><span>${esc(money(item.unitPrice * item.quantity - (item.discount ?? 0), payment.currency, lang))}</span></li>`).join('');
  const taxLines = payment.is_incl_tax_amount === 0
    ? `<dt>${t.subtotal}</dt><dd>${esc(money(payment.amount - payment.tax_amount, payment.currency, lang))}</dd>
<dt>${t.taxes}${order.taxDetail?.rate !== undefined ? ` (${esc(formatRate(order.taxDetail.rate, lang))})` : ''}</dt><dd>${esc(money(payment.tax_amount, payment.currency, lang))}</dd>`
    : '';
  return `<section class="panel" aria-labelledby="order-title"><h2 id="order-title">${t.order}</h2>
<p class="total-big">${esc(money(payment.amount, payment.currency, lang))}</p>
${items ? `<ul class="items">${items}</ul>` : ''}
<dl class="sum">${taxLines}<dt class="grand">${t.total}</dt><dd class="grand">${esc(money(payment.amount, payment.currency, lang))}</dd></dl>
${order.reference ? `<p class="ref">${t.reference} ${esc(order.reference)}</p>` : ''}</section>`;
}

function formatRate(basisPoints: number, lang: Lang): string {
  const whole = Math.floor(basisPoints / 100);
  const frac = basisPoints % 100;
  const text = frac === 0 ? String(whole) : `${whole}${lang === 'fr' ? ',' : '.'}${String(frac).padStart(2, '0').replace(/0$/, '')}`;
  return lang === 'fr' ? `${text}\u00a0%` : `${text}%`;
}

/**
 * `mailsReceipt`: a receipt will go out by mail, so the email field may promise one. `card`: the card chosen when the
 * page opens, 'new' (the card form, from the failure page's "Use another card") or a saved card's id (its "Try
 * again" after a saved card); by default the first saved card, or the card form when there is none.
 */
export function checkoutPage(ctx: CheckoutContext, lang: Lang, hostOrigin: string, mailsReceipt = false, card?: string): string {
  const t = TEXT[lang];
  const { session, payment } = ctx;
  const amount = money(payment.amount, payment.currency, lang);
  const payLabel = `${t.pay} ${amount}`;
  const channel = randomBytes(12).toString('hex');
  const frame = (field: 'number' | 'expiry' | 'cvc', title: string) =>
    `<iframe class="secure-frame" id="frame-${field}" title="${esc(title)}" src="/acquirer/v1/fields/${field}?lang=${lang}&amp;channel=${channel}&amp;mode=${session.mode}&amp;session=${encodeURIComponent(session.id)}&amp;origin=${encodeURIComponent(hostOrigin)}"></iframe>`;
  const needsEmail = !session.email && !payment.email;
  // Live mode: the card is typed in the acquirer's widget (Monext), mounted by the script once asked for.
  const widget = session.mode === 'live';
  const chosen = card === 'new' ? 'new' : (ctx.savedCards.find((c) => c.id === card) ?? ctx.savedCards[0])?.id ?? 'new';
  const savedChosen = chosen !== 'new';
  const saved = ctx.savedCards.length > 0
    ? `<fieldset class="saved"><legend>${t.savedCards}</legend>
${ctx.savedCards.map((c) => `<label class="choice"><input type="radio" name="card" value="${esc(c.id)}"${c.id === chosen ? ' checked' : ''}> ${esc(c.brand)} •••• ${esc(c.last4)}</label>`).join('')}
<label class="choice"><input type="radio" name="card" value="new"${savedChosen ? '' : ' checked'}> ${t.newCard}</label></fieldset>`
    : '';
  const save = session.allow_save_payment_method === 1 && !widget
    ? `<div id="save-block" class="check"${savedChosen ? ' hidden' : ''}><input type="checkbox" id="save-card"${session.save_payment_method_default === 1 ? ' checked' : ''}><label for="save-card">${t.saveCard}</label></div>`
    : '';
  const config = {
    sessionId: session.id, lang, widget,
    text: { processing: t.processing, payLabel, emailInvalid: t.emailInvalid, browserUnfit: t.browserUnfit, unavailable: t.unavailable,
      network: t.network, fieldsError: t.fieldsError, challengeCancelled: t.challengeCancelled, payFailed: t.payFailed },
  };
  const body = `<main class="grid">
${orderSummary(ctx, lang)}
<section class="panel" aria-labelledby="pay-title"><h1 id="pay-title">${t.payByCard}</h1>
<form id="pay-form" novalidate>
${needsEmail ? `<div class="field"><label class="label" for="email">${t.email}</label>
<input type="email" id="email" name="email" autocomplete="email" required aria-describedby="${mailsReceipt ? 'email-hint ' : ''}email-error">
${mailsReceipt ? `<div class="hint" id="email-hint">${t.emailHint}</div>` : ''}<div class="alert" id="email-error" aria-live="polite"></div></div>` : ''}
${saved}
<div id="card-block" role="group" aria-labelledby="card-title"${savedChosen ? ' hidden' : ''}><h2 id="card-title">${t.cardDetails}</h2>
${widget ? '<div id="widget-block" class="widget"></div>' : `<div class="field"><span class="label" aria-hidden="true">${t.cardNumber}</span>${frame('number', t.cardNumber)}</div>
<div class="row"><div class="field"><span class="label" aria-hidden="true">${t.expiry}</span>${frame('expiry', t.expiry)}</div>
<div class="field"><span class="label" aria-hidden="true">${t.cvc}</span>${frame('cvc', t.cvc)}</div></div>`}</div>
${save}
<div class="alert" id="alert" role="alert" aria-live="assertive"></div>
<button type="submit" class="pay" id="pay">${esc(payLabel)}</button>
</form>
<a class="cancel" rel="nofollow" href="/api/internal/checkout-cancel?sessionId=${encodeURIComponent(session.id)}">${t.cancel}</a>
</section></main>
<p class="foot">${t.poweredBy}</p>`;
  const after = `<dialog id="challenge" aria-labelledby="challenge-title"><div class="dialog-head"><h2 id="challenge-title">${t.challengeTitle}</h2>
<button type="button" class="close" id="challenge-close" aria-label="${esc(t.challengeClose)}">${CLOSE_ICON}</button></div>
<iframe id="challenge-frame" title="3-D Secure"></iframe></dialog>
<script type="application/json" id="checkout-config">${jsonForScript(config)}</script>`;
  return hostedPage({ lang, title: `${t.title} · ${displayName(ctx.merchant)}`, brand: brandOf(ctx), body, after, scripts: ['/checkout/assets/checkout.js'] });
}

export function successPage(ctx: CheckoutContext, lang: Lang, backUrl: string | null, receiptUrl: string): string {
  const t = TEXT[lang];
  const { payment } = ctx;
  const authorizedOnly = payment.status === 'transit';
  const orderRef = orderReference(payment.order_json);
  const body = `<main class="panel result">
<div class="icon ok" aria-hidden="true">✓</div><h1>${t.successTitle}</h1>
<p>${esc(fill(authorizedOnly ? t.authorizedText : t.successText, { merchant: displayName(ctx.merchant) }))}</p>
<dl class="sum"><dt>${t.amountPaid}</dt><dd>${esc(money(payment.amount, payment.currency, lang))}</dd>
${orderRef ? `<dt>${t.reference}</dt><dd id="order-reference">${esc(orderRef)}</dd>` : ''}
${payment.card_brand ? `<dt>${t.card}</dt><dd>${esc(payment.card_brand)} •••• ${esc(payment.card_last4)}</dd>` : ''}
<dt>${t.paymentRef}</dt><dd>${esc(payment.reference)}</dd></dl>
<div class="actions"><a class="button" href="${esc(receiptUrl)}" download>${t.receipt}</a>
${backUrl ? `<a class="button secondary" href="${esc(backUrl)}">${esc(fill(t.backToMerchant, { merchant: displayName(ctx.merchant) }))}</a>` : ''}</div>
</main>`;
  return hostedPage({ lang, title: t.successTitle, brand: brandOf(ctx), body });
}

/** The merchant's own reference of the order (`order.reference`), if it gave one. */
function orderReference(orderJson: string): string | null {
  const reference = (JSON.parse(orderJson) as { reference?: unknown }).reference;
  return typeof reference === 'string' && reference !== '' ? reference : null;
}

/**
 * `retry`: whether the session still takes a card (CheckoutService.cardState). "Try again" opens the card form with
 * the refused card chosen again when it is a saved one; "Use another card" opens it on a new card, the saved ones
 * unselected, and moves to the card's fields.
 */
export function failedPage(ctx: CheckoutContext, lang: Lang, retry: CardState, backUrl: string | null): string {
  const t = TEXT[lang];
  const { payment, session } = ctx;
  const reason = (payment.refusal_code && t.refusals[payment.refusal_code]) || t.refusalDefault;
  const page = `/checkout/${encodeURIComponent(session.id)}`;
  const refusedSaved = ctx.savedCards.find((c) => c.last4 === payment.card_last4 && c.brand === payment.card_brand);
  const retryUrl = refusedSaved ? `${page}?card=${encodeURIComponent(refusedSaved.id)}` : page;
  const otherUrl = `${page}?card=new#card-title`;
  const body = `<main class="panel result">
<div class="icon ko" aria-hidden="true">!</div><h1>${t.failedTitle}</h1>
<p>${esc(fill(t.failedText, { merchant: displayName(ctx.merchant) }))}</p>
<p><strong>${t.reason}</strong> ${esc(reason)}</p>
${retry === 'exhausted' ? `<p id="attempts-exhausted">${esc(fill(t.attemptsExhausted, { merchant: displayName(ctx.merchant) }))}</p>` : ''}
<div class="actions">${retry === 'open' ? `<a class="button" id="retry" href="${esc(retryUrl)}">${t.retry}</a><a class="button secondary" id="other-card" href="${esc(otherUrl)}">${t.otherCard}</a>` : ''}
${backUrl ? `<a class="button secondary" href="${esc(backUrl)}">${esc(fill(t.backToMerchant, { merchant: displayName(ctx.merchant) }))}</a>` : ''}</div>
</main>`;
  return hostedPage({ lang, title: t.failedTitle, brand: brandOf(ctx), body });
}

/** The page of a session no longer active; with its merchant's header when the session is known. */
export function expiredPage(lang: Lang, brand: Brand | null = null, title?: string): string {
  const t = TEXT[lang];
  return hostedPage({ lang, title: title ?? t.expiredTitle, brand, body: `<main class="panel result"><div class="icon ko" aria-hidden="true">${CLOCK_ICON}</div>
<h1>${esc(title ?? t.expiredTitle)}</h1><p>${t.expiredText}</p></main>` });
}

/**
 * A page that moves the whole window on to `url` (after 3-D Secure, and from the outcome pages to the merchant):
 * loaded for real, so a mobile web view watching /checkout/success or /checkout/failed sees it.
 */
export function returnPage(url: string, lang: Lang = 'fr'): string {
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${TEXT[lang].continue}</title>${FAVICON_LINK}</head>
<body><main><a id="next" href="${esc(url)}" target="_top">${TEXT[lang].continue}</a></main><script src="/checkout/assets/return.js"></script></body></html>`;
}

/** The page of a session already paid, opened again: nothing to pay, the way back to the merchant. */
export function paidPage(ctx: CheckoutContext, lang: Lang, backUrl: string | null): string {
  const t = TEXT[lang];
  const name = displayName(ctx.merchant);
  const body = `<main class="panel result">
<div class="icon ok" aria-hidden="true">✓</div><h1>${t.paidTitle}</h1>
<p>${esc(fill(t.paidText, { merchant: name }))}</p>
${backUrl ? `<div class="actions"><a class="button" href="${esc(backUrl)}">${esc(fill(t.backToMerchant, { merchant: name }))}</a></div>` : ''}
</main>`;
  return hostedPage({ lang, title: t.paidTitle, brand: brandOf(ctx), body });
}
