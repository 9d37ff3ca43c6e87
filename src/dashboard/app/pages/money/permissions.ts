// What the signed-in user's role may change on the money pages, so that a page offers no button its API call would
// refuse (403 PERMISSION_DENIED). The rules are the server's (src/modules/users/roles.ts, through ../../permissions.ts):
// where money goes out (bank accounts, payouts) is owners' and admins'; customers, subscriptions, invoices and disputes
// are developers' too; support and analysts read.
import { usePermissions } from '../../permissions.js';

/** A route of each kind: the role may call it, or none of its kind. */
const PROBE = { 'money-out': '/api/v1/payouts', billing: '/api/v1/billing/invoices' } as const;

export function useMayChange(what: keyof typeof PROBE): boolean {
  return usePermissions().can('POST', PROBE[what]);
}
