// Operator admin API, /admin/v1: a merchant's stores. Each call is also a `motu` command; authenticated by the admin token.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { IdParams } from '../../http/schemas.js';
import type { StoresService } from './stores.service.js';
import { doc } from './merchants.routes.js';
import { Store } from './merchants.schemas.js';

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
export function storesRoutes(service: StoresService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof StoreBody> }>(
      '/merchants/:id/stores',
      { schema: { ...doc, summary: 'Create a store', params: IdParams, body: StoreBody, response: { 201: Store } } },
      async (request, reply) => reply.code(201).send(await service.create(request.params.id, request.body)),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof StorePatch> }>(
      '/stores/:id',
      { schema: { ...doc, summary: 'Change a store', params: IdParams, body: StorePatch, response: { 200: Store } } },
      async (request) => service.update(request.params.id, request.body),
    );
  };
}
