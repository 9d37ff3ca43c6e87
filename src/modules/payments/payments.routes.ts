import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams, ListOf } from '../../http/schemas.js';
import type { PaymentsService } from './payments.service.js';
import {
  Order, PaymentListQuery, PaymentView, SessionBody, SessionCreated, SessionView, stripUnknown,
} from '../sessions/sessions.schemas.js';
import type { PaymentSessionsService } from '../sessions/sessions.service.js';

const tags = ['payments'];

/**
 * Unknown keys inside `order` are dropped silently (Odoo sends keys of its own there, docs/compatibility.md);
 * unknown top-level fields stay and are refused: dropping one could move money (a misnamed refund amount becoming a
 * full refund).
 */
async function dropUnknownOrderKeys(request: FastifyRequest): Promise<void> {
  const body = request.body as { order?: unknown } | null | undefined;
  if (body && typeof body === 'object' && !Array.isArray(body)) stripUnknown(Order, body.order);
}

export function paymentsRoutes(sessions: PaymentSessionsService, payments: PaymentsService) {
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
    app.get<{ Querystring: Static<typeof PaymentListQuery> }>(
      '/payments',
      {
        schema: {
          tags,
          summary: 'List payments, newest first (filters: status, storeId, customerId, reference)',
          querystring: PaymentListQuery,
          response: { 200: ListOf(PaymentView) },
        },
      },
      async (request) => payments.list(merchantOf(request), request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/payments/:id',
      { schema: { tags, summary: 'Read a payment, including its refusal code', params: IdParams, response: { 200: PaymentView } } },
      async (request) => payments.get(merchantOf(request), request.params.id),
    );
  };
}
