// The application's pages. A new page: one file under pages/, its lazy import below, one line in PAGES (its path
// under /dashboard), and, for a top-level page, its entry in NAV.
import { lazy, type ComponentType, type ReactElement } from 'react';
import type { ParseKeys } from 'i18next';
import { mayGoLive } from '../../modules/users/roles.js';
import type { Role } from '../../modules/users/users.table.js';

/**
 * A page loaded when first visited: each is its own chunk of the bundle (esbuild's code splitting), so the first load
 * carries the shell and the sign-in page, not every page and its tables.
 */
function page<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return lazy(async () => ({ default: (await load())[name] }));
}

const PaymentsPage = page(() => import('./pages/Payments.js'), 'PaymentsPage');
const PaymentDetailPage = page(() => import('./pages/PaymentDetail.js'), 'PaymentDetailPage');
const HomePage = page(() => import('./pages/Home.js'), 'HomePage');
const CustomersPage = page(() => import('./pages/Customers.js'), 'CustomersPage');
const CustomerDetailPage = page(() => import('./pages/CustomerDetail.js'), 'CustomerDetailPage');
const SubscriptionsPage = page(() => import('./pages/Subscriptions.js'), 'SubscriptionsPage');
const SubscriptionDetailPage = page(() => import('./pages/SubscriptionDetail.js'), 'SubscriptionDetailPage');
const InvoicesPage = page(() => import('./pages/Invoices.js'), 'InvoicesPage');
const InvoiceNewPage = page(() => import('./pages/InvoiceNew.js'), 'InvoiceNewPage');
const SubscriptionNewPage = page(() => import('./pages/SubscriptionNew.js'), 'SubscriptionNewPage');
const InvoiceDetailPage = page(() => import('./pages/InvoiceDetail.js'), 'InvoiceDetailPage');
const BalancePage = page(() => import('./pages/Balance.js'), 'BalancePage');
const PayoutsPage = page(() => import('./pages/Payouts.js'), 'PayoutsPage');
const PayoutDetailPage = page(() => import('./pages/PayoutDetail.js'), 'PayoutDetailPage');
const DisputesPage = page(() => import('./pages/Disputes.js'), 'DisputesPage');
const DisputeDetailPage = page(() => import('./pages/DisputeDetail.js'), 'DisputeDetailPage');
const DevelopersPage = page(() => import('./pages/Developers.js'), 'DevelopersPage');
const SettingsPage = page(() => import('./pages/Settings.js'), 'SettingsPage');
const GoLivePage = page(() => import('./pages/GoLive.js'), 'GoLivePage');

export const PAGES: Array<{ path: string; element: ReactElement }> = [
  { path: '/', element: <HomePage /> },
  { path: '/payments', element: <PaymentsPage /> },
  { path: '/payments/:id', element: <PaymentDetailPage /> },
  { path: '/customers', element: <CustomersPage /> },
  { path: '/customers/:id', element: <CustomerDetailPage /> },
  { path: '/subscriptions', element: <SubscriptionsPage /> },
  { path: '/subscriptions/new', element: <SubscriptionNewPage /> },
  { path: '/subscriptions/:id', element: <SubscriptionDetailPage /> },
  { path: '/invoices', element: <InvoicesPage /> },
  { path: '/invoices/new', element: <InvoiceNewPage /> },
  { path: '/invoices/:id', element: <InvoiceDetailPage /> },
  { path: '/balance', element: <BalancePage /> },
  { path: '/payouts', element: <PayoutsPage /> },
  { path: '/payouts/:id', element: <PayoutDetailPage /> },
  { path: '/disputes', element: <DisputesPage /> },
  { path: '/disputes/:id', element: <DisputeDetailPage /> },
  { path: '/developers/*', element: <DevelopersPage /> },
  { path: '/settings/*', element: <SettingsPage /> },
  { path: '/go-live', element: <GoLivePage /> },
];

/**
 * The main navigation, in this order; each label's English text is the link's accessible name. An entry with `may`
 * is shown only to the roles it allows (the server refuses the others the page's data anyway).
 */
export const NAV: Array<{ to: string; label: ParseKeys; may?: (role: Role) => boolean }> = [
  { to: '/', label: 'nav.home' },
  { to: '/payments', label: 'nav.payments' },
  { to: '/customers', label: 'nav.customers' },
  { to: '/subscriptions', label: 'nav.subscriptions' },
  { to: '/invoices', label: 'nav.invoices' },
  { to: '/balance', label: 'nav.balance' },
  { to: '/payouts', label: 'nav.payouts' },
  { to: '/disputes', label: 'nav.disputes' },
  { to: '/developers', label: 'nav.developers' },
  { to: '/settings', label: 'nav.settings' },
  { to: '/go-live', label: 'nav.goLive', may: mayGoLive },
];
