// The main navigation, apart from the pages' lazy imports (routes.tsx): pages import it (the portfolio opens a client
// on its first page), and a module shared by the entry and a page's chunk goes to a chunk of its own; were it
// routes.tsx, every page's dynamic import would leave the entry for that shared chunk.
import type { ParseKeys } from 'i18next';
import { mayGoLive } from '../../modules/users/roles.js';
import type { Role } from '../../modules/users/users.table.js';
import type { Me } from './types.js';
import type { Scope } from './platform-types.js';

/**
 * The main navigation, in this order; each label's English text is the link's accessible name. An entry with `may`
 * is shown only to the roles (and merchants: a platform, an agency) it allows (the server refuses the others the
 * page's data anyway). Acting for a client (acting.ts), only the entries with a `scope` show, and those whose scope
 * the mandate gives; the others are the agency's own pages.
 */
export const NAV: Array<{ to: string; label: ParseKeys; may?: (role: Role, me: Me) => boolean; scope?: Scope }> = [
  { to: '/', label: 'nav.home' },
  { to: '/payments', label: 'nav.payments', scope: 'payments.read' },
  { to: '/customers', label: 'nav.customers', scope: 'customers.read' },
  { to: '/subscriptions', label: 'nav.subscriptions', scope: 'payments.read' },
  { to: '/invoices', label: 'nav.invoices', scope: 'invoices.write' },
  { to: '/balance', label: 'nav.balance', scope: 'balance.read' },
  { to: '/payouts', label: 'nav.payouts', scope: 'payouts.write' },
  { to: '/disputes', label: 'nav.disputes', scope: 'payments.read' },
  { to: '/developers', label: 'nav.developers', scope: 'webhooks.manage' },
  { to: '/platform/sellers', label: 'platform.nav.sellers', may: (_role, me) => me.merchant.platform === true },
  { to: '/platform/onboarding', label: 'platform.nav.onboarding', may: (_role, me) => me.merchant.platform === true },
  { to: '/agency/portfolio', label: 'agency.nav.portfolio', may: (_role, me) => me.merchant.agency === true },
  { to: '/agency/invitations', label: 'agency.nav.invitations', may: (_role, me) => me.merchant.agency === true },
  { to: '/settings', label: 'nav.settings' },
  { to: '/go-live', label: 'nav.goLive', may: mayGoLive },
];

/** The navigation entry a page's address belongs to (its longest matching prefix). */
export function navEntryOf(pathname: string): (typeof NAV)[number] | undefined {
  const matching = NAV.filter((item) => (item.to === '/' ? pathname === '/' : pathname === item.to || pathname.startsWith(item.to + '/')));
  return matching.sort((a, b) => b.to.length - a.to.length)[0];
}
