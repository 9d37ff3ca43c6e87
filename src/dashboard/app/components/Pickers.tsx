// Fields that offer their values instead of asking them typed: a colour (the browser's colour picker, with a way back
// to "not set"), a time zone (every IANA zone the browser knows) and a country (every region the browser can name,
// in the user's language, its ISO 3166 code as the value).
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useLang } from '../i18n.js';
import { SelectField, TextField } from './Form.js';

/** A colour or null (not set: the server's default), shown as `fallback` in the picker while not set. */
export function ColorField({ label, value, fallback, onChange }: { label: string; value: string; fallback: string; onChange: (value: string) => void }) {
  const { t } = useTranslation();
  return (
    <div className="color-field">
      <TextField label={label} type="color" value={value || fallback} onChange={(e) => onChange(e.target.value)} hint={value ? value.toLowerCase() : t('settings.colorDefault')} />
      {value && <button type="button" className="button secondary small" onClick={() => onChange('')}>{t('settings.colorReset', { label })}</button>}
    </div>
  );
}

/** The browser's IANA zones; the saved one kept even if this browser does not list it. */
export function TimeZoneSelect({ label, hint, value, onChange }: { label: string; hint?: string; value: string; onChange: (value: string) => void }) {
  const { t } = useTranslation();
  const zones = useMemo(() => {
    const known = Intl.supportedValuesOf('timeZone');
    return value && !known.includes(value) ? [value, ...known] : known;
  }, [value]);
  return (
    <SelectField label={label} hint={hint} value={value} onChange={(e) => onChange(e.target.value)}>
      {!value && <option value="">{t('settings.notSet')}</option>}
      {zones.map((zone) => <option key={zone} value={zone}>{zone.replace(/_/g, ' ')}</option>)}
    </SelectField>
  );
}

/** Codes that name a group of countries or nothing, not a country. */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ']);

/** Every two-letter code the browser names as a region, sorted by its name in the user's language. */
function useCountries(lang: string): Array<{ code: string; name: string }> {
  return useMemo(() => {
    const names = new Intl.DisplayNames([lang], { type: 'region', fallback: 'none' });
    const countries: Array<{ code: string; name: string }> = [];
    for (let first = 65; first <= 90; first += 1) {
      for (let second = 65; second <= 90; second += 1) {
        const code = String.fromCharCode(first, second);
        const name = NOT_COUNTRIES.has(code) ? undefined : names.of(code);
        if (name && name !== code) countries.push({ code, name });
      }
    }
    return countries.sort((a, b) => a.name.localeCompare(b.name, lang));
  }, [lang]);
}

export function CountrySelect({ label, hint, value, onChange }: { label: string; hint?: string; value: string; onChange: (value: string) => void }) {
  const { t } = useTranslation();
  const lang = useLang();
  const countries = useCountries(lang);
  return (
    <SelectField label={label} hint={hint} value={value.toUpperCase()} onChange={(e) => onChange(e.target.value)}>
      <option value="">{t('settings.notSet')}</option>
      {countries.map((c) => <option key={c.code} value={c.code}>{c.name}</option>)}
    </SelectField>
  );
}
