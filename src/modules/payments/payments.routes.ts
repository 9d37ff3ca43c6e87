// Reading payments through the merchant API: the list and one by id.
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams, ListOf } from '../../http/schemas.js';
import type { PaymentsService } from './payments.service.js';
import { PaymentListQuery, PaymentView } from '../sessions/sessions.schemas.js';

const tags = ['payments'];

export function paymentsRoutes(payments: PaymentsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
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
