// The application's pages. A new page: one file under pages/, one line in PAGES (its path under /dashboard), and,
// for a top-level page, its entry in NAV.
import type { ReactElement } from 'react';
import { Navigate } from 'react-router';
import type { ParseKeys } from 'i18next';
import { PaymentsPage } from './pages/Payments.js';
import { PaymentDetailPage } from './pages/PaymentDetail.js';
import { DevelopersPage } from './pages/Developers.js';
import { SettingsPage } from './pages/Settings.js';

export const PAGES: Array<{ path: string; element: ReactElement }> = [
  // Until the home page exists, the back-office opens on the payments.
  { path: '/', element: <Navigate to="/payments" replace /> },
  { path: '/payments', element: <PaymentsPage /> },
  { path: '/payments/:id', element: <PaymentDetailPage /> },
  { path: '/developers/*', element: <DevelopersPage /> },
  { path: '/settings/*', element: <SettingsPage /> },
];

/** The main navigation, in this order; each label's English text is the link's accessible name. */
export const NAV: Array<{ to: string; label: ParseKeys }> = [
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
];
