// POST /api/v1/payments: charge a saved card from the merchant's server (merchant-initiated, no customer present).
import type { FastifyInstance } from 'fastify';
import { dropUnknownOrderKeys } from '../sessions/sessions.routes.js';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { FreeJson } from '../../http/json-limits.js';
import { Order, PaymentView, stripUnknown } from '../sessions/sessions.schemas.js';
import type { MerchantPaymentsService } from './merchant-payments.service.js';

const MerchantPaymentBody = Type.Object(
  {
    paymentMethodId: Type.String({ minLength: 1, maxLength: 64, description: 'saved card pm_…' }),
    order: Order,
    captureMode: Type.Optional(Type.Union([Type.Literal('AUTO'), Type.Literal('MANUAL')], { default: 'AUTO' })),
    storeId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    merchantConfigId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    notificationUrl: Type.String({ minLength: 1, maxLength: 2048 }),
    privateData: Type.Optional(FreeJson({ keyMaxLength: 100 })),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);


export function merchantPaymentsRoutes(service: MerchantPaymentsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Static<typeof MerchantPaymentBody> }>(
      '/payments',
      {
        preValidation: dropUnknownOrderKeys,
        schema: {
          tags: ['payments'],
          summary: 'Charge a saved card (merchant-initiated). A refusal is 201 with status failed and its refusalCode',
          body: MerchantPaymentBody,
          response: { 201: PaymentView },
        },
      },
      async (request, reply) => reply.code(201).send(await service.charge(merchantOf(request), request.body, request.idempotency?.key)),
    );
  };
}
