// An object of the merchant's by the name people know it by, linking to its page: an invoice by its number, a
// customer by its name or email, a payment by its order reference, a subscription by its description, a team member
// by their email. Each is read once (the queries its own page uses); the id shows until then, and for what has no
// page or no name (an API key, a webhook endpoint).
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api } from '../api.js';
import type { Invoice, Subscription } from '../money-types.js';
import type { Payment } from '../types.js';
import { useCustomer } from '../pages/money/CustomerName.js';

const PAGES: Record<string, string> = {
  inv: '/invoices/', cus: '/customers/', pay: '/payments/', sub: '/subscriptions/', po: '/payouts/', dp: '/disputes/',
};

function prefixOf(id: string): string {
  return id.slice(0, id.indexOf('_'));
}

function useName(id: string): string | null {
  const { t } = useTranslation();
  const prefix = prefixOf(id);
  const read = <T,>(path: string, enabled: boolean) => ({
    queryKey: [path, id], queryFn: () => api.get<T>(`/api/v1/${path}/${encodeURIComponent(id)}`), enabled, staleTime: 60_000, retry: false,
  });
  const invoice = useQuery(read<Invoice>('billing/invoices', prefix === 'inv'));
  const payment = useQuery(read<Payment>('payments', prefix === 'pay'));
  const subscription = useQuery(read<Subscription & { description: string | null }>('subscriptions', prefix === 'sub'));
  const customer = useCustomer(prefix === 'cus' ? id : null);
  const users = useQuery({
    queryKey: ['team'], queryFn: () => api.get<{ data: Array<{ id: string; email: string }> }>('/dashboard/api/users'),
    enabled: prefix === 'usr', staleTime: 60_000, retry: false,
  });
  switch (prefix) {
    case 'inv': return invoice.data ? invoice.data.number ?? t('invoices.draftNumber') : null;
    case 'pay': return payment.data ? payment.data.orderReference ?? payment.data.reference : null;
    case 'sub': return subscription.data?.description ?? null;
    case 'cus': return customer.data ? customer.data.name || customer.data.email : null;
    case 'usr': return users.data?.data.find((u) => u.id === id)?.email ?? null;
    default: return null;
  }
}

export function ObjectName({ id }: { id: string }) {
  const name = useName(id);
  const page = PAGES[prefixOf(id)];
  const shown = name ?? <code className="id" title={id}>{id}</code>;
  return page ? <Link to={page + id}>{shown}</Link> : <>{shown}</>;
}
