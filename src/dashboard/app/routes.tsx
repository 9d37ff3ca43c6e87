// The application's pages. A new page: one file under pages/, its lazy import below, one line in PAGES (its path
// under /dashboard), and, for a top-level page, its entry in NAV (nav.ts).
import { lazy, type ComponentType, type ReactElement } from 'react';

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
const SellersPage = page(() => import('./pages/platform/Sellers.js'), 'SellersPage');
const SellerDetailPage = page(() => import('./pages/platform/SellerDetail.js'), 'SellerDetailPage');
const OnboardingPage = page(() => import('./pages/platform/Onboarding.js'), 'OnboardingPage');
const PortfolioPage = page(() => import('./pages/agency/Portfolio.js'), 'PortfolioPage');
const InvitationsPage = page(() => import('./pages/agency/Invitations.js'), 'InvitationsPage');

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
  { path: '/platform/sellers', element: <SellersPage /> },
  { path: '/platform/sellers/:id', element: <SellerDetailPage /> },
  { path: '/platform/onboarding', element: <OnboardingPage /> },
  { path: '/agency/portfolio', element: <PortfolioPage /> },
  { path: '/agency/invitations', element: <InvitationsPage /> },
];
