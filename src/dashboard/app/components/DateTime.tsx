// A date as the merchant's team reads it: in the merchant's time zone (its settings), in the user's language.
import { formatDateTime } from '../format.js';
import { useLang } from '../i18n.js';
import { useOptionalMe } from '../session.js';

export function useTimeZone(): string {
  return useOptionalMe()?.merchant.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export function DateTime({ value, style = 'datetime' }: { value: string | null | undefined; style?: 'datetime' | 'date' }) {
  const lang = useLang();
  const timeZone = useTimeZone();
  if (!value) return <span>—</span>;
  return <time dateTime={value}>{formatDateTime(value, timeZone, lang, style)}</time>;
}
