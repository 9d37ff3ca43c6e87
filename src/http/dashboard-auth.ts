// The back-office's session cookie on the transport: the cookie to the signed-in user, the CSRF check of every change,
// and the audit row of every change a user makes. The merchant API (/api/v1) takes the cookie as another way in
// (auth.ts), so the back-office calls the very routes an integration calls.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditService } from '../modules/audit/audit.service.js';
import type { Principal } from '../modules/merchants/principal.js';
import { SESSION_COOKIE, IDLE_HOURS, type UserSession, type UserSessions } from '../modules/users/user-sessions.js';
import { AppError } from '../shared/errors.js';
import { actingPrincipal, type StandingOf } from './acting.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The back-office user the request's cookie signs in, when it does. */
    user: UserSession | null;
    /** The audit row of the change this request makes (written before it runs). */
    auditId: string | null;
  }
}

export function sessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string' || !header.includes(SESSION_COOKIE)) return undefined;
  // The cookie's value is base62 (never encoded); the first cookie of that name counts, as browsers send the most
  // specific path first.
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A change must carry the session's CSRF token in X-CSRF-Token: a cross-site form or image cannot set a header. */
export function checkCsrf(request: FastifyRequest, session: UserSession): void {
  if (SAFE_METHODS.has(request.method)) return;
  const sent = request.headers['x-csrf-token'];
  const given = Buffer.from(typeof sent === 'string' ? sent : '');
  const expected = Buffer.from(session.csrfToken);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AppError('CSRF_TOKEN_INVALID', 'This change needs the X-CSRF-Token header of your back-office session; reload the page');
  }
}

/** The merchant a signed-in user works for, in the mode they switched to: a principal like a key's. */
export function userPrincipal(session: UserSession): Principal {
  return {
    merchantId: session.merchantId, mode: session.mode, keyId: session.userId,
    permission: session.role === 'analyst' ? 'read' : 'write', storeId: null,
    user: { id: session.userId, role: session.role },
  };
}

/**
 * An agency's back-office user acting for a client (`Motu-Account: mer_…`, the back-office's "Act for this client"):
 * the client's account under the agency's mandate, exactly as with the agency's secret key (acting.ts: no mandate 404,
 * revoked 403 MANDATE_REVOKED, a scope it lacks 403 PERMISSION_DENIED with details.scope), the user's role having been
 * checked first. The principal keeps the user, whom the client's audit log names with the agency.
 */
export async function sessionActing(request: FastifyRequest, own: Principal, standingOf: StandingOf): Promise<Principal> {
  const acted = await actingPrincipal(request, own, standingOf);
  return acted === own ? own : { ...acted, ...(own.user ? { user: own.user } : {}) };
}

/** The Set-Cookie line of a new session: script cannot read it, other sites' forms do not send it. */
export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${IDLE_HOURS * 3600}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

const OBJECT_ID = /^[a-z]{2,4}_[0-9A-Za-z]{22}$/;

/**
 * Writes the audit row of every change a signed-in user makes through `scope`'s routes, or a key made in the
 * back-office (the row names the key and its maker), or an agency acting for its client (the row names the agency): before the handler (pending, naming the route and the object in
 * its path) and completed when the answer is sent (its status, and the id of the object it created).
 */
export function registerAudit(scope: FastifyInstance, audit: AuditService): void {
  // Callback hooks, not async ones: most requests write no audit row, and pass without a promise.
  scope.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    const { user, merchant } = request;
    if (SAFE_METHODS.has(request.method) || (!user && !merchant?.madeBy && !merchant?.actingFor)) return done();
    beginAudit(audit, request).then(() => done(), (err: Error) => done(err));
  });
  scope.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload: unknown) => void) => {
    const auditId = request.auditId;
    if (!auditId) return done(null, payload);
    audit.complete(auditId, reply.statusCode, createdId(payload)).then(
      () => done(null, payload),
      (err: unknown) => {
        request.log.error({ err }, 'audit row not completed');
        done(null, payload);
      },
    );
  });
}

/** The pending audit row of a change by a user, a key made in the back-office, or an agency acting for its client. */
async function beginAudit(audit: AuditService, request: FastifyRequest): Promise<void> {
  const { user, merchant } = request;
  const params = request.params as Record<string, unknown> | undefined;
  const objectId = typeof params?.id === 'string' && OBJECT_ID.test(params.id) ? params.id : null;
  const action = `${request.method} ${request.routeOptions.url ?? request.url}`;
  // A user acting for a client: the client's log names the user and the agency.
  if (user && merchant?.actingFor) request.auditId = await audit.begin(merchant, user.userId, action, objectId, null, merchant.actingFor.id);
  else if (user) request.auditId = await audit.begin(user, user.userId, action, objectId);
  // An agency acting for its client: the client's log names the agency and its key.
  else if (merchant?.actingFor) request.auditId = await audit.begin(merchant, merchant.actingFor.id, action, objectId, merchant.keyId, merchant.actingFor.id);
  else if (merchant?.madeBy) request.auditId = await audit.begin(merchant, merchant.madeBy.userId, action, objectId, merchant.keyId);
}

/** The id of the object an answer describes (`id`, or `paymentId` for a session), for the audit of a creation. */
function createdId(payload: unknown): string | null {
  if (typeof payload !== 'string' || payload.length > 65_536 || !payload.startsWith('{')) return null;
  try {
    const body = JSON.parse(payload) as Record<string, unknown>;
    for (const key of ['paymentId', 'id']) {
      const value = body[key];
      if (typeof value === 'string' && OBJECT_ID.test(value)) return value;
    }
  } catch {
    // Not JSON: nothing to name.
  }
  return null;
}

export function resolveSession(sessions: UserSessions) {
  return async (request: FastifyRequest): Promise<UserSession | null> => {
    const token = sessionToken(request);
    if (!token) return null;
    const session = await sessions.resolve(token);
    request.user = session;
    return session;
  };
}
