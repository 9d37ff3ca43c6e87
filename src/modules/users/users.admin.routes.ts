// Operator admin API, /admin/v1: a merchant's first back-office user (`motu users create`), with its set-up link.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { IdParams, type Expect, type Same } from '../../http/schemas.js';
import { doc } from '../merchants/merchants.routes.js';
import type { UsersService, UserView } from './users.service.js';
import { ROLES } from './users.table.js';

export const UserBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254 }),
  role: Type.Union(ROLES.map((r) => Type.Literal(r))),
}, { additionalProperties: false });

/** A back-office user as the admin API answers it (every field of UserView: Fastify leaves out what is not named). */
export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Type.Enum(ROLES),
  status: Type.Union([Type.Literal('invited'), Type.Literal('active')], { description: 'invited: the set-up link is not used yet' }),
  twoFactorEnabled: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  lastSignInAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const UserCreated = Type.Object({
  ...User.properties,
  setupUrl: Type.Union([Type.String(), Type.Null()], { description: 'the one-time set-up link; null when it was mailed to the user' }),
});
const UserList = Type.Object({ data: Type.Array(User) });
export type UserFitsView = Expect<Same<Static<typeof User>, UserView>>;

export function usersAdminRoutes(users: UsersService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof UserBody> }>(
      '/merchants/:id/users',
      { schema: { ...doc, summary: 'Create a back-office user; answers its one-time set-up link', params: IdParams, body: UserBody, response: { 201: UserCreated } } },
      async (request, reply) => {
        const created = await users.create(request.params.id, request.body);
        return reply.code(201).send({ ...created.user, setupUrl: created.setupUrl });
      },
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/merchants/:id/users',
      { schema: { ...doc, summary: 'The back-office users of a merchant', params: IdParams, response: { 200: UserList } } },
      async (request) => ({ data: await users.list(request.params.id) }),
    );
  };
}
