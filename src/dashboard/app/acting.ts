// Acting for a client: an agency's user chooses a client in the portfolio, and from then on every merchant API call of
// this tab (/api/v1/…, but the agency's own routes) carries `Motu-Account: mer_…`, so the pages show the client's
// account within the mandate's scopes. The choice lives in this tab's sessionStorage (a reload keeps it; another tab
// is the agency's own), tied to the agency and mode that chose it. The server checks the mandate on every request:
// what the pages hide here is also refused there (403 PERMISSION_DENIED with details.scope, or MANDATE_REVOKED).
import { useSyncExternalStore } from 'react';
import type { Mode } from './types.js';
import type { Scope } from './platform-types.js';
import { ON_BEHALF_REFUSED, ROUTE_SCOPES, routeKey } from '../../http/agency-scopes.js';

export interface Acting {
  mandateId: string;
  /** The client's account. */
  merchantId: string;
  name: string;
  scopes: Scope[];
  /** Who chose it, in which mode: another sign-in or the other mode is not acting. */
  agencyId: string;
  agencyName: string;
  mode: Mode;
}

const STORAGE_KEY = 'motu.acting';
const listeners = new Set<() => void>();

function load(): Acting | null {
  try {
    const text = typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(STORAGE_KEY);
    return text ? (JSON.parse(text) as Acting) : null;
  } catch {
    return null;
  }
}

let current: Acting | null = load();

export function setActing(next: Acting | null): void {
  current = next;
  try {
    if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    /* storage refused (private mode): the choice lasts until reload */
  }
  listeners.forEach((listener) => listener());
}

/** The client acted for, when the signed-in agency and mode are those that chose it. */
export function actingFor(me: { merchant: { id: string }; mode: Mode } | null | undefined): Acting | null {
  if (!current || !me || current.agencyId !== me.merchant.id || current.mode !== me.mode) return null;
  return current;
}

/** The account header of a request to `path`: the client's on the merchant API, never on the agency's own routes. */
export function accountHeader(path: string): string | null {
  if (!current || !path.startsWith('/api/v1/')) return null;
  if (path.startsWith('/api/v1/agency') || path.startsWith('/api/v1/platform/')) return null;
  return current.merchantId;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The stored choice, re-rendering when it changes (check it against the session with actingFor). */
export function useActingChoice(): Acting | null {
  return useSyncExternalStore(subscribe, () => current, () => null);
}

/**
 * The mandate scope a merchant API route needs when an agency calls it for its client (`path` as the API reference
 * writes it: /api/v1/payments/:id/refund), null for a route no mandate opens. The server's own table (agency-scopes.ts).
 */
export function scopeFor(method: string, path: string): Scope | null {
  const scope = ROUTE_SCOPES[routeKey(method, path)];
  return scope === undefined || scope === ON_BEHALF_REFUSED ? null : scope;
}
