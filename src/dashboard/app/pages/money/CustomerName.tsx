// A customer as people know it: the name (linking to the customer's page) and the email under it; the id only when
// the customer has neither, or until it is read. Each customer is read once and kept (the ['customer', id] query
// its page and the invoice page share).
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api.js';
import type { Customer } from '../../money-types.js';

export function useCustomer(id: string | null | undefined) {
  return useQuery({
    queryKey: ['customer', id],
    queryFn: () => api.get<Customer>(`/api/v1/customers/${encodeURIComponent(id!)}`),
    enabled: Boolean(id),
    staleTime: 60_000,
  });
}

/** "Hina Teriitahi · hina@example.pf", as the pickers list a customer. */
export function customerLabel(customer: Pick<Customer, 'id' | 'name' | 'email'>): string {
  return [customer.name, customer.email].filter(Boolean).join(' · ') || customer.id;
}

export function CustomerName({ id }: { id: string }) {
  const customer = useCustomer(id).data;
  const name = customer?.name || customer?.email;
  return (
    <span className="customer-name">
      <Link to={`/customers/${id}`}>{name ?? <code className="id">{id}</code>}</Link>
      {customer?.name && customer.email && <span className="secondary">{customer.email}</span>}
    </span>
  );
}
