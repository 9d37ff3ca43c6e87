// `actedBy: {agencyId}` on the answers about objects an agency created for its client (payments and their sessions,
// refunds, customers, subscriptions, invoices and credit notes), whoever reads them: the agency, or the client itself.
// The creation is recorded when the agency's answer is sent; reads look up the objects of their answer in one query.
// Before the idempotency hook's onSend, so that a replayed answer shows it too.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.js';
import { ReferenceCache } from '../db/reference-cache.js';
import type { Principal } from '../modules/merchants/principal.js';
import { createdByAgency, hadAgency, recordCreatedByAgency } from '../modules/agencies/acted-by.js';
import type { Clock } from '../shared/clock.js';
import { routeKey } from './agency-scopes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The ids of the objects the answer shows, taken from it before it was serialized (registerActedBy). */
    shownIds: string[] | null;
  }
}

/** The routes that create an object an agency may create on behalf. */
const CREATIONS = new Set([
  'POST /api/v1/payments/sessions', 'POST /api/v1/payments/links', 'POST /api/v1/payments', 'POST /api/v1/payments/{id}/refund',
  'POST /api/v1/customers', 'POST /api/v1/subscriptions', 'POST /api/v1/billing/invoices', 'POST /api/v1/billing/invoices/{id}/credit-notes',
]);
/** The answers that show such objects (one, or a list's `data`). */
export const READS = /^(GET|POST|PATCH) \/api\/v1\/(payments|customers|subscriptions|billing\/invoices|billing\/credit-notes)(\/|$)/;
const OBJECT_ID = /^[a-z]{2,4}_[0-9A-Za-z]{22}$/;

type Json = Record<string, unknown>;
type Kind = 'none' | 'read' | 'creation';

function idsOf(object: Json): string[] {
  return ['id', 'paymentId'].map((k) => object[k]).filter((v): v is string => typeof v === 'string' && OBJECT_ID.test(v));
}

/** The objects an answer shows: its list's `data`, or itself. */
function objectsOf(body: Json): Json[] {
  return Array.isArray(body.data) ? (body.data as Json[]).filter((o) => o && typeof o === 'object') : [body];
}

export function registerActedBy(scope: FastifyInstance, db: Database, clock: Clock): void {
  const reference = new ReferenceCache(db);
  // What a route answers, worked out once per route (`METHOD /registered/:url`), not on every answer.
  const kinds = new Map<string, Kind>();
  const kindOf = (request: FastifyRequest): Kind => {
    const url = request.routeOptions.url ?? '';
    const registered = `${request.method} ${url}`;
    let kind = kinds.get(registered);
    if (kind === undefined) {
      const route = routeKey(request.method, url);
      kind = CREATIONS.has(route) ? 'creation' : READS.test(route) ? 'read' : 'none';
      kinds.set(registered, kind);
    }
    return kind;
  };
  scope.decorateRequest('shownIds', null);
  // The ids, read from the handler's object: the answer is parsed again only when an agency created one of them.
  scope.addHook('preSerialization', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    if (request.merchant && reply.statusCode < 300 && payload !== null && typeof payload === 'object' && kindOf(request) !== 'none') {
      request.shownIds = objectsOf(payload as Json).flatMap(idsOf);
    }
    done(null, payload);
  });
  // A callback hook around the async work: an answer that shows nothing an agency may have created passes without a promise.
  scope.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => {
    const principal = request.merchant;
    if (!principal || reply.statusCode >= 300 || typeof payload !== 'string' || !payload.startsWith('{')) return done(null, payload);
    const kind = kindOf(request);
    if (kind === 'none') return done(null, payload);
    withActedBy(principal, kind, request.shownIds, payload).then((answer) => done(null, answer), (err: Error) => done(err));
  });

  /** The answer with `actedBy` on the objects an agency created, or as it was. */
  async function withActedBy(principal: Principal, kind: Kind, shownIds: string[] | null, payload: string): Promise<string> {
    // An account that never gave an agency a mandate has nothing an agency created: its answers are sent as they are.
    const acting = principal.actingFor?.kind === 'agency';
    if (!acting && !(await hadAgency(db, reference, principal))) return payload;
    // An answer sent as text (an idempotent replay) has its ids read from the text.
    let body: Json | undefined;
    let ids = shownIds;
    if (ids === null) {
      body = parsed(payload);
      if (!body) return payload;
      ids = objectsOf(body).flatMap(idsOf);
    }
    if (ids.length === 0) return payload;
    if (acting && kind === 'creation') {
      body ??= parsed(payload);
      if (body) await recordCreatedByAgency(db, principal, principal.actingFor.id, idsOf(body), clock.now());
    }
    const agencies = await createdByAgency(db, principal, ids);
    if (agencies.size === 0) return payload;
    body ??= parsed(payload);
    if (!body) return payload;
    for (const object of objectsOf(body)) {
      const agencyId = idsOf(object).map((id) => agencies.get(id)).find((a) => a !== undefined);
      if (agencyId) object.actedBy = { agencyId };
    }
    return JSON.stringify(body);
  }
}

function parsed(payload: string): Json | undefined {
  try {
    return JSON.parse(payload) as Json;
  } catch {
    return undefined;
  }
}
