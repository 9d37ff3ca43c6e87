// The acquirer's browser-facing routes, all under /acquirer/: the three secure fields, their assets,
// the token endpoint the fields post card data to, and the simulated 3-D Secure bank page.
// Card data arrives only at POST /acquirer/v1/tokens and leaves only as a one-time token.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import rateLimit from '@fastify/rate-limit';
import { Type } from 'typebox';
import { FAVICON_LINK } from '../../http/favicon.js';
import { esc, jsonForScript, sendHtml } from '../../http/html.js';
import { AppError } from '../../shared/errors.js';
import type { Mode } from '../../modules/merchants/merchants.table.js';
import { formatAmount, isCurrency } from '../../shared/money.js';
import { liveCardsElsewhere, type Acquirers } from '../acquirers.js';
import { FIELDS_JS } from './fields-script.js';
import { FIELDS_CSS } from './fields-style.js';
import { BANK_TEXT, FIELD_TEXT, langOf } from './fields.messages.js';

export type FieldName = 'number' | 'expiry' | 'cvc';

/** Strict policy of the field frames: only our own script, style and token endpoint. */
const FIELD_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self' data:",
  "form-action 'none'", "base-uri 'none'", 'frame-ancestors *',
].join('; ');

const TokenBody = Type.Object({
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  number: Type.String({ minLength: 12, maxLength: 23 }),
  expMonth: Type.Integer({ minimum: 1, maximum: 12 }),
  expYear: Type.Integer({ minimum: 0, maximum: 9999 }),
  cvc: Type.String({ minLength: 3, maxLength: 4 }),
  /** The payment or wallet session the fields are mounted for (`ses_…`): its token budget is spent. */
  session: Type.String({ minLength: 1, maxLength: 100 }),
}, { additionalProperties: false });

/**
 * Takes one of the session's card tokens, or throws (unknown session, closed session, budget spent); `q`: the
 * transaction to take it in, by default a statement of its own.
 */
export type TakeTokenSlot = (sessionId: string, mode: Mode, q?: Kysely<DB>) => Promise<void>;

export interface TokenLimits {
  /** Per client address and minute (MOTU_TOKENS_PER_MINUTE). */
  perMinute: number;
  /** Per session, injected: the sessions are Motu's, not the acquirer's. */
  takeTokenSlot: TakeTokenSlot;
}

function safeOrigin(raw: unknown, fallback: string): string {
  if (typeof raw !== 'string' || raw === '') return fallback;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return fallback;
    return url.origin;
  } catch {
    return fallback;
  }
}

