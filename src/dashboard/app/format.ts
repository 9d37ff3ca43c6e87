// Amounts and dates as the team reads them: amounts in their original currency (with EUR beside XPF, converted by
// the one peg of src/shared/money.ts), dates in the merchant's time zone.
import { formatAmount as formatShared, isCurrency, toEurCents } from '../../shared/money.js';
import type { Lang } from '../../i18n/index.js';

const LOCALES: Record<Lang, string> = { fr: 'fr-FR', en: 'en-GB' };

export function locale(lang: Lang): string {
  return LOCALES[lang];
}

/**
 * An amount of minor units in its currency, as the hosted pages, mails and PDFs write it too (src/shared/money.ts):
 * "2 500 XPF", "25,50 €" in French; "XPF 2,500", "€25.50" in English.
 */
export function formatAmount(amount: number, currency: string, lang: Lang): string {
  if (isCurrency(currency)) return formatShared(amount, currency, lang);
  return `${new Intl.NumberFormat(locale(lang)).format(amount)} ${currency}`;
}

/** EUR cents of an XPF amount (1,000 XPF = 8.38 EUR, rounded half up on integers); null for EUR itself. */
export function eurBeside(amount: number, currency: string): number | null {
  return currency === 'XPF' ? toEurCents(amount, 'XPF') : null;
}

export function formatDateTime(iso: string, timeZone: string, lang: Lang, style: 'datetime' | 'date' = 'datetime'): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = style === 'date' ? { dateStyle: 'medium', timeZone } : { dateStyle: 'medium', timeStyle: 'short', timeZone };
  return new Intl.DateTimeFormat(locale(lang), options).format(date);
}

/** Minutes east of UTC of a time zone at an instant. */
function offsetMinutes(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((asUtc - instant) / 60_000);
}

/**
 * The instant a wall-clock time (`YYYY-MM-DDTHH:MM`, as an <input type="datetime-local"> gives it) is in a time zone,
 * as ISO 8601 UTC. Null for a malformed value.
 */
export function zonedToIso(local: string, timeZone: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!match) return null;
  const [, y, mo, d, h, mi, se] = match.map(Number) as number[];
  return fromWallClock(Date.UTC(y!, mo! - 1, d!, h!, mi!, se || 0), timeZone);
}

/**
 * The instant a day (YYYY-MM-DD) starts in a time zone, as ISO 8601 UTC; `plusDays` moves the day first (the end
 * of a date range is the start of the next day). Null for a malformed day.
 */
export function startOfDay(day: string, timeZone: string, plusDays = 0): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return null;
  return fromWallClock(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + plusDays), timeZone);
}

/** `wallClock` is the wanted local time written as if it were UTC. */
function fromWallClock(wallClock: number, timeZone: string): string {
  // Twice: the offset at the guessed instant may differ from the offset at the true one across a DST change.
  let instant = wallClock - offsetMinutes(wallClock, timeZone) * 60_000;
  instant = wallClock - offsetMinutes(instant, timeZone) * 60_000;
  return new Date(instant).toISOString();
}

/** An instant as the merchant's wall clock, `YYYY-MM-DDTHH:MM` (the value of an <input type="datetime-local">). */
export function toZonedLocal(iso: string, timeZone: string): string {
  const instant = new Date(iso).getTime();
  return new Date(instant + offsetMinutes(instant, timeZone) * 60_000).toISOString().slice(0, 16);
}
