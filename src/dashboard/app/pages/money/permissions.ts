// What the signed-in user's role may change on the money pages (docs/back-office.md, Users and roles), so that a page
// offers no button its API call would refuse (403 PERMISSION_DENIED): where money goes out (bank accounts, payouts)
// is owners' and admins'; customers, subscriptions, invoices and disputes are developers' too; support and analysts
// read.
import { useMe } from '../../session.js';

export function useMayChange(what: 'money-out' | 'billing'): boolean {
  const role = useMe().user.role;
  if (role === 'owner' || role === 'admin') return true;
  return what === 'billing' && role === 'developer';
}
