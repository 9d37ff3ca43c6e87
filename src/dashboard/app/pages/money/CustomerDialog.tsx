// The customer form in a dialog: name, email, phone and external id, for a new customer (POST /api/v1/customers) and
// for changing one (PATCH /api/v1/customers/{id}). The API's refusal (an email or external id already taken, a phone
// it does not accept) is shown in the dialog, which stays open.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Customer } from '../../money-types.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { TextField } from '../../components/Form.js';

export type CustomerFields = Pick<Customer, 'name' | 'email' | 'phone' | 'externalId'>;
const NAMES = ['name', 'email', 'phone', 'externalId'] as const;

interface Props {
  open: boolean;
  title: string;
  confirmLabel: string;
  /** The values the form opens with (a customer's, or none). */
  initial?: CustomerFields;
  /** Gets each field trimmed, '' for an empty one. */
  onSubmit: (fields: Record<keyof CustomerFields, string>) => Promise<unknown>;
  onClose: () => void;
}

export function CustomerDialog({ open, title, confirmLabel, initial, onSubmit, onClose }: Props) {
  const { t } = useTranslation();
  const fromInitial = () => Object.fromEntries(NAMES.map((n) => [n, initial?.[n] ?? ''])) as Record<keyof CustomerFields, string>;
  const [fields, setFields] = useState(fromInitial);
  // A fresh form each time it opens.
  useEffect(() => {
    if (open) setFields(fromInitial());
  }, [open]);
  const field = (name: keyof CustomerFields) => ({ value: fields[name], onChange: (e: { target: { value: string } }) => setFields({ ...fields, [name]: e.target.value }) });
  const submit = () => onSubmit(Object.fromEntries(NAMES.map((n) => [n, fields[n].trim()])) as Record<keyof CustomerFields, string>);
  return (
    <ConfirmDialog open={open} title={title} confirmLabel={confirmLabel} onConfirm={submit} onClose={onClose}>
      <TextField label={t('customers.name')} autoComplete="off" maxLength={200} {...field('name')} />
      <TextField label={t('customers.email')} type="email" autoComplete="off" maxLength={254} {...field('email')} />
      <TextField label={t('customers.phone')} type="tel" autoComplete="off" maxLength={30} {...field('phone')} />
      <TextField label={t('customers.externalId')} hint={t('customers.externalIdHint')} autoComplete="off" maxLength={255} {...field('externalId')} />
    </ConfirmDialog>
  );
}
