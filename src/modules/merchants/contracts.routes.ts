// Operator admin API, /admin/v1: a merchant's contracts. Each call is also a `motu` command; authenticated by the admin token.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { IdParams } from '../../http/schemas.js';
import type { ContractsService } from './contracts.service.js';
import { doc } from './merchants.routes.js';
import { Contract } from './merchants.schemas.js';

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
    acquirer: Type.Optional(Type.Union([Type.Literal('simulator'), Type.Literal('monext')], {
      description: "where this contract's live payments go: simulator (none: live card operations answer 503 ACQUIRER_NOT_CONFIGURED) or monext (docs/live.md)",
    })),
    monext: Type.Optional(Type.Object({
      merchantId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Monext's merchant identifier (HTTP Basic user)" })),
      accessKey: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'the access key (HTTP Basic password); sealed at rest, never shown again' })),
      pointOfSaleReference: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
      contractNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: "the card contract's number at Monext" })),
      environment: Type.Optional(Type.Union([Type.Literal('homologation'), Type.Literal('production')])),
    }, { additionalProperties: false, description: 'Monext credentials, merged over those the contract already keeps' })),
  },
  { additionalProperties: false },
);
export const ContractPatch = Type.Partial(ContractBody, { additionalProperties: false });
export function contractsRoutes(service: ContractsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof ContractBody> }>(
      '/merchants/:id/contracts',
      { schema: { ...doc, summary: 'Create a collection contract', params: IdParams, body: ContractBody, response: { 201: Contract } } },
      async (request, reply) => reply.code(201).send(await service.create(request.params.id, request.body)),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof ContractPatch> }>(
      '/contracts/:id',
      { schema: { ...doc, summary: 'Change a contract', params: IdParams, body: ContractPatch, response: { 200: Contract } } },
      async (request) => service.update(request.params.id, request.body),
    );
  };
}
