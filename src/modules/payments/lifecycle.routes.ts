// The merchant's capture and cancel of a payment (docs/payments.md, Lifecycle). Thin: the rules, and the answer to a
// retry of a request that died mid-way, live in lifecycle.service.ts.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { emptyBody } from '../../http/empty-body.js';
import { IdParams } from '../../http/schemas.js';
import { MAX_AMOUNT, PaymentView } from '../sessions/sessions.schemas.js';
import type { PaymentLifecycleService } from './lifecycle.service.js';
import type { PaymentsService } from './payments.service.js';

const tags = ['payments'];
const Amount = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description });

export const CaptureBody = Type.Object(
  { amount: Type.Optional(Amount('original currency minor unit; absent: the whole authorized amount')) },
  { additionalProperties: false },
);
export function lifecycleRoutes(lifecycle: PaymentLifecycleService, payments: PaymentsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof CaptureBody> }>(
      '/payments/:id/capture',
      {
        preValidation: emptyBody,
        schema: { tags, summary: 'Capture an authorized payment, fully or partly', params: IdParams, body: CaptureBody, response: { 200: PaymentView } },
      },
      async (request) => {
        const owner = merchantOf(request);
        // The answer is the payment's detail, built from the rows the capture wrote when it can be (no read of the
        // payment after its transaction), else read as GET /payments/{id} reads it.
        const captured = await lifecycle.capture(owner, request.params.id, request.body.amount, request.idempotency?.retryOf);
        return captured ? payments.capturedDetail(captured) : payments.get(owner, request.params.id);
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
        await lifecycle.cancel(owner, request.params.id, request.idempotency?.retryOf);
        return payments.get(owner, request.params.id);
      },
    );
  };
}
