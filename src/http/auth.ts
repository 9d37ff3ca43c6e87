// Merchant authentication on the transport: the `Authorization: Bearer sk_…` header (or Basic `sk_…:`) to the request's principal
// (the key lookup itself belongs to the merchants module), and what a key's permission allows on this route.
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import type { Database } from '../db/database.js';
import { apiKeyAuthenticator } from '../modules/merchants/api-keys.js';
import type { Principal } from '../modules/merchants/principal.js';
import { roleMayCall } from '../modules/users/roles.js';
import type { UserSessions } from '../modules/users/user-sessions.js';
import { AppError } from '../shared/errors.js';
import { checkCsrf, resolveSession, sessionActing, sessionToken, userPrincipal } from './dashboard-auth.js';
import { actingPrincipal, refuseAccountHeader, type StandingOf } from './acting.js';
import type { MandateGate } from './mandate-gate.js';

declare module 'fastify' {
  interface FastifyRequest {
    merchant: Principal | null;
    /** Why authentication failed, answered once the rate limit has counted the request (merchantAuthHooks). */
    authFailure: AppError | null;
  }
  interface FastifyContextConfig {
    /** The route answers a secret (the webhook signing secret): refused to read-only keys, even on GET. */
    readsSecret?: boolean;
    /** A back-office route open without a session (sign-in, the set-up link). */
    public?: boolean;
  }
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * The merchant's secret key: `Authorization: Bearer sk_…`, or HTTP Basic with the key as the user name and an empty
 * password (`curl -u sk_test_…:`), as Stripe's users type it. Basic with a password is refused, so a key never
 * travels beside a second secret that could be taken for it.
 */
export function merchantKey(request: FastifyRequest): string | undefined {
  const bearer = bearerToken(request);
  if (bearer) return bearer;
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon !== decoded.length - 1) return undefined;
  return decoded.slice(0, colon);
}

/**
 * Authentication in two steps around the rate limit (a route-level onRequest hook, so it runs between them):
 * `identify` (onRequest) finds the key, or keeps why it failed; the limit then counts the request against the key's
 * id, or against the client address when no key was identified; `enforce` (preParsing) answers a kept failure. So
 * however "Bearer" is spelled, one key has one budget, and failed attempts are limited too.
 */
export function merchantAuthHooks(db: Database, userSessions: UserSessions, standingOf: StandingOf, gate?: MandateGate) {
  const authenticate = merchantAuthHook(db, userSessions, standingOf, gate);
  const keyOf = apiKeyAuthenticator(db);
  return {
    /**
     * Whether the credential a request came with still stands as it was: the key not revoked and its ceiling
     * unchanged, or the session not ended, its user not removed, its role and mode unchanged. For what stays open
     * after its first answer (the event stream), so that it ends with its credential.
     */
    async stillValid(request: FastifyRequest): Promise<boolean> {
      const was = request.merchant;
      if (!was) return false;
      try {
        if (request.user) {
          const token = sessionToken(request);
          const now = token ? await userSessions.resolve(token, { touch: false }) : null;
          if (now === null || now.sessionId !== request.user.sessionId || now.role !== request.user.role || now.mode !== request.user.mode) return false;
          // Acting for a client from the back-office: the agency's mandate must still stand and grant this route's scope.
          return !was.actingFor || (await sessionActing(request, userPrincipal(now), standingOf)).merchantId === was.merchantId;
        }
        const token = bearerToken(request);
        if (!token) return false;
        const now = await keyOf(token);
        // An agency acting for its client: its mandate must still stand and grant this route's scope.
        if (was.actingFor && (await actingPrincipal(request, now, standingOf)).merchantId !== was.merchantId) return false;
        return now.keyId === was.keyId && now.permission === was.permission && now.madeBy?.userId === was.madeBy?.userId && now.madeBy?.role === was.madeBy?.role;
      } catch (err) {
        if (err instanceof AppError) return false;
        throw err;
      }
    },
    async identify(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      try {
        await authenticate(request, reply);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        request.authFailure = err;
      }
    },
    /** A callback hook: an authenticated request passes it without a promise. */
    enforce(request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload, done: (err: Error | null, payload?: RequestPayload) => void): void {
      done(request.authFailure, payload);
    },
  };
}

/** The rate limit's bucket: the authenticated key, else the client address. */
export function rateLimitKey(request: FastifyRequest): string {
  return request.merchant ? `key:${request.merchant.keyId}` : `ip:${request.ip}`;
}

function merchantAuthHook(db: Database, userSessions: UserSessions, standingOf: StandingOf, gate?: MandateGate) {
  const authenticate = apiKeyAuthenticator(db);
  const sessionOf = resolveSession(userSessions);
  return async function authenticateRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = merchantKey(request);
    // Without a key, the back-office's session cookie: the signed-in user's merchant, mode and role.
    if (!token && sessionToken(request) !== undefined) {
      const session = await sessionOf(request);
      if (!session) throw new AppError('UNAUTHORIZED', 'Your back-office session has ended; sign in again');
      {
        request.merchant = userPrincipal(session);
        checkCsrf(request, session);
        const path = (request.routeOptions.url ?? '').replace(/^\/api\/v1/, '');
        if (!roleMayCall(session.role, request.method, path, request.routeOptions.config?.readsSecret === true)) {
          throw new AppError('PERMISSION_DENIED', `Your role (${session.role}) does not allow this; ask an owner or admin of your team`);
        }
        if (session.mode === 'live' && request.url.startsWith('/api/v1/test-helpers/')) {
          throw new AppError('PERMISSION_DENIED', 'Test helpers work in test mode; switch the back-office to test');
        }
        // `Motu-Account: mer_…`: an agency's user acting for its client, under the mandate's scopes and their own role.
        request.merchant = await sessionActing(request, request.merchant, standingOf);
        return;
      }
    }
    if (!token) throw new AppError('UNAUTHORIZED', 'Send your secret key as "Authorization: Bearer sk_test_…" (or curl -u sk_test_…:)');
    const principal = await authenticate(token);
    request.merchant = principal;
    if (principal.mode === 'live' && request.url.startsWith('/api/v1/test-helpers/')) {
      throw new AppError('PERMISSION_DENIED', 'Test helpers need a test key (sk_test_…)');
    }
    if (principal.permission === 'read' && request.method !== 'GET' && request.method !== 'HEAD') {
      throw new AppError('PERMISSION_DENIED', 'This key can only read; use a key with write permission');
    }
    // A read key is for reporting: with the signing secret it could forge the webhooks the merchant trusts.
    if (principal.permission === 'read' && request.routeOptions.config?.readsSecret) {
      throw new AppError('PERMISSION_DENIED', 'A read-only key cannot read secrets; use a key with write permission');
    }
    // A key made in the back-office never does more than its maker's role: the same table as their session's.
    if (principal.madeBy) {
      const path = (request.routeOptions.url ?? '').replace(/^\/api\/v1/, '');
      if (!roleMayCall(principal.madeBy.role, request.method, path, request.routeOptions.config?.readsSecret === true)) {
        throw new AppError('PERMISSION_DENIED', `This key was made in the back-office by a ${principal.madeBy.role}, whose role does not allow this; ask an owner or admin for a key`);
      }
    }
    // `Motu-Account: mer_…`: an agency acting for its client, under its mandate (acting.ts).
    request.merchant = await actingPrincipal(request, principal, standingOf, gate, reply);
  };
}

/** The authenticated merchant of a request on a secret-key route. */
export function merchantOf(request: FastifyRequest): Principal {
  if (!request.merchant) throw new AppError('UNAUTHORIZED', 'Authentication required');
  return request.merchant;
}
