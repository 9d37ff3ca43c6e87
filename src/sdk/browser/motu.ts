// Motu web SDK (docs/sdk.md): `Service.mount(options)` renders the card component, whose three card fields
// are the acquirer's secure frames; the page around them (the merchant's) never sees card data, only a
// one-time token that goes straight to Motu with the session id, the browser's only credential.
import { COMPONENT_CSS } from './style.js';
import { fill, formatAmount, langOf, TEXT, type Lang } from './text.js';

type Intent = 'payment' | 'tokenization';
type Defi3ds = 'embarque' | 'redirection';

export interface MotuError { code: string; message: string; redirectUrl?: string | null }

export interface Appearance { colorPrimary?: string; colorBackground?: string; colorText?: string; colorBorder?: string; borderRadius?: string }

export interface MountOptions {
  session: string;
  container: string | HTMLElement;
  onReady?: (info: { intent: Intent; amount: number | null; currency: string | null }) => void;
  onError?: (err: MotuError) => void;
  onSuccess?: (info: { intent: Intent; paymentId?: string; paymentMethodId?: string | null; redirectUrl: string | null; cardNetwork: string | null }) => void;
  title?: string;
  defi3ds?: Defi3ds;
  appearance?: Appearance;
}

export interface Controller {
  readonly intent: Intent;
  readonly amount: number | null;
  readonly currency: string | null;
  submit(): Promise<void>;
  cardNetwork(): string | null;
  unmount(): void;
}

interface SessionInfo {
  id: string; intent: Intent; amount: number | null; currency: string | null; mode: string; locale: string; merchantName: string;
  /** The merchant's colours (server-side branding): the default theme under the page's own `appearance`. */
  theme?: { colorPrimary: string; colorOnPrimary: string } | null;
}

type SubmitResult =
  | { status: 'succeeded'; redirectUrl: string | null; paymentId?: string; paymentMethodId?: string | null; cardNetwork?: string | null }
  | { status: 'challenge'; challengeUrl: string }
  | { status: 'failed' | 'error'; code: string; message: string; redirectUrl?: string | null };

