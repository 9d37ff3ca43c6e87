// Operator admin API, /admin/v1: a merchant's API keys. Each call is also a `motu` command; authenticated by the admin token.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { IdParams } from '../../http/schemas.js';
import type { ApiKeysService } from './api-keys.js';
import { doc } from './merchants.routes.js';
import { ApiKeyCreated, ApiKeyRevoked } from './merchants.schemas.js';

export const KeyBody = Type.Object(
  {
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    permission: Type.Optional(Type.Union([Type.Literal('write'), Type.Literal('read')])),
    storeId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

export function apiKeysRoutes(service: ApiKeysService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof KeyBody> }>(
      '/merchants/:id/keys',
      { schema: { ...doc, summary: 'Create an API key (shown once)', params: IdParams, body: KeyBody, response: { 201: ApiKeyCreated } } },
      async (request, reply) => reply.code(201).send(await service.create(request.params.id, request.body)),
    );
    app.delete<{ Params: Static<typeof IdParams> }>(
      '/keys/:id',
      { schema: { ...doc, summary: 'Revoke an API key', params: IdParams, response: { 200: ApiKeyRevoked } } },
      async (request) => service.revoke(request.params.id),
    );
  };
}
