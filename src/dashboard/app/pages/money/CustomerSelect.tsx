// The customer a new invoice or subscription is for: a select of the merchant's first 100 customers (name · email),
// and the one given in the address (`?customerId=`, a customer's page links so) even when it is not among them.
import type { ChangeEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import type { Customer } from '../../money-types.js';
import { SelectField } from '../../components/Form.js';

interface Props {
  label: string;
  /** The empty choice's text. */
  placeholder: string;
  value: string;
  onChange: (event: ChangeEvent<HTMLSelectElement>) => void;
}

export function CustomerSelect({ label, placeholder, value, onChange }: Props) {
  const { t } = useTranslation();
  const customers = useQuery({ queryKey: ['customers', 'all'], queryFn: () => api.get<ApiPage<Customer>>('/api/v1/customers', { limit: 100 }) });
  const options = customers.data?.data ?? [];
  const known = options.some((c) => c.id === value);
  return (
    <SelectField label={label} required value={value} onChange={onChange}>
      <option value="">{customers.isPending ? t('common.loading') : placeholder}</option>
      {!known && value && <option value={value}>{value}</option>}
      {options.map((c) => <option key={c.id} value={c.id}>{[c.name, c.email].filter(Boolean).join(' · ') || c.id}</option>)}
    </SelectField>
  );
}
