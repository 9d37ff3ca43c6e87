// Browser-facing routes of the web SDK: the script under /sdk/v1/, and the session routes the component calls
// under /api/v1/sdk/sessions/{id}/…, authenticated by the session id only. CORS is open on these two families
// (no credentials, no cookies) and nowhere else: secret-key routes never grant a foreign origin.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { esc, jsonForScript, sendHtml } from '../http/html.js';
import { sdkBundle } from './bundle.js';
import type { SdkResult, SdkService, SdkSessionInfo } from './sdk.service.js';
import { AppError } from '../shared/errors.js';
import { Nullable, type Expect, type Same } from '../http/schemas.js';
import type { CardEntry } from '../acquirer/monext/monext.acquirer.js';

const SessionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const SubmitBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 100 }),
    defi3ds: Type.Optional(Type.Union([Type.Literal('embarque'), Type.Literal('redirection')])),
    email: Type.Optional(Type.String({ maxLength: 254 })),
  },
  { additionalProperties: false },
);
const ReturnQuery = Type.Object({
  authorizationId: Type.String({ minLength: 1, maxLength: 64 }),
  defi3ds: Type.Optional(Type.Union([Type.Literal('embarque'), Type.Literal('redirection')])),
});

// What the component reads. Fastify writes each answer through its schema and leaves out any field it does not name:
// the checks below fail the typecheck when an answer and its schema part.
const SdkSession = Type.Object({
  id: Type.String(),
  intent: Type.Union([Type.Literal('payment'), Type.Literal('tokenization')]),
  amount: Nullable(Type.Integer({ description: 'to pay, in minor units (payment intent)' })),
  currency: Nullable(Type.String()),
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  locale: Type.String(),
  merchantName: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  theme: Nullable(Type.Object({ colorPrimary: Type.String(), colorOnPrimary: Type.String() }, { description: "the merchant's colours; null: Motu's default" })),
});
/** The component's next step after a submission: one object, its fields by `status` (SdkResult). */
const SdkSubmitResult = Type.Object({
  status: Type.Union([Type.Literal('succeeded'), Type.Literal('challenge'), Type.Literal('failed'), Type.Literal('error')]),
  redirectUrl: Type.Optional(Nullable(Type.String({ description: 'succeeded, failed or error: where the page goes next' }))),
  paymentId: Type.Optional(Type.String()),
  paymentMethodId: Type.Optional(Nullable(Type.String({ description: 'succeeded: the card saved' }))),
  cardNetwork: Type.Optional(Nullable(Type.String())),
  challengeUrl: Type.Optional(Type.String({ description: 'challenge: the 3-D Secure page to show' })),
  code: Type.Optional(Type.String({ description: 'failed or error: why (NAVIGATEUR_INCOMPATIBLE, a refusal…)', examples: ['do_not_honor'] })),
  message: Type.Optional(Type.String()),
});
const WidgetSession = Type.Object({
  token: Type.String({ description: "the widget session's token (the widget's data-token)" }),
  redirectUrl: Nullable(Type.String({ description: "the acquirer's own payment page for the same session (redirection mode)" })),
  scriptUrl: Type.String(),
  styleUrl: Type.String(),
  environment: Type.String({ description: 'homologation or production' }),
});
type WidgetAnswer = CardEntry & { environment: string };
/** Every field any kind of SdkResult can hold. */
type FieldsOf<T> = T extends unknown ? keyof T : never;
export type SdkAnswersFitSchemas = [
  Expect<Same<Static<typeof SdkSession>, SdkSessionInfo>>,
  Expect<Same<FieldsOf<SdkResult>, keyof Static<typeof SdkSubmitResult>>>,
  Expect<Same<Static<typeof WidgetSession>, WidgetAnswer>>,
];

/** Inside the component's 3-D Secure frame: hand the outcome to the component (which checks our origin). */
const RETURN_JS = `(function(){var r=JSON.parse(document.getElementById('result').textContent);
if(window.parent!==window){window.parent.postMessage({source:'motu-sdk-3ds',result:r},'*');}
else if(r.redirectUrl){window.location.replace(r.redirectUrl);}})();`;

export function corsOpen(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
  reply.header('access-control-allow-headers', 'content-type');
  reply.header('access-control-max-age', '600');
  reply.header('vary', 'origin');
}

/** A live session's widget (docs/live.md): `{token, scriptUrl, styleUrl, redirectUrl, environment}` for the acquirer's own card entry. */
export type StartWidget = (sessionId: string) => Promise<WidgetAnswer>;

