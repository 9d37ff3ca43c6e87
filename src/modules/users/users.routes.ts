// The back-office's own session routes (/dashboard/api): signing in and out, the set-up link, the mode switch,
// two-factor and the team. Thin: each validates, calls the users service and shapes the answer.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { Type, type Static } from 'typebox';
import { clearedSessionCookie, sessionCookie } from '../../http/dashboard-auth.js';
import { IdParams } from '../../http/schemas.js';
import { AppError } from '../../shared/errors.js';
import type { MerchantsService } from '../merchants/merchants.service.js';
import type { UserSession, UserSessions } from './user-sessions.js';
import type { UsersService } from './users.service.js';
import { ROLES, type UserRow } from './users.table.js';

const doc = { tags: ['back-office'], hide: true } as const;

const SignInBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
  code: Type.Optional(Type.String({ maxLength: 32 })),
}, { additionalProperties: false });
const SetupBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }), password: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false });
const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) });
const ModeBody = Type.Object({ mode: Type.Union([Type.Literal('test'), Type.Literal('live')]) }, { additionalProperties: false });
const CodeBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 32 }) }, { additionalProperties: false });
const PasswordBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });
const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)));
const InviteBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }), role: RoleSchema }, { additionalProperties: false });
const RoleBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });
const RemoveQuery = Type.Object({ keys: Type.Optional(Type.Union([Type.Literal('revoke'), Type.Literal('hand-over')])) }, { additionalProperties: false });

/** The signed-in user of a route that needs one (the scope's hook resolved the cookie). */
export function signedIn(request: FastifyRequest): UserSession {
  if (!request.user) throw new AppError('UNAUTHORIZED', 'Sign in to the back-office first');
  return request.user;
}

export interface SessionRoutesDeps {
  users: UsersService;
  sessions: UserSessions;
  merchants: MerchantsService;
  /** Cookies marked Secure: the public URL is https. */
  secureCookies: boolean;
  defaultTimezone: string;
}

export function usersRoutes(deps: SessionRoutesDeps) {
  const { users, sessions, merchants } = deps;

  async function me(session: Pick<UserSession, 'userId' | 'merchantId' | 'mode' | 'csrfToken'>) {
    const [user, merchant] = await Promise.all([users.get(session.userId), merchants.getMerchant(session.merchantId)]);
    return {
      user: { id: user.id, email: user.email, role: user.role, twoFactorEnabled: user.totp_enabled === 1 },
      merchant: {
        id: merchant.id, name: merchant.name, displayName: merchant.displayName ?? null, timezone: merchant.timezone ?? deps.defaultTimezone,
        platform: merchant.platform === true, agency: merchant.agency === true,
      },
      mode: session.mode,
      csrfToken: session.csrfToken,
    };
  }

  async function openSession(reply: FastifyReply, user: UserRow) {
    const { token, csrfToken } = await sessions.open(user.id);
    reply.header('set-cookie', sessionCookie(token, deps.secureCookies)).header('cache-control', 'no-store');
    return me({ userId: user.id, merchantId: user.merchant_id, mode: 'test', csrfToken });
  }

  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Static<typeof SignInBody> }>('/sign-in', { schema: { ...doc, body: SignInBody }, config: { public: true } },
      async (request, reply) => openSession(reply, await users.signIn(request.body)));
    app.get<{ Params: Static<typeof TokenParams> }>('/setup/:token', { schema: { ...doc, params: TokenParams }, config: { public: true } },
      async (request) => users.setupInfo(request.params.token));
    app.post<{ Body: Static<typeof SetupBody> }>('/setup', { schema: { ...doc, body: SetupBody }, config: { public: true } },
      async (request, reply) => openSession(reply, await users.completeSetup(request.body.token, request.body.password)));

    app.get('/me', { schema: doc }, async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return me(signedIn(request));
    });
    app.post('/sign-out', { schema: doc }, async (request, reply) => {
      await sessions.end(signedIn(request).sessionId);
      return reply.code(204).header('set-cookie', clearedSessionCookie(deps.secureCookies)).send();
    });
    app.post<{ Body: Static<typeof ModeBody> }>('/mode', { schema: { ...doc, body: ModeBody } }, async (request) => {
      const session = signedIn(request);
      await sessions.switchMode(session.sessionId, request.body.mode);
      return me({ ...session, mode: request.body.mode });
    });

    app.post('/two-factor/setup', { schema: doc }, async (request) => {
      const enrolment = await users.startTwoFactor(signedIn(request));
      return { ...enrolment, qrSvg: await QRCode.toString(enrolment.otpauthUrl, { type: 'svg', margin: 1 }) };
    });
    app.post<{ Body: Static<typeof CodeBody> }>('/two-factor/enable', { schema: { ...doc, body: CodeBody } },
      async (request) => ({ recoveryCodes: await users.enableTwoFactor(signedIn(request), request.body.code) }));
    app.post<{ Body: Static<typeof PasswordBody> }>('/two-factor/disable', { schema: { ...doc, body: PasswordBody } }, async (request, reply) => {
      await users.disableTwoFactor(signedIn(request), request.body.password);
      return reply.code(204).send();
    });
    app.post<{ Body: Static<typeof PasswordBody> }>('/two-factor/recovery-codes', { schema: { ...doc, body: PasswordBody } },
      async (request) => ({ recoveryCodes: await users.regenerateRecoveryCodes(signedIn(request), request.body.password) }));

    app.get('/users', { schema: doc }, async (request) => ({ data: await users.list(signedIn(request).merchantId) }));
    app.post<{ Body: Static<typeof InviteBody> }>('/users', { schema: { ...doc, body: InviteBody } },
      async (request, reply) => reply.code(201).send(await users.invite(signedIn(request), request.body)));
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof RoleBody> }>('/users/:id', { schema: { ...doc, params: IdParams, body: RoleBody } },
      async (request) => users.changeRole(signedIn(request), request.params.id, request.body.role));
    app.delete<{ Params: Static<typeof IdParams>; Querystring: Static<typeof RemoveQuery> }>('/users/:id', { schema: { ...doc, params: IdParams, querystring: RemoveQuery } }, async (request, reply) => {
      await users.remove(signedIn(request), request.params.id, request.query.keys);
      return reply.code(204).send();
    });
  };
}

