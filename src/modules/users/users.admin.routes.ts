// Operator admin API, /admin/v1: a merchant's first back-office user (`motu users create`), with its set-up link.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { IdParams } from '../../http/schemas.js';
import { doc } from '../merchants/merchants.routes.js';
import type { UsersService } from './users.service.js';
import { ROLES } from './users.table.js';

export const UserBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254 }),
  role: Type.Union(ROLES.map((r) => Type.Literal(r))),
}, { additionalProperties: false });

export function usersAdminRoutes(users: UsersService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof UserBody> }>(
      '/merchants/:id/users',
      { schema: { ...doc, summary: 'Create a back-office user; answers its one-time set-up link', params: IdParams, body: UserBody } },
      async (request, reply) => {
        const created = await users.create(request.params.id, request.body);
        return reply.code(201).send({ ...created.user, setupUrl: created.setupUrl });
      },
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/merchants/:id/users',
      { schema: { ...doc, summary: 'The back-office users of a merchant', params: IdParams } },
      async (request) => ({ data: await users.list(request.params.id) }),
    );
  };
}
