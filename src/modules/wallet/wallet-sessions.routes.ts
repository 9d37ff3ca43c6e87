// Merchant API of card registration: wallet sessions (14 minutes, for a component mounted at once) and card links
// (an invitation that lives days). See docs/wallet.md.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams, Nullable } from '../../http/schemas.js';
import type { WalletSessionsService } from './wallet-sessions.service.js';

const Locale = Type.String({ minLength: 2, maxLength: 5, pattern: '^[A-Za-z]{2}([-_][A-Za-z]{2})?$' });

const WalletSessionBody = Type.Object(
  {
    returnUrl: Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS URL the customer returns to; query gets status (+ paymentMethodId)' }),
    locale: Type.Optional(Locale),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    subscriptionId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'a subscription of the customer: the saved card charges it' })),
  },
  { additionalProperties: false },
);

const WalletSessionCreated = Type.Object({
  redirectUrl: Type.String(),
  sessionId: Type.String(),
  expiresAt: Type.String(),
  customerId: Type.String(),
});

const CardLinkBody = Type.Object(
  {
    expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 2_592_000, description: 'seconds, default 604800 (7 days)' })),
    returnUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    locale: Type.Optional(Locale),
    sendEmail: Type.Optional(Type.Boolean()),
    subscriptionId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'a subscription of the customer: the saved card charges it' })),
  },
  { additionalProperties: false },
);


const CardLink = Type.Object({
  id: Type.String(),
  object: Type.Literal('card_link'),
  customerId: Type.String(),
  url: Type.String(),
  sessionId: Type.String(),
  status: Type.Union([Type.Literal('open'), Type.Literal('completed'), Type.Literal('expired'), Type.Literal('cancelled')], {
    description: "completed once a card is saved through it (a payment session's status says complete: both words are kept as integrations read them)",
  }),
  outcome: Nullable(Type.Union([Type.Literal('success'), Type.Literal('failed'), Type.Literal('error')])),
  paymentMethodId: Nullable(Type.String()),
  returnUrl: Nullable(Type.String()),
  locale: Type.String(),
  sendEmail: Type.Boolean(),
  emailSent: Type.Boolean({ description: 'true once the SMTP server accepted the invitation mail' }),
  emailStatus: Type.Union(['not_requested', 'not_sent', 'queued', 'sent', 'failed', 'skipped'].map((v) => Type.Literal(v)), {
    description: 'not_requested (sendEmail false); not_sent (no mailer configured or no customer email: send url yourself); queued; sent; failed (retries exhausted); skipped (link used or cancelled first)',
  }),
  expiresAt: Type.String(),
  createdAt: Type.String(),
});

const tags = ['wallet'];

export function walletSessionsRoutes(service: WalletSessionsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof WalletSessionBody> }>(
      '/customers/:id/sessions',
      {
        schema: {
          tags, summary: 'Create a wallet session: card registration verified at zero amount, valid 14 minutes',
          params: IdParams, body: WalletSessionBody, response: { 201: WalletSessionCreated },
        },
      },
      async (request, reply) => reply.code(201).send(await service.createSession(merchantOf(request), request.params.id, request.body, request.idempotency?.key)),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof CardLinkBody> }>(
      '/customers/:id/card-links',
      {
        schema: {
          tags, summary: 'Create a card-registration link that lives days (default 7)',
          params: IdParams, body: CardLinkBody, response: { 201: CardLink },
        },
      },
      async (request, reply) => reply.code(201).send(await service.createCardLink(merchantOf(request), request.params.id, request.body ?? {}, request.idempotency?.key)),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/card-links/:id',
      { schema: { tags, summary: 'Read a card link', params: IdParams, response: { 200: CardLink } } },
      async (request) => service.getCardLink(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/card-links/:id/cancel',
      { schema: { tags, summary: 'Cancel an open card link', params: IdParams, response: { 200: CardLink } } },
      async (request) => service.cancelCardLink(merchantOf(request), request.params.id),
    );
  };
}
