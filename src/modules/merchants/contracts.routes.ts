// Operator admin API, /admin/v1: a merchant's contracts. Each call is also a `motu` command; authenticated by the admin token.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { IdParams } from '../../http/schemas.js';
import type { ContractsService } from './contracts.service.js';
import { doc } from './merchants.routes.js';

const Rate = Type.Integer({ minimum: 0, maximum: 10_000, description: 'basis points: 250 = 2.50 %' });
const Cents = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'EUR cents' });

export const ContractBody = Type.Object(
  {
    statementLabel: Type.String({ minLength: 1, maxLength: 22 }),
    commissionRate: Rate,
    fixedFee: Cents,
    authorizationFee: Type.Optional(Cents),
    taxRate: Type.Optional(Rate),
    disputeFee: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'EUR cents Motu charges per chargeback (default 1500, no tax)' })),
    isDefault: Type.Optional(Type.Boolean()),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const ContractPatch = Type.Partial(ContractBody, { additionalProperties: false });
export function contractsRoutes(service: ContractsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof ContractBody> }>(
      '/merchants/:id/contracts',
      { schema: { ...doc, summary: 'Create a collection contract', params: IdParams, body: ContractBody } },
      async (request, reply) => reply.code(201).send(await service.create(request.params.id, request.body)),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof ContractPatch> }>(
      '/contracts/:id',
      { schema: { ...doc, summary: 'Change a contract', params: IdParams, body: ContractPatch } },
      async (request) => service.update(request.params.id, request.body),
    );
  };
}
