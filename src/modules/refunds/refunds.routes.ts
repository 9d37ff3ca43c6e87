// Refunds of a captured payment through the merchant API. Thin: the rules live in refunds.service.ts.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { emptyBody } from '../../http/empty-body.js';
import { IdParams, ListOf, Nullable } from '../../http/schemas.js';
import { MAX_AMOUNT } from '../sessions/sessions.schemas.js';
import type { RefundsService } from './refunds.service.js';

const tags = ['payments'];
const Amount = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description });

export const RefundBody = Type.Object(
  {
    amountCents: Type.Optional(Amount("in the payment's original currency (francs for XPF, cents for EUR); absent: the whole remainder")),
    amount: Type.Optional(Amount('same as amountCents; both given and different is a 400')),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
    distribution: Type.Optional(Type.Array(
      Type.Object({
        merchantId: Type.String({ minLength: 1, maxLength: 64, description: 'a seller of the split payment' }),
        amount: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: 'taken from that seller, at most what it has left' }),
      }, { additionalProperties: false }),
      { minItems: 1, maxItems: 50, description: 'a split payment only: what each seller gives back (summing to the refund); absent: in proportion to what each has left' },
    )),
  },
  { additionalProperties: false },
);
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
export function refundsRoutes(refunds: RefundsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof RefundBody> }>(
      '/payments/:id/refund',
      {
        preValidation: emptyBody,
        schema: { tags, summary: 'Refund a captured payment, fully or partly', params: IdParams, body: RefundBody, response: { 201: RefundView } },
      },
      async (request, reply) => reply.code(201).send(await refunds.refund(merchantOf(request), request.params.id, request.body, request.idempotency?.key)),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/payments/:id/refunds',
      { schema: { tags, summary: "A payment's refunds, oldest first", params: IdParams, response: { 200: ListOf(RefundView) } } },
      async (request) => refunds.listRefunds(merchantOf(request), request.params.id),
    );
  };
}