export function sdkRoutes(sdk: SdkService, startWidget?: StartWidget) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.addHook('onSend', async (_request, reply, payload) => {
      corsOpen(reply);
      return payload;
    });
    const preflight = async (_request: FastifyRequest, reply: FastifyReply) => reply.code(204).send();
    app.options('/sdk/*', { schema: { hide: true } }, preflight);
    app.options('/api/v1/sdk/*', { schema: { hide: true } }, preflight);

    const script = (immutable: boolean) => async (request: FastifyRequest<{ Params: { hash?: string } }>, reply: FastifyReply) => {
      const bundle = await sdkBundle();
      if (immutable && request.params.hash !== bundle.hash) return reply.code(404).send({ code: 'NOT_FOUND', message: 'No such SDK build; see /sdk/v1/manifest.json' });
      const etag = `"${bundle.hash}"`;
      reply.header('content-type', 'text/javascript; charset=utf-8').header('etag', etag).header('x-content-type-options', 'nosniff')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300, stale-while-revalidate=3600');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.send(bundle.code);
    };
    app.get('/sdk/v1/motu.js', { schema: { hide: true } }, script(false));
    app.get<{ Params: { hash: string } }>('/sdk/v1/motu-:hash.js', { schema: { hide: true } }, script(true));
    app.get('/sdk/v1/manifest.json', { schema: { hide: true } }, async (_request, reply) => {
      const bundle = await sdkBundle();
      return reply.header('cache-control', 'public, max-age=60').send({
        version: 'v1', latest: '/sdk/v1/motu.js', file: `/sdk/v1/motu-${bundle.hash}.js`, integrity: bundle.integrity, gzipBytes: bundle.gzipBytes,
      });
    });
    app.get('/sdk/v1/assets/3ds-return.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(RETURN_JS));

    app.get<{ Params: Static<typeof SessionParams> }>(
      '/api/v1/sdk/sessions/:id',
      { schema: { tags: ['sdk'], summary: 'Browser: the session the component mounts on (session id is the credential)', params: SessionParams, security: [], response: { 200: SdkSession } } },
      async (request, reply) => reply.header('cache-control', 'no-store').send(await sdk.session(request.params.id)),
    );
    app.post<{ Params: Static<typeof SessionParams>; Body: Static<typeof SubmitBody> }>(
      '/api/v1/sdk/sessions/:id/submit',
      { schema: { tags: ['sdk'], summary: 'Browser: submit a one-time card token for this session', params: SessionParams, body: SubmitBody, security: [], response: { 200: SdkSubmitResult } } },
      async (request, reply) => {
        const result = await sdk.submit(request.params.id, request.body.token, request.body.defi3ds ?? 'embarque', request.body.email);
        return reply.header('cache-control', 'no-store').send(result);
      },
    );
    app.post<{ Params: Static<typeof SessionParams> }>(
      '/api/v1/sdk/sessions/:id/widget',
      { schema: { tags: ['sdk'], summary: "Browser, live mode: a session of the acquirer's card widget (Monext) for this session", params: SessionParams, security: [], response: { 201: WidgetSession } } },
      async (request, reply) => {
        if (!startWidget) throw new AppError('ACQUIRER_NOT_CONFIGURED', 'No live acquirer widget on this service');
        return reply.code(201).header('cache-control', 'no-store').send(await startWidget(request.params.id));
      },
    );
    app.get<{ Params: Static<typeof SessionParams>; Querystring: Static<typeof ReturnQuery> }>(
      '/api/v1/sdk/sessions/:id/3ds-return',
      { schema: { hide: true, params: SessionParams, querystring: ReturnQuery } },
      async (request, reply) => {
        const { result, fallbackUrl } = await sdk.completeChallenge(request.params.id, request.query.authorizationId);
        if (request.query.defi3ds === 'redirection') {
          // The whole window went to the bank: send it on to the outcome.
          const target = result.status === 'succeeded' ? result.redirectUrl ?? `/checkout/success?sessionId=${encodeURIComponent(request.params.id)}` : fallbackUrl;
          return reply.code(303).header('location', target).header('cache-control', 'no-store').send();
        }
        const page = `<!doctype html><html><head><meta charset="utf-8"><title>3-D Secure</title></head><body>
<p>${esc(result.status === 'succeeded' ? '✓' : '…')}</p>
<script type="application/json" id="result">${jsonForScript(result)}</script><script src="/sdk/v1/assets/3ds-return.js"></script></body></html>`;
        return sendHtml(reply, page, "default-src 'none'; script-src 'self'; base-uri 'none'; frame-ancestors *");
      },
    );
  };
}