export function fieldsRoutes(acquirers: Acquirers, publicUrl: string, limits: TokenLimits): FastifyPluginAsync {
  const ownOrigin = new URL(publicUrl).origin;
  return async (app) => {
    // The token endpoint is anonymous (the card frames call it before a card is sent for a payment) and each call
    // writes a card and a token: bounded per client address (429 RATE_LIMITED with Retry-After) and per open session
    // (MOTU_TOKENS_PER_SESSION, 429 TOO_MANY_ATTEMPTS, never refilled). Unused tokens and their cards are deleted
    // once expired (SimulatorAcquirer.purgeUnusedTokens).
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_request, context) => {
        const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
        return new AppError('RATE_LIMITED', `Too many card tokens from this address; retry in ${seconds} s`, {
          retryAfterSeconds: seconds,
          limit: context.max,
        }) as unknown as object;
      },
    });
    // The bank page's buttons post a plain HTML form (encapsulated: only these routes parse forms).
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    app.get('/acquirer/v1/assets/fields.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(FIELDS_JS));
    app.get('/acquirer/v1/assets/fields.css', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(FIELDS_CSS));

    app.get<{ Params: { field: string }; Querystring: Record<string, string | undefined> }>(
      '/acquirer/v1/fields/:field', { schema: { hide: true } }, async (request, reply) => {
        const field = request.params.field as FieldName;
        if (!['number', 'expiry', 'cvc'].includes(field)) return reply.code(404).send({ code: 'NOT_FOUND', message: 'Unknown field' });
        const q = request.query;
        const lang = langOf(q.lang);
        const t = FIELD_TEXT[lang];
        const channel = /^[A-Za-z0-9_-]{8,64}$/.test(q.channel ?? '') ? q.channel! : 'default';
        const mode: Mode = q.mode === 'live' ? 'live' : 'test';
        const session = /^ses_[A-Za-z0-9]{1,64}$/.test(q.session ?? '') ? q.session! : '';
        const origin = safeOrigin(q.origin, request.host === new URL(publicUrl).host ? ownOrigin : `${request.protocol}://${request.host}`);
        const attrs = {
          number: { label: t.number, placeholder: t.numberPlaceholder, autocomplete: 'cc-number', maxlength: 23 },
          expiry: { label: t.expiry, placeholder: t.expiryPlaceholder, autocomplete: 'cc-exp', maxlength: 9 },
          cvc: { label: t.cvc, placeholder: t.cvcPlaceholder, autocomplete: 'cc-csc', maxlength: 4 },
        }[field];
        const messages = { required: t.required, invalidNumber: t.invalidNumber, invalidExpiry: t.invalidExpiry, pastExpiry: t.pastExpiry,
          invalidCvc: t.invalidCvc, incomplete: t.incomplete, network: t.network, unavailable: t.unavailable,
          tooMany: t.tooMany, expired: t.expired };
        const page = `<!doctype html>
<html lang="${lang}" data-field="${field}" data-channel="${esc(channel)}" data-origin="${esc(origin)}" data-mode="${mode}" data-session="${esc(session)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(attrs.label)}</title>
<link rel="stylesheet" href="/acquirer/v1/assets/fields.css"></head>
<body><div class="wrap">
<input id="f" type="text" inputmode="numeric" autocomplete="${attrs.autocomplete}" aria-label="${esc(attrs.label)}" aria-describedby="err"
 placeholder="${esc(attrs.placeholder)}" maxlength="${attrs.maxlength}" spellcheck="false" autocorrect="off">
${field === 'number' ? '<span class="brand" id="brand" aria-live="polite"></span>' : '<span id="brand" hidden></span>'}
<div class="err" id="err" role="alert"></div></div>
<script type="application/json" id="motu-messages">${jsonForScript(messages)}</script>
<script src="/acquirer/v1/assets/fields.js"></script></body></html>`;
        return sendHtml(reply, page, FIELD_CSP);
      });

    // The only place card data is accepted. Never logged: the body is not in any log line.
    app.post<{ Body: { mode: Mode; number: string; expMonth: number; expYear: number; cvc: string; session: string } }>(
      '/acquirer/v1/tokens', {
        schema: { hide: true, body: TokenBody }, logLevel: 'warn',
        config: { rateLimit: { max: limits.perMinute, timeWindow: 60_000, keyGenerator: (request) => request.ip } },
      }, async (request, reply) => {
        const { session, ...card } = request.body;
        // Live cards are never typed here: a live connector takes them in its own widget (503, before any slot is spent).
        if (card.mode === 'live') throw liveCardsElsewhere();
        const acquirer = acquirers.forMode(card.mode);
        // A refused session leaves no row behind. A slot is spent whatever the acquirer then answers (a number it
        // refuses included): a card tester's tries count. The acquirer takes it in the write of the card and its token.
        const result = await acquirer.tokenize(card, (q) => limits.takeTokenSlot(session, card.mode, q));
        reply.header('cache-control', 'no-store');
        return reply.code(201).send({
          token: result.token, brand: result.brand, network: result.network, networks: result.networks, last4: result.last4,
          expMonth: result.expMonth, expYear: result.expYear,
        });
      });

    // The simulated bank page (3-D Secure challenge) of the test-mode acquirer.
    // A parameter sent twice arrives as an array: refused by the schema (400), not read as a language.
    const bankQuery = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 35 })) });
    app.get<{ Params: { id: string }; Querystring: { lang?: string } }>('/acquirer/v1/3ds/:id', { schema: { hide: true, querystring: bankQuery } }, async (request, reply) => {
      const sim = acquirers.simulator;
      const status = await sim.challengeStatus(request.params.id);
      const lang = langOf(request.query.lang);
      const t = BANK_TEXT[lang];
      if (!status) return reply.code(404).send({ code: 'NOT_FOUND', message: 'Unknown authentication' });
      const amount = isCurrency(status.currency) ? formatAmount(status.amount, status.currency, lang) : `${status.amount} ${status.currency}`;
      const body = status.pending
        ? `<form method="post" action="/acquirer/v1/3ds/${esc(request.params.id)}">
<dl><dt>${t.amount}</dt><dd>${esc(amount)}</dd><dt>${t.card}</dt><dd>${esc(status.brand)} •••• ${esc(status.last4)}</dd></dl>
<div class="actions"><button class="primary" type="submit" name="result" value="authenticated">${t.authenticate}</button>
<button type="submit" name="result" value="failed">${t.fail}</button></div></form>`
        : `<p>${t.done}</p>`;
      const page = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${t.title}</title>${FAVICON_LINK}<link rel="stylesheet" href="/acquirer/v1/assets/fields.css"></head>
<body><main class="bank"><span class="tag">${t.tag}</span><h1>${t.title}</h1><p>${t.intro}</p>${body}</main></body></html>`;
      return sendHtml(reply, page, "default-src 'none'; style-src 'self'; form-action 'self' http: https:; base-uri 'none'; frame-ancestors *");
    });

    app.post<{ Params: { id: string }; Body: { result?: string } }>('/acquirer/v1/3ds/:id', { schema: { hide: true } }, async (request, reply) => {
      const result = request.body?.result === 'authenticated' ? 'authenticated' : 'failed';
      const returnUrl = await acquirers.simulator.recordAuthentication(request.params.id, result);
      if (!returnUrl) return reply.code(404).send({ code: 'NOT_FOUND', message: 'Unknown authentication' });
      return reply.code(303).header('location', returnUrl).send();
    });
  };
}
