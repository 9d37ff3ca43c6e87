// The merchant's lifecycle operations on a payment (docs/payments.md, Lifecycle): capture, cancel, refund, the
// refunds list, and payment links. Thin: the rules live in lifecycle.service.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { AppError } from '../../shared/errors.js';
import { IdParams, ListOf } from '../../http/schemas.js';
import { stripUnknown } from '../sessions/sessions.schemas.js';
import type { PaymentLifecycleService } from './lifecycle.service.js';
import type { PaymentsService } from './payments.service.js';
import { MAX_AMOUNT, Order, PaymentView, SessionBody, StoreRef } from '../sessions/sessions.schemas.js';
import type { PaymentSessionsService } from '../sessions/sessions.service.js';

const tags = ['payments'];
const Amount = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description });

export const CaptureBody = Type.Object(
  { amount: Type.Optional(Amount('original currency minor unit; absent: the whole authorized amount')) },
  { additionalProperties: false },
);
export const RefundBody = Type.Object(
  {
    amountCents: Type.Optional(Amount("in the payment's original currency (francs for XPF, cents for EUR); absent: the whole remainder")),
    amount: Type.Optional(Amount('same as amountCents; both given and different is a 400')),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
export const RefundView = Type.Object({
  id: Type.String({ description: 're_…' }),
  object: Type.Literal('refund'),
  paymentId: Type.String(),
  status: Type.String({ description: 'pending, succeeded or failed' }),
  amount: Type.Integer(),
  currency: Type.String(),
  originalAmount: Type.Integer(),
  originalCurrency: Type.String(),
  amountCents: Type.Integer({ description: 'EUR cents' }),
  reason: Nullable(Type.String()),
  failureReason: Nullable(Type.String()),
  createdAt: Type.String(),
});
export const LinkCreated = Type.Object({
  paymentId: Type.String(),
  linkId: Type.String({ description: 'lnk_…' }),
  linkUrl: Type.String(),
  expiresAt: Type.String(),
  sessionId: Type.String(),
  store: StoreRef,
  status: Type.String(),
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

async function dropUnknownOrderKeys(request: FastifyRequest): Promise<void> {
  const body = request.body as { order?: unknown } | null | undefined;
  if (body && typeof body === 'object' && !Array.isArray(body)) stripUnknown(Order, body.order);
}

/**
 * A POST without a body is an empty object (capture, cancel and refund take an optional one). So is `[]`: PHP's
 * `json_encode([])` of an empty options array, which the PHP client sends for a full refund. Done before validation
 * and before the Idempotency-Key's request hash, so no body, `{}` and `[]` are one and the same request.
 */
async function emptyBody(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (body === undefined || body === null || (Array.isArray(body) && body.length === 0)) request.body = {};
}

export function lifecycleRoutes(lifecycle: PaymentLifecycleService, payments: PaymentsService, sessions: PaymentSessionsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
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
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof CaptureBody> }>(
      '/payments/:id/capture',
      {
        preValidation: emptyBody,
        schema: { tags, summary: 'Capture an authorized payment, fully or partly', params: IdParams, body: CaptureBody, response: { 200: PaymentView } },
      },
      async (request) => {
        const owner = merchantOf(request);
        const retryOf = request.idempotency?.retryOf;
        try {
          await lifecycle.capture(owner, request.params.id, request.body.amount);
        } catch (err) {
          // A run of this request that died after capturing (its key abandoned): answered as it would have been.
          if (!(err instanceof AppError && err.code === 'PAYMENT_NOT_CAPTURABLE' && retryOf
            && await lifecycle.capturedSince(owner, request.params.id, request.body.amount, retryOf))) throw err;
        }
        return payments.get(owner, request.params.id);
      },
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/payments/:id/cancel',
      {
        preValidation: emptyBody,
        schema: {
          tags, summary: 'Cancel a pending or authorized, uncaptured payment', params: IdParams,
          body: Type.Object({}, { additionalProperties: false }), response: { 200: PaymentView },
        },
      },
      async (request) => {
        const owner = merchantOf(request);
        const retryOf = request.idempotency?.retryOf;
        try {
          await lifecycle.cancel(owner, request.params.id);
        } catch (err) {
          // A run of this request that died after cancelling (its key abandoned): answered as it would have been.
          if (!(err instanceof AppError && err.code === 'PAYMENT_NOT_CANCELLABLE' && retryOf
            && await lifecycle.cancelledSince(owner, request.params.id, retryOf))) throw err;
        }
        return payments.get(owner, request.params.id);
      },
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof RefundBody> }>(
      '/payments/:id/refund',
      {
        preValidation: emptyBody,
        schema: { tags, summary: 'Refund a captured payment, fully or partly', params: IdParams, body: RefundBody, response: { 201: RefundView } },
      },
      async (request, reply) => reply.code(201).send(await lifecycle.refund(merchantOf(request), request.params.id, request.body, request.idempotency?.key)),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/payments/:id/refunds',
      { schema: { tags, summary: "A payment's refunds, oldest first", params: IdParams, response: { 200: ListOf(RefundView) } } },
      async (request) => lifecycle.listRefunds(merchantOf(request), request.params.id),
    );
  };
}
