// Payment sessions (hosted checkout and the SDK) and payment links (a session that lives days), through the merchant
// API. Thin: the rules live in sessions.service.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams } from '../../http/schemas.js';
import { CreatedPaymentStatus, Order, SessionBody, SessionCreated, SessionView, StoreRef, stripUnknown } from './sessions.schemas.js';
import type { PaymentSessionsService } from './sessions.service.js';

const tags = ['payments'];

export const LinkCreated = Type.Object({
  paymentId: Type.String(),
  linkId: Type.String({ description: 'lnk_…' }),
  linkUrl: Type.String(),
  expiresAt: Type.String(),
  sessionId: Type.String(),
  store: StoreRef,
  status: CreatedPaymentStatus,
  externalId: Type.Union([Type.String(), Type.Null()]),
});

/** Payment links live 7 days unless `expiresIn` says otherwise: an invitation sent to a customer lives days. */
export const LINK_DEFAULT_EXPIRES_IN = 7 * 86_400;

/**
 * A session's body, with the link's own default lifetime and both URLs optional: a link is often sent from an app or
 * a back office with no page to return to (the customer then stays on the success page) and no per-payment hook
 * (events still go to the registered endpoints).
 */
export const LinkBody = Type.Object(
  {
    ...SessionBody.properties,
    redirectUrl: Type.Optional(SessionBody.properties.redirectUrl),
    notificationUrl: Type.Optional(SessionBody.properties.notificationUrl),
    expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 2_592_000, default: LINK_DEFAULT_EXPIRES_IN, description: 'seconds' })),
  },
  { additionalProperties: false },
);

/**
 * Unknown keys inside `order` are dropped silently (Odoo sends keys of its own there, docs/compatibility.md);
 * unknown top-level fields stay and are refused: dropping one could move money (a misnamed refund amount becoming a
 * full refund).
 */
export async function dropUnknownOrderKeys(request: FastifyRequest): Promise<void> {
  const body = request.body as { order?: unknown } | null | undefined;
  if (body && typeof body === 'object' && !Array.isArray(body)) stripUnknown(Order, body.order);
}

export function sessionsRoutes(sessions: PaymentSessionsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Static<typeof SessionBody> }>(
      '/payments/sessions',
      {
        preValidation: dropUnknownOrderKeys,
        schema: {
          tags,
          summary: 'Create a payment session (hosted checkout and SDK)',
          body: SessionBody,
          response: { 201: SessionCreated },
        },
      },
      async (request, reply) => reply.code(201).send(await sessions.create(merchantOf(request), request.body, { idempotencyKey: request.idempotency?.key })),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/payments/sessions/:id',
      { schema: { tags, summary: 'Read a payment session', params: IdParams, response: { 200: SessionView } } },
      async (request) => sessions.get(merchantOf(request), request.params.id),
    );
    app.post<{ Body: Static<typeof LinkBody> }>(
      '/payments/links',
      {
        preValidation: dropUnknownOrderKeys,
        schema: { tags, summary: 'Create a payment link (a session that lives days, default 7)', body: LinkBody, response: { 201: LinkCreated } },
      },
      async (request, reply) => {
        const created = await sessions.create(merchantOf(request), request.body, {
          channel: 'link', defaultExpiresIn: LINK_DEFAULT_EXPIRES_IN, idempotencyKey: request.idempotency?.key,
        });
        const linkId = await sessions.linkIdOf(created.sessionId);
        return reply.code(201).send({ ...created, linkId, linkUrl: created.checkoutUrl });
      },
    );
  };
}
