// Texts of the API's enumerations (payment status, roles, event outcomes), with the raw value when the catalog does
// not know one yet (a status added server-side shows, untranslated, instead of breaking the page).
import type { TFunction } from 'i18next';

export function statusLabel(t: TFunction, status: string): string {
  const key = `status.${status}` as const;
  return t(key as 'status.pending', { defaultValue: status });
}

export function roleLabel(t: TFunction, role: string): string {
  return t(`roles.${role}` as 'roles.owner', { defaultValue: role });
}
