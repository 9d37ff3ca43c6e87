// Operator admin API, /admin/v1; each call is also a `motu` command (README.md). Authenticated by the admin token.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { IdParams } from '../../http/schemas.js';
import type { MerchantsService } from './merchants.service.js';
import { HEX_COLOR } from './branding.js';

const Rate = Type.Integer({ minimum: 0, maximum: 10_000, description: 'basis points: 250 = 2.50 %' });
const Cents = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'EUR cents' });

export const MerchantBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
const Color = Type.String({ pattern: HEX_COLOR, description: '#rrggbb' });
export const MerchantPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    displayName: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], { description: 'shown to customers; null: the name' })),
    primaryColor: Type.Optional(Type.Union([Color, Type.Null()], { description: 'the Pay button and the SDK default theme; null: the default' })),
    accentColor: Type.Optional(Type.Union([Color, Type.Null()], { description: 'links and focus rings; null: the primary colour' })),
    timezone: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { description: 'IANA time zone of receipts (Pacific/Tahiti); null: MOTU_TIMEZONE' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const ContractBody = Type.Object(
  {
    statementLabel: Type.String({ minLength: 1, maxLength: 22 }),
    commissionRate: Rate,
    fixedFee: Cents,
    authorizationFee: Type.Optional(Cents),
    taxRate: Type.Optional(Rate),
    isDefault: Type.Optional(Type.Boolean()),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const ContractPatch = Type.Partial(ContractBody, { additionalProperties: false });
export const StoreBody = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: Type.Union([Type.Literal('online'), Type.Literal('physical')]),
    contractId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const StorePatch = Type.Object(
  {
    active: Type.Optional(Type.Boolean()),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    contractId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export const KeyBody = Type.Object(
  {
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    permission: Type.Optional(Type.Union([Type.Literal('write'), Type.Literal('read')])),
    storeId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

// Admin routes are authenticated by the operator's token, not by a merchant key (OpenAPI `security`).
const doc = { tags: ['admin'], security: [{ adminToken: [] }] };

export function merchantsRoutes(service: MerchantsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Static<typeof MerchantBody> }>(
      '/merchants',
      { schema: { ...doc, summary: 'Create a merchant with its keys, webhook secrets and default contract', body: MerchantBody } },
      async (request, reply) => reply.code(201).send(await service.createMerchant(request.body)),
    );
    app.get('/merchants', { schema: { ...doc, summary: 'List merchants' } }, async () => ({ data: await service.listMerchants(), hasMore: false }));
    app.get<{ Params: Static<typeof IdParams> }>(
      '/merchants/:id',
      { schema: { ...doc, summary: 'Read a merchant with its contracts and stores', params: IdParams } },
      async (request) => service.getMerchant(request.params.id),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof MerchantPatch> }>(
      '/merchants/:id',
      { schema: { ...doc, summary: "Change a merchant's name, display name and colours", params: IdParams, body: MerchantPatch } },
      async (request) => service.updateMerchant(request.params.id, request.body),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof ContractBody> }>(
      '/merchants/:id/contracts',
      { schema: { ...doc, summary: 'Create a collection contract', params: IdParams, body: ContractBody } },
      async (request, reply) => reply.code(201).send(await service.createContract(request.params.id, request.body)),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof ContractPatch> }>(
      '/contracts/:id',
      { schema: { ...doc, summary: 'Change a contract', params: IdParams, body: ContractPatch } },
      async (request) => service.updateContract(request.params.id, request.body),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof StoreBody> }>(
      '/merchants/:id/stores',
      { schema: { ...doc, summary: 'Create a store', params: IdParams, body: StoreBody } },
      async (request, reply) => reply.code(201).send(await service.createStore(request.params.id, request.body)),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof StorePatch> }>(
      '/stores/:id',
      { schema: { ...doc, summary: 'Change a store', params: IdParams, body: StorePatch } },
      async (request) => service.updateStore(request.params.id, request.body),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof KeyBody> }>(
      '/merchants/:id/keys',
      { schema: { ...doc, summary: 'Create an API key (shown once)', params: IdParams, body: KeyBody } },
      async (request, reply) => reply.code(201).send(await service.createKey(request.params.id, request.body)),
    );
    app.delete<{ Params: Static<typeof IdParams> }>(
      '/keys/:id',
      { schema: { ...doc, summary: 'Revoke an API key', params: IdParams } },
      async (request) => service.revokeKey(request.params.id),
    );
  };
}
