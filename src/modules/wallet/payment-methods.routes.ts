import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import type { WalletService } from './wallet.service.js';

export const PaymentMethod = Type.Object({
  id: Type.String(),
  object: Type.Literal('payment_method'),
  customerId: Type.String(),
  type: Type.Literal('card'),
  brand: Type.String(),
  network: Type.String({ description: 'The network applied: CB for a co-badged card' }),
  networks: Type.Array(Type.String()),
  last4: Type.String(),
  expMonth: Type.Integer(),
  expYear: Type.Integer(),
  fingerprint: Type.String({ description: 'Same value for the same card number, per service instance' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('removed')]),
  removedReason: Type.Union([Type.Literal('deleted'), Type.Literal('disabled'), Type.Literal('unknown_at_acquirer'), Type.Null()]),
  createdAt: Type.String(),
});

const PaymentMethodListQuery = Type.Object(
  { ...ListQuery, status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('removed'), Type.Literal('all')], { default: 'active' })) },
  { additionalProperties: false },
);

const InvalidateBody = Type.Object(
  { reason: Type.Union([Type.Literal('disabled'), Type.Literal('unknown_at_acquirer')]) },
  { additionalProperties: false },
);

const tags = ['wallet'];

export function paymentMethodsRoutes(wallet: WalletService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof PaymentMethodListQuery> }>(
      '/customers/:id/payment-methods',
      { schema: { tags, summary: "List a customer's saved cards, newest first", params: IdParams, querystring: PaymentMethodListQuery, response: { 200: ListOf(PaymentMethod) } } },
      async (request) => wallet.listForCustomer(merchantOf(request), request.params.id, request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/payment-methods/:id',
      { schema: { tags, summary: 'Read a saved card', params: IdParams, response: { 200: PaymentMethod } } },
      async (request) => wallet.get(merchantOf(request), request.params.id),
    );
    app.delete<{ Params: Static<typeof IdParams> }>(
      '/payment-methods/:id',
      { schema: { tags, summary: 'Delete a saved card (payment_method.removed, reason "deleted")', params: IdParams, response: { 200: PaymentMethod } } },
      async (request) => wallet.delete(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof InvalidateBody> }>(
      '/test-helpers/payment-methods/:id/invalidate',
      {
        schema: {
          tags, summary: 'Test mode: the acquirer reports the card disabled or unknown (payment_method.removed with that reason)',
          params: IdParams, body: InvalidateBody, response: { 200: PaymentMethod },
        },
      },
      async (request) => wallet.simulateUnusable(merchantOf(request), request.params.id, request.body.reason),
    );
  };
}
