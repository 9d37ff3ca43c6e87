// Picking a customer (a new invoice or subscription, the lists' customer filter): a search by name, email or external
// id (GET /customers?q=, as typed, a moment after the last key) and the matching customers to choose from, newest
// first, each by its name and email. The customer chosen stays a choice whatever the search, so does one given in
// the address (`?customerId=`, a customer's page links so).
import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import type { Customer } from '../../money-types.js';
import { SelectField, TextField } from '../../components/Form.js';
import { customerLabel, useCustomer } from './CustomerName.js';

interface Props {
  label: string;
  /** The empty choice's text ("Choose a customer", or "All" in a filter). */
  placeholder: string;
  value: string;
  onChange: (customerId: string) => void;
  required?: boolean;
}

const SHOWN = 20;

export function CustomerSelect({ label, placeholder, value, onChange, required = true }: Props) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setQ(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);
  const found = useQuery({
    queryKey: ['customers', 'search', q],
    queryFn: () => api.get<ApiPage<Customer>>('/api/v1/customers', { q, limit: SHOWN }),
    placeholderData: keepPreviousData,
  });
  const chosen = useCustomer(value).data;
  const options = found.data?.data ?? [];
  const listed = options.some((c) => c.id === value);
  return (
    <div className="customer-picker">
      <TextField
        label={t('customerPicker.search')} type="search" value={search} onChange={(e) => setSearch(e.target.value)}
        hint={t('customerPicker.hint')} autoComplete="off"
      />
      <SelectField label={label} required={required} value={value} onChange={(e) => onChange(e.target.value)}
        hint={found.isFetched && options.length === 0 ? t('customerPicker.none') : found.data?.hasMore ? t('customerPicker.more', { n: SHOWN }) : undefined}>
        <option value="">{found.isPending ? t('common.loading') : placeholder}</option>
        {!listed && value && <option value={value}>{chosen ? customerLabel(chosen) : value}</option>}
        {options.map((c) => <option key={c.id} value={c.id}>{customerLabel(c)}</option>)}
      </SelectField>
    </div>
  );
}
