// What a refusal says to the team, in their language: written from the API's `code` and `details` with the catalog
// (src/i18n/*-errors.ts), never from the English `message`. Amounts in the details are shown as every amount is,
// in their currency (the answer's own `details.currency`, else the one the page knows); statuses by their label.
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { catalog, fillText, type Lang } from '../../i18n/index.js';
import { ApiError } from './api.js';
import { formatAmount } from './format.js';
import { useLang } from './i18n.js';
import { statusLabel } from './labels.js';
import type { en } from '../../i18n/en.js';

type Codes = typeof en.dashboard.errors.codes;
type Fields = typeof en.dashboard.errors.fields;

/** Details that are amounts in minor units. */
const AMOUNTS = ['refundable', 'available', 'requested', 'creditable', 'amountRemaining', 'disputable', 'disputedAmount', 'authorizedAmount', 'capturedAmount', 'refundedAmount'];

function known<T extends object>(table: T, key: string): key is Extract<keyof T, string> {
  return Object.prototype.hasOwnProperty.call(table, key);
}

function fieldName(field: string, fields: Fields): string {
  return known(fields, field) ? fields[field] : field;
}

export function describeError(error: unknown, t: TFunction, lang: Lang, currency?: string): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  const { code, details = {} } = error.body;
  if (code === 'NETWORK_ERROR') return t('errors.network');
  // Acting for a client: the mandate's refusals, its missing scope in words.
  if (code === 'PERMISSION_DENIED' && typeof details.scope === 'string') {
    const scopes = catalog[lang].dashboard.scopes as Record<string, string>;
    return fillText(catalog[lang].dashboard.acting.scopeDenied, { scope: known(scopes, details.scope) ? scopes[details.scope]! : details.scope });
  }
  if (code === 'MANDATE_REVOKED') return catalog[lang].dashboard.acting.revoked;
  const texts = catalog[lang].dashboard.errors;
  if (!known<Codes>(texts.codes, code)) return t('errors.unknown', { status: error.status });

  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(details)) if (typeof value === 'string' || typeof value === 'number') values[key] = String(value);
  const unit = typeof details.currency === 'string' ? details.currency : currency;
  for (const key of AMOUNTS) {
    const amount = details[key];
    if (typeof amount === 'number' && unit) values[key] = formatAmount(amount, unit, lang);
  }
  if (typeof details.status === 'string') values.status = statusLabel(t, details.status).toLocaleLowerCase(lang);
  if (typeof details.retryAfterSeconds === 'number') values.minutes = String(Math.ceil(details.retryAfterSeconds / 60));
  if (Array.isArray(details.missing)) {
    values.missing = details.missing.map((m: unknown) => fieldName(typeof m === 'object' && m && 'field' in m ? String(m.field) : String(m), texts.fields)).join(', ');
  }

  if (code === 'VALIDATION_ERROR' || code === 'ALREADY_EXISTS') {
    const listed = Array.isArray(error.body.fields) ? error.body.fields.map((f) => f.field ?? '').filter(Boolean) : [];
    const names = listed.length > 0 ? listed : typeof details.field === 'string' ? [details.field] : [];
    const only = names.length === 1 ? names[0]! : null;
    if (code === 'VALIDATION_ERROR' && only && known(texts.fieldReasons, only)) return texts.fieldReasons[only];
    values.field = names.map((name) => fieldName(name, texts.fields)).join(', ') || fieldName('body', texts.fields);
  }
  // The catalog's text itself, filled: i18next would read the codes' underscores as context suffixes.
  return fillText(texts.codes[code], values);
}

/** `describeError` in the user's language; `currency` is the page's, for amounts whose answer does not name it. */
export function useErrorText(): (error: unknown, currency?: string) => string {
  const { t } = useTranslation();
  const lang = useLang();
  return (error, currency) => describeError(error, t, lang, currency);
}
