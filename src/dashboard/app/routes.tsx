// The application's pages. A new page: one file under pages/, one line in PAGES (its path under /dashboard), and,
// for a top-level page, its entry in NAV.
import type { ReactElement } from 'react';
import type { ParseKeys } from 'i18next';
import { PaymentsPage } from './pages/Payments.js';
import { PaymentDetailPage } from './pages/PaymentDetail.js';
import { HomePage } from './pages/Home.js';
import { CustomersPage } from './pages/Customers.js';
import { CustomerDetailPage } from './pages/CustomerDetail.js';
import { SubscriptionsPage } from './pages/Subscriptions.js';
import { SubscriptionDetailPage } from './pages/SubscriptionDetail.js';
import { InvoicesPage } from './pages/Invoices.js';
import { InvoiceNewPage } from './pages/InvoiceNew.js';
import { SubscriptionNewPage } from './pages/SubscriptionNew.js';
import { InvoiceDetailPage } from './pages/InvoiceDetail.js';
import { BalancePage } from './pages/Balance.js';
import { PayoutsPage } from './pages/Payouts.js';
import { PayoutDetailPage } from './pages/PayoutDetail.js';
import { DisputesPage } from './pages/Disputes.js';
import { DisputeDetailPage } from './pages/DisputeDetail.js';
import { DevelopersPage } from './pages/Developers.js';
import { SettingsPage } from './pages/Settings.js';
import { GoLivePage } from './pages/GoLive.js';
import { mayGoLive } from '../../modules/users/roles.js';
import type { Role } from '../../modules/users/users.table.js';

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
