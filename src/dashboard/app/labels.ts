// Texts of the API's enumerations (payment status, roles, event outcomes), with the raw value when the catalog does
// not know one yet (a status added server-side shows, untranslated, instead of breaking the page).
import type { TFunction } from 'i18next';

export function statusLabel(t: TFunction, status: string): string {
  const key = `status.${status}` as const;
  return t(key as 'status.pending', { defaultValue: status });
}

/** An invoice's status: French agrees it with "facture" (Payée) where the shared word does not. */
export function invoiceStatusLabel(t: TFunction, status: string): string {
  return t(`invoiceStatus.${status}` as 'invoiceStatus.paid', { defaultValue: statusLabel(t, status) });
}

export function roleLabel(t: TFunction, role: string): string {
  return t(`roles.${role}` as 'roles.owner', { defaultValue: role });
}
