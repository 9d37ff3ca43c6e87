// An agency acting for its client: its own secret key and the header `Motu-Account: mer_…`. The request's principal
// becomes the client's environment (the key's mode), with `actingFor` naming the agency, once the mandate is found
// and grants the route's scope (agency-scopes.ts, the one table). The rate limit and idempotency keys still count on
// the agency's key (the principal keeps its keyId; idempotency keys are kept apart by `actingFor`).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MandateStanding } from '../modules/agencies/mandates.service.js';
import type { Principal } from '../modules/merchants/principal.js';
import { AppError } from '../shared/errors.js';
import { ON_BEHALF_REFUSED, ROUTE_SCOPES, routeKey } from './agency-scopes.js';
import type { MandateGate } from './mandate-gate.js';

export const ACCOUNT_HEADER = 'motu-account';

declare module 'fastify' {
  interface FastifyRequest {
    /** Lets the mandate's gate go once the answer is sent (an agency's change on behalf, MandateGate). */
    leaveMandate?: () => void;
  }
}

export type StandingOf = (agencyId: string, merchantId: string, mode: Principal['mode']) => Promise<MandateStanding>;

/** The Motu-Account header's value, when the request has one. */
export function accountHeader(request: FastifyRequest): string | undefined {
  const raw = request.headers[ACCOUNT_HEADER];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new AppError('VALIDATION_ERROR', 'Send one Motu-Account header', { field: 'Motu-Account' });
  return raw.trim();
}

/** Refuses the header where it means nothing (the back-office, whose session is the merchant's own). */
export function refuseAccountHeader(request: FastifyRequest, why: string): void {
  if (accountHeader(request) !== undefined) throw new AppError('ON_BEHALF_NOT_ALLOWED', why, { header: 'Motu-Account' });
}

/**
 * The principal a request acts as: the key's own, or, with Motu-Account naming another merchant, that client's under
 * the agency's mandate. No mandate (or no agency): 404 as for any unknown merchant; a revoked one: 403
 * MANDATE_REVOKED; a scope the mandate lacks: 403 PERMISSION_DENIED with details.scope.
 */
export async function actingPrincipal(request: FastifyRequest, key: Principal, standingOf: StandingOf, gate?: MandateGate, reply?: FastifyReply): Promise<Principal> {
  const account = accountHeader(request);
  if (account === undefined) return key;
  const route = routeKey(request.method, request.routeOptions.url ?? request.url);
  const scope = ROUTE_SCOPES[route];
  if (scope === undefined || scope === ON_BEHALF_REFUSED) {
    throw new AppError('ON_BEHALF_NOT_ALLOWED', 'This route is not called on behalf of another account; send it without the Motu-Account header', { header: 'Motu-Account' });
  }
  if (account === key.merchantId) return key;
  if (key.storeId) {
    throw new AppError('PERMISSION_DENIED', "A key bound to a store cannot act for another account; use the agency's unbound key");
  }
  let seen = gate?.changesSeen ?? 0;
  let standing = await standingOf(key.merchantId, account, key.mode);
  // A change under an active mandate is admitted through the gate: it waits for a revocation or a change of scopes
  // under way, and is checked again after it (or after one that ended while the mandate was being read); a revocation
  // waits for the changes admitted before it.
  if (gate && standing.status === 'active' && request.method !== 'GET' && request.method !== 'HEAD') {
    while (standing.status === 'active' && !(await gate.enter(standing.mandateId, seen))) {
      seen = gate.changesSeen;
      standing = await standingOf(key.merchantId, account, key.mode);
    }
    if (standing.status === 'active') {
      const mandateId = standing.mandateId;
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        gate.leave(mandateId);
      };
      // Left when the answer is sent (onResponse, registered with the gate), or the connection closes first.
      request.leaveMandate = leave;
      reply?.raw.once('close', leave);
    }
  }
  if (standing.status === 'none') throw new AppError('NOT_FOUND', `No merchant with id ${account}`, { id: account });
  if (standing.status === 'revoked') {
    throw new AppError('MANDATE_REVOKED', 'The mandate on this account has been revoked; the client must invite you again', { mandateId: standing.mandateId });
  }
  if (!standing.scopes.includes(scope)) {
    throw new AppError('PERMISSION_DENIED', `Your mandate on this account does not include ${scope}`, { scope, mandateId: standing.mandateId });
  }
  return {
    merchantId: account, mode: key.mode, keyId: key.keyId, permission: key.permission, storeId: null,
    actingFor: { kind: 'agency', id: key.merchantId },
  };
}
