// What each back-office role may do, in one place (docs/back-office.md, Users and roles). The API checks it on every
// request made with a session cookie, whatever the page shows: a button hidden from a role is also refused to it.
import type { Role } from './users.table.js';

/** Merchant API routes (their path under /api/v1) a developer may not change: where the merchant's money goes. */
const MONEY_OUT = ['/bank-accounts', '/payouts', '/payout-schedule'];

/** Whether `role` may call the merchant API route `path` (its pattern, e.g. /payments/:id/refund) with `method`. */
export function roleMayCall(role: Role, method: string, path: string, readsSecret: boolean): boolean {
  if (method === 'GET' || method === 'HEAD') return !readsSecret || mayReadSecrets(role);
  switch (role) {
    case 'owner':
    case 'admin':
      return true;
    case 'developer':
      return !MONEY_OUT.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
    case 'support':
      return method === 'POST' && path === '/payments/:id/refund';
    case 'analyst':
      return false;
  }
}

/** The webhook signing secret and API keys: whoever holds them can act or forge webhooks as the merchant. */
export function mayReadSecrets(role: Role): boolean {
  return role === 'owner' || role === 'admin' || role === 'developer';
}

export function mayManageKeys(role: Role): boolean {
  return mayReadSecrets(role);
}

export function mayManageTeam(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

/** Branding, legal identity: the merchant's own settings. */
export function mayChangeSettings(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

/** The Go live checklist: what the live environment still needs, and the operator's commands for it. */
export function mayGoLive(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

/** Whether `actor` may give `target` (a user's current or new role) to someone: only an owner touches owners. */
export function mayAssign(actor: Role, target: Role): boolean {
  if (!mayManageTeam(actor)) return false;
  return target !== 'owner' || actor === 'owner';
}
