// What the signed-in user's role allows, for the pages to show only the actions it may take. The rules are the
// server's own (src/modules/users/roles.ts, bundled here): the API refuses the same calls, whatever a page shows.
import { mayChangeSettings, mayManageKeys, mayManageTeam, mayReadSecrets, roleMayCall } from '../../modules/users/roles.js';
import type { Role } from '../../modules/users/users.table.js';
import { useMe } from './session.js';
import { actingFor, scopeFor, useActingChoice } from './acting.js';

/** Merchant API routes answering a secret (their GET is refused to roles that may not read secrets). */
const SECRET_ROUTES = new Set(['/webhooks/signing-secret']);

/** Whether `role` may call `method` on `path`, a route pattern as the API reference writes it (`/api/v1/payments/:id/refund`). */
export function roleMay(role: Role, method: string, path: string): boolean {
  if (path.startsWith('/api/v1/')) {
    const route = path.slice('/api/v1'.length);
    return roleMayCall(role, method, route, SECRET_ROUTES.has(route));
  }
  if (path.startsWith('/dashboard/api/keys')) return mayManageKeys(role);
  if (path.startsWith('/dashboard/api/users')) return method === 'GET' || mayManageTeam(role);
  if (path.startsWith('/dashboard/api/settings')) return method === 'GET' || mayChangeSettings(role);
  return true;
}

export interface Permissions {
  /** May the user call this route? `can('POST', '/api/v1/payments/:id/refund')`. */
  can(method: string, path: string): boolean;
  readSecrets: boolean;
}

/**
 * Acting for a client, a merchant API route is also bounded by the mandate's scopes (the route's scope must be one of
 * them), and the back-office's own routes are the agency's, not the client's: none is offered.
 */
export function usePermissions(): Permissions {
  const me = useMe();
  const role = me.user.role as Role;
  useActingChoice();
  const acting = actingFor(me);
  if (!acting) return { can: (method, path) => roleMay(role, method, path), readSecrets: mayReadSecrets(role) };
  const inScope = (method: string, path: string) => {
    const scope = path.startsWith('/api/v1/') ? scopeFor(method, path) : null;
    return scope !== null && acting.scopes.includes(scope);
  };
  return {
    can: (method, path) => roleMay(role, method, path) && inScope(method, path),
    readSecrets: mayReadSecrets(role) && acting.scopes.includes('webhooks.manage'),
  };
}