/** In redirection mode the page must have left the site this long after submit(), else AUTHENTIFICATION_NON_DEMARREE. */
const REDIRECT_TIMEOUT_MS = 90_000;
const READY_TIMEOUT_MS = 20_000;
const FIELDS = ['number', 'expiry', 'cvc'] as const;
const SAFE_CSS = /^[#(),.%\w\s-]{1,40}$/;

const scriptUrl = (document.currentScript as HTMLScriptElement | null)?.src ?? '';
const BASE = scriptUrl ? new URL(scriptUrl).origin : window.location.origin;

function browserFit(): boolean {
  return typeof window.fetch === 'function' && typeof window.postMessage === 'function' && typeof BroadcastChannel === 'function'
    && typeof Element.prototype.attachShadow === 'function';
}

function randomChannel(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${BASE}/api/v1/sdk/sessions/${path}`, {
    method, credentials: 'omit', cache: 'no-store',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let parsed: unknown = {};
  try { parsed = await res.json(); } catch { parsed = {}; }
  return { status: res.status, body: parsed as T };
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

async function mount(options: MountOptions): Promise<Controller> {
  const fail = (err: MotuError): never => {
    try { options.onError?.(err); } catch { /* the merchant's handler must not break us */ }
    throw Object.assign(new Error(err.message), { code: err.code });
  };
  if (!options || typeof options.session !== 'string' || !/^ses_[0-9A-Za-z]{10,40}$/.test(options.session)) {
    return fail({ code: 'OPTIONS_INVALIDES', message: 'options.session must be a session id (ses_…)' });
  }
  const container = typeof options.container === 'string' ? document.querySelector(options.container) : options.container;
  if (!(container instanceof HTMLElement)) return fail({ code: 'OPTIONS_INVALIDES', message: 'options.container must select an element of the page' });
  const defi3ds: Defi3ds = options.defi3ds === 'redirection' ? 'redirection' : 'embarque';
  if (!browserFit()) return fail({ code: 'NAVIGATEUR_INCOMPATIBLE', message: TEXT.fr.unfit });

  // Only the request is guarded: fail() throws, and its error must not be taken for a network one.
  let res: { status: number; body: SessionInfo & { code?: string; message?: string } };
  try {
    res = await api<SessionInfo & { code?: string; message?: string }>('GET', encodeURIComponent(options.session));
  } catch {
    return fail({ code: 'RESEAU', message: TEXT.fr.network });
  }
  if (res.status === 410) return fail({ code: 'SESSION_EXPIREE', message: res.body.message ?? TEXT.fr.expired });
  if (res.body.code === 'TOO_MANY_ATTEMPTS') return fail({ code: 'TENTATIVES_EPUISEES', message: TEXT.fr.tooManyAttempts });
  if (res.status !== 200) return fail({ code: 'SESSION_INCONNUE', message: res.body.message ?? TEXT.fr.unknown });
  const session: SessionInfo = res.body;
  const lang: Lang = langOf(session.locale);
  const t = TEXT[lang];
  if (session.mode === 'live') return mountLiveWidget(options, session, container, lang, defi3ds, fail);

  // ---- rendering, inside a shadow root ----
  const host = el('div', { class: 'motu-component', 'data-intent': session.intent });
  const root = host.attachShadow({ mode: 'open' });
  const style = el('style');
  style.textContent = COMPONENT_CSS;
  const a = options.appearance ?? {};
  const merchantTheme = session.theme;
  if (merchantTheme && typeof merchantTheme.colorPrimary === 'string' && SAFE_CSS.test(merchantTheme.colorPrimary)) {
    host.style.setProperty('--motu-primary', merchantTheme.colorPrimary);
    if (typeof merchantTheme.colorOnPrimary === 'string' && SAFE_CSS.test(merchantTheme.colorOnPrimary)) host.style.setProperty('--motu-on-primary', merchantTheme.colorOnPrimary);
  }
  const vars: Array<[keyof Appearance, string]> = [['colorPrimary', '--motu-primary'], ['colorBackground', '--motu-bg'], ['colorText', '--motu-text'], ['colorBorder', '--motu-border'], ['borderRadius', '--motu-radius']];
  for (const [key, cssVar] of vars) {
    const value = a[key];
    if (typeof value === 'string' && SAFE_CSS.test(value)) host.style.setProperty(cssVar, value);
  }
  // Merchant background or text colours fix the palette: dark mode no longer overrides them.
  if (a.colorBackground || a.colorText) host.setAttribute('data-fixed-colors', '');

  const box = el('div', { class: 'motu', part: 'component', role: 'group' });
  const titleText = options.title ?? (session.intent === 'payment' ? t.titlePayment : t.titleTokenization);
  const title = el('p', { class: 'title', id: 'motu-title' }, titleText);
  box.setAttribute('aria-labelledby', 'motu-title');
  const channel = randomChannel();
  const frames: Record<string, HTMLIFrameElement> = {};
  const labels = { number: t.number, expiry: t.expiry, cvc: t.cvc };
  const fieldBox = (field: typeof FIELDS[number]) => {
    const wrap = el('div');
    wrap.append(el('span', { class: 'label', 'aria-hidden': 'true' }, labels[field]));
    const q = new URLSearchParams({ lang, channel, mode: session.mode, session: session.id, origin: window.location.origin });
    const frame = el('iframe', { class: 'field', title: labels[field], src: `${BASE}/acquirer/v1/fields/${field}?${q}`, allowtransparency: 'true' });
    frames[field] = frame;
    wrap.append(frame);
    return wrap;
  };
  const row = el('div', { class: 'row' });
  row.append(fieldBox('expiry'), fieldBox('cvc'));
  const amountText = session.amount !== null && session.currency ? formatAmount(session.amount, session.currency, lang) : '';
  const terms = el('p', { class: 'terms' }, fill(session.intent === 'payment' ? t.termsPayment : t.termsTokenization, { merchant: session.merchantName, amount: amountText }));
  const errorBox = el('p', { class: 'error', role: 'alert', 'aria-live': 'assertive' });
  const challenge = el('div', { class: 'challenge', hidden: '' });
  const challengeTitle = el('p', { class: 'label' }, t.challenge);
  const challengeFrame = el('iframe', { title: t.challenge });
  challenge.append(challengeTitle, challengeFrame);
  const footer = el('footer');
  const networkBadge = el('span', { class: 'badge', 'aria-live': 'polite' });
  footer.append(el('span', {}, t.footer), networkBadge);
  if (session.mode === 'test') footer.append(el('span', { class: 'test' }, t.test));
  box.append(title, fieldBox('number'), row, terms, errorBox, challenge, footer);
  root.append(style, box);

  // ---- messages from the secure frames and the 3-D Secure frame ----
  let brand: string | null = null;
  /** The network the number field detects while typing (CB as soon as the number is a co-badged BIN). */
  let detectedNetwork: string | null = null;
  let tokenNetwork: string | null = null;
  let pendingToken: ((m: { type: string; token?: string; network?: string; message?: string; code?: string }) => void) | null = null;
  let pendingChallenge: ((r: SubmitResult) => void) | null = null;
  const ready = new Set<string>();
  let onAllReady: (() => void) | null = null;

  const listener = (e: MessageEvent) => {
    if (e.origin !== BASE) return;
    const m = (e.data ?? {}) as Record<string, unknown>;
    if (m.source === 'motu-field') {
      const fromFrame = FIELDS.find((f) => frames[f]!.contentWindow === e.source);
      if (!fromFrame) return;
      if (m.type === 'ready') { ready.add(fromFrame); if (ready.size === FIELDS.length) onAllReady?.(); }
      if (m.type === 'state' && fromFrame === 'number') {
        brand = typeof m.brand === 'string' && m.brand !== 'UNKNOWN' ? m.brand : null;
        detectedNetwork = typeof m.network === 'string' && /^[A-Z]{2,12}$/.test(m.network) ? m.network : null;
        tokenNetwork = null;
        networkBadge.textContent = detectedNetwork ?? '';
      }
      if (m.type === 'submit') void controller.submit();
      if ((m.type === 'token' || m.type === 'error') && fromFrame === 'number' && pendingToken) {
        const resolve = pendingToken;
        pendingToken = null;
        resolve(m as never);
      }
    } else if (m.source === 'motu-sdk-3ds' && e.source === challengeFrame.contentWindow && pendingChallenge) {
      const resolve = pendingChallenge;
      pendingChallenge = null;
      resolve(m.result as SubmitResult);
    }
  };
  window.addEventListener('message', listener);
  container.append(host);

  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, READY_TIMEOUT_MS);
    onAllReady = () => { clearTimeout(timer); resolve(); };
  });
  if (ready.size < FIELDS.length) {
    window.removeEventListener('message', listener);
    host.remove();
    return fail({ code: 'CHARGEMENT_IMPOSSIBLE', message: t.network });
  }

  let busy = false;
  let redirectTimer: ReturnType<typeof setTimeout> | null = null;
  const report = (err: MotuError) => {
    errorBox.textContent = err.message;
    try { options.onError?.(err); } catch { /* merchant handler */ }
  };
  const leave = (url: string) => { window.location.assign(url); };

  const finish = (result: SubmitResult) => {
    if (result.status === 'succeeded') {
      if (result.cardNetwork) tokenNetwork = result.cardNetwork;
      try {
        options.onSuccess?.({
          intent: session.intent, ...(result.paymentId ? { paymentId: result.paymentId } : {}),
          ...(session.intent === 'tokenization' ? { paymentMethodId: result.paymentMethodId ?? null } : {}),
          redirectUrl: result.redirectUrl, cardNetwork: tokenNetwork,
        });
      } catch { /* merchant handler */ }
      if (result.redirectUrl) leave(result.redirectUrl);
      return;
    }
    if (result.status === 'challenge') return; // handled by the caller
    if (redirectTimer) { clearTimeout(redirectTimer); redirectTimer = null; }
    const message = result.code === 'NAVIGATEUR_INCOMPATIBLE' ? t.unfit : result.message;
    report({ code: result.code, message, ...(result.redirectUrl ? { redirectUrl: result.redirectUrl } : {}) });
  };

  const controller: Controller = {
    intent: session.intent,
    amount: session.intent === 'payment' ? session.amount : null,
    currency: session.currency,
    cardNetwork() {
      // The acquirer's answer once tokenized; before, what the number field detects (CB for a co-badged card).
      return tokenNetwork ?? detectedNetwork ?? brand;
    },
    unmount() {
      window.removeEventListener('message', listener);
      if (redirectTimer) clearTimeout(redirectTimer);
      host.remove();
    },
    async submit() {
      if (busy) return;
      busy = true;
      errorBox.textContent = '';
      try {
        if (defi3ds === 'redirection') {
          // The page must leave within 90 s; leaving (pagehide) stops the clock.
          if (redirectTimer) clearTimeout(redirectTimer);
          redirectTimer = setTimeout(() => {
            redirectTimer = null;
            report({ code: 'AUTHENTIFICATION_NON_DEMARREE', message: t.notStarted });
          }, REDIRECT_TIMEOUT_MS);
        }
        const tokenMessage = await new Promise<{ type: string; token?: string; network?: string; message?: string; code?: string }>((resolve) => {
          pendingToken = resolve;
          frames.number!.contentWindow?.postMessage({ type: 'tokenize' }, BASE);
        });
        if (tokenMessage.type !== 'token' || !tokenMessage.token) {
          // The session's own refusals keep the codes the submit call would give.
          if (tokenMessage.code === 'TOO_MANY_ATTEMPTS') finish({ status: 'error', code: 'TENTATIVES_EPUISEES', message: t.tooManyAttempts });
          else if (tokenMessage.code === 'SESSION_EXPIRED') finish({ status: 'error', code: 'SESSION_EXPIREE', message: t.expired });
          else finish({ status: 'error', code: tokenMessage.code === 'INVALID_CARD' ? 'CARTE_INVALIDE' : tokenMessage.code ?? 'CARTE_INVALIDE', message: tokenMessage.message ?? t.invalidCard });
          return;
        }
        tokenNetwork = tokenMessage.network ?? null;
        networkBadge.textContent = tokenNetwork ?? '';
        let res: { status: number; body: SubmitResult & { code?: string; message?: string } };
        try {
          res = await api('POST', `${encodeURIComponent(session.id)}/submit`, { token: tokenMessage.token, defi3ds });
        } catch {
          finish({ status: 'error', code: 'RESEAU', message: t.network });
          return;
        }
        if (res.status !== 200) {
          if (res.body.code === 'TOO_MANY_ATTEMPTS') {
            finish({ status: 'error', code: 'TENTATIVES_EPUISEES', message: t.tooManyAttempts });
            return;
          }
          const code = res.status === 410 ? 'SESSION_EXPIREE' : res.body.code ?? 'ERREUR';
          finish({ status: 'error', code, message: res.body.message ?? t.network });
          return;
        }
        let result: SubmitResult = res.body;
        if (result.status === 'challenge') {
          if (defi3ds === 'redirection') { leave(result.challengeUrl); return; }
          challengeFrame.src = `${result.challengeUrl}${result.challengeUrl.includes('?') ? '&' : '?'}lang=${lang}`;
          challenge.hidden = false;
          result = await new Promise<SubmitResult>((resolve) => { pendingChallenge = resolve; });
          challenge.hidden = true;
          challengeFrame.removeAttribute('src');
        }
        finish(result);
      } finally {
        busy = false;
      }
    },
  };
  window.addEventListener('pagehide', () => { if (redirectTimer) { clearTimeout(redirectTimer); redirectTimer = null; } });

  try { options.onReady?.({ intent: session.intent, amount: controller.amount, currency: session.currency }); } catch { /* merchant handler */ }
  return controller;
}

interface WidgetEntry { token: string; scriptUrl: string; styleUrl: string; redirectUrl: string | null }

/**
 * Live mode (docs/live.md): the card is typed in the acquirer's own widget (Monext's), mounted in the page itself
 * (its script finds #PaylineWidget in the document, so the page's CSP lets Monext's origins in: docs/sdk.md). The
 * widget's final state submits its token; `embarque` keeps 3-D Secure inside the widget, `redirection` lets the
 * window go to Monext's page for it. Same callbacks and error codes as the card fields.
 */
async function mountLiveWidget(
  options: MountOptions, session: SessionInfo, container: HTMLElement, lang: Lang, defi3ds: Defi3ds, fail: (err: MotuError) => never,
): Promise<Controller> {
  const t = TEXT[lang];
  let res: { status: number; body: WidgetEntry & { code?: string; message?: string } };
  try {
    res = await api<WidgetEntry & { code?: string; message?: string }>('POST', `${encodeURIComponent(session.id)}/widget`);
  } catch {
    return fail({ code: 'RESEAU', message: t.network });
  }
  if (res.status === 410) return fail({ code: 'SESSION_EXPIREE', message: res.body.message ?? t.expired });
  if (res.body.code === 'TOO_MANY_ATTEMPTS') return fail({ code: 'TENTATIVES_EPUISEES', message: t.tooManyAttempts });
  if (res.status !== 201 || !res.body.token) return fail({ code: 'CHARGEMENT_IMPOSSIBLE', message: res.body.message ?? t.network });
  const entry: WidgetEntry = res.body;
  const callback = `motuWidgetDone_${randomChannel()}`;
  const host = el('div', { class: 'motu-widget', 'data-intent': session.intent });
  const widget = el('div', {
    id: 'PaylineWidget', 'data-token': entry.token, 'data-template': 'column', 'data-auto-init': 'true',
    'data-embeddedredirectionallowed': defi3ds === 'redirection' ? 'true' : 'false', 'data-event-finalstatehasbeenreached': callback,
  });
  const errorBox = el('p', { class: 'motu-error', role: 'alert', 'aria-live': 'assertive' });
  host.append(widget, errorBox);
  container.append(host);
  const style = el('link', { rel: 'stylesheet', href: entry.styleUrl });
  const script = el('script', { src: entry.scriptUrl });
  document.head.append(style, script);

  let busy = false;
  const report = (err: MotuError) => {
    errorBox.textContent = err.message;
    try { options.onError?.(err); } catch { /* merchant handler */ }
  };
  const controller: Controller = {
    intent: session.intent,
    amount: session.intent === 'payment' ? session.amount : null,
    currency: session.currency,
    cardNetwork: () => null,
    unmount() {
      delete (window as unknown as Record<string, unknown>)[callback];
      host.remove();
    },
    async submit() {
      if (busy) return;
      busy = true;
      errorBox.textContent = '';
      try {
        let res: { status: number; body: SubmitResult & { code?: string; message?: string } };
        try {
          res = await api('POST', `${encodeURIComponent(session.id)}/submit`, { token: entry.token, defi3ds });
        } catch {
          report({ code: 'RESEAU', message: t.network });
          return;
        }
        if (res.status !== 200) {
          if (res.body.code === 'TOO_MANY_ATTEMPTS') report({ code: 'TENTATIVES_EPUISEES', message: t.tooManyAttempts });
          else report({ code: res.status === 410 ? 'SESSION_EXPIREE' : res.body.code ?? 'ERREUR', message: res.body.message ?? t.network });
          return;
        }
        const result = res.body;
        if (result.status === 'challenge') {
          // Not finished: 3-D Secure goes on in the widget, or, in redirection mode, on Monext's page.
          if (defi3ds === 'redirection' && result.challengeUrl) window.location.assign(result.challengeUrl);
          return;
        }
        if (result.status === 'succeeded') {
          try {
            options.onSuccess?.({
              intent: session.intent, ...(result.paymentId ? { paymentId: result.paymentId } : {}),
              ...(session.intent === 'tokenization' ? { paymentMethodId: result.paymentMethodId ?? null } : {}),
              redirectUrl: result.redirectUrl, cardNetwork: result.cardNetwork ?? null,
            });
          } catch { /* merchant handler */ }
          if (result.redirectUrl) window.location.assign(result.redirectUrl);
          return;
        }
        report({ code: result.code, message: result.code === 'NAVIGATEUR_INCOMPATIBLE' ? t.unfit : result.message, ...(result.redirectUrl ? { redirectUrl: result.redirectUrl } : {}) });
      } finally {
        busy = false;
      }
    },
  };
  (window as unknown as Record<string, unknown>)[callback] = () => { void controller.submit(); };
  try { options.onReady?.({ intent: session.intent, amount: controller.amount, currency: session.currency }); } catch { /* merchant handler */ }
  return controller;
}

const Service = { version: '1', mount };
(window as unknown as { Service: typeof Service }).Service = Service;
