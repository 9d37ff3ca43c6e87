// The merchant's branding (the name, logo and colours customers see on the hosted pages) and its legal identity (what
// invoices carry). Empty means "not set": the server's default applies.
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from '../../api.js';
import { ME_KEY } from '../../session.js';
import type { MerchantSettings } from '../../types.js';
import { ErrorMessage } from '../../components/ErrorMessage.js';
import { TextField } from '../../components/Form.js';
import { ColorField, CountrySelect, TimeZoneSelect } from '../../components/Pickers.js';
import { Section } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { useToast } from '../../components/Toasts.js';
import { usePermissions } from '../../permissions.js';
import { InvoiceTermsForm } from './InvoiceTerms.js';

const KEY = ['settings'];

export function BusinessPart() {
  const settings = useQuery({ queryKey: KEY, queryFn: () => api.get<MerchantSettings>('/dashboard/api/settings') });
  return <QueryView query={settings}>{(found) => <><BusinessForms settings={found} /><InvoiceTermsForm settings={found} /></>}</QueryView>;
}

const orNull = (value: string) => (value.trim() === '' ? null : value.trim());

export function useSave() {
  const queryClient = useQueryClient();
  const toast = useToast();
  const { t } = useTranslation();
  const [error, setError] = useState<unknown>(null);
  const save = async (patch: Partial<MerchantSettings>) => {
    setError(null);
    try {
      queryClient.setQueryData(KEY, await api.patch<MerchantSettings>('/dashboard/api/settings', patch));
      // The header shows the display name and dates use the time zone: read `me` again.
      await queryClient.invalidateQueries({ queryKey: ME_KEY });
      toast(t('common.saved'));
    } catch (err) {
      setError(err);
    }
  };
  return { save, error };
}

/** The file's bytes in base64, as the logo route takes them (what they are is checked by the server, from the bytes). */
function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** The logo on the payment pages: upload (PNG, JPEG, WebP; refused files keep the current logo) or remove. */
function LogoPart({ settings, mayChange }: { settings: MerchantSettings; mayChange: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [error, setError] = useState<unknown>(null);
  const run = async (call: () => Promise<MerchantSettings>) => {
    setError(null);
    try {
      queryClient.setQueryData(KEY, await call());
      toast(t('common.saved'));
    } catch (err) {
      setError(err);
    }
  };
  const upload = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (file) void run(async () => api.put<MerchantSettings>('/dashboard/api/settings/logo', { image: await base64Of(file) }));
  };
  return (
    <div className="field stack">
      <label htmlFor="logo-file">{t('settings.logo')}</label>
      {settings.logoUrl
        ? <img src={settings.logoUrl} alt={t('settings.logoCurrent')} width={64} height={64} className="logo-preview" />
        : <p className="muted">{t('settings.logoNone')}</p>}
      <input id="logo-file" type="file" accept="image/png,image/jpeg,image/webp" aria-describedby="logo-hint" disabled={!mayChange} onChange={upload} />
      <p className="muted" id="logo-hint">{t('settings.logoHint')}</p>
      <ErrorMessage error={error} />
      {mayChange && settings.logoUrl && <div><button type="button" className="button" onClick={() => void run(() => api.del<MerchantSettings>('/dashboard/api/settings/logo'))}>{t('settings.removeLogo')}</button></div>}
    </div>
  );
}

function BusinessForms({ settings }: { settings: MerchantSettings }) {
  const { t } = useTranslation();
  const branding = useSave();
  const legal = useSave();
  const [displayName, setDisplayName] = useState(settings.displayName ?? '');
  const [primaryColor, setPrimaryColor] = useState(settings.primaryColor ?? '');
  const [accentColor, setAccentColor] = useState(settings.accentColor ?? '');
  const [timezone, setTimezone] = useState(settings.timezone ?? '');
  const [legalName, setLegalName] = useState(settings.legalName ?? '');
  const [line1, setLine1] = useState(settings.address?.line1 ?? '');
  const [line2, setLine2] = useState(settings.address?.line2 ?? '');
  const [postalCode, setPostalCode] = useState(settings.address?.postalCode ?? '');
  const [city, setCity] = useState(settings.address?.city ?? '');
  const [country, setCountry] = useState(settings.address?.country ?? '');
  const [registrationNumber, setRegistrationNumber] = useState(settings.registrationNumber ?? '');
  const [taxId, setTaxId] = useState(settings.taxId ?? '');

  const mayChange = usePermissions().can('PATCH', '/dashboard/api/settings');
  const saveBranding = (event: FormEvent) => {
    event.preventDefault();
    void branding.save({ displayName: orNull(displayName), primaryColor: orNull(primaryColor), accentColor: orNull(accentColor), timezone: orNull(timezone) ?? undefined });
  };
  const saveLegal = (event: FormEvent) => {
    event.preventDefault();
    const anyAddress = [line1, postalCode, city, country].some((v) => v.trim());
    void legal.save({
      legalName: orNull(legalName), registrationNumber: orNull(registrationNumber), taxId: orNull(taxId),
      address: anyAddress ? { line1: line1.trim(), ...(line2.trim() ? { line2: line2.trim() } : {}), postalCode: postalCode.trim(), city: city.trim(), country: country.trim().toUpperCase() } : null,
    });
  };

  return (
    <>
      <Section title={t('settings.branding')}>
        <LogoPart settings={settings} mayChange={mayChange} />
        <form className="stack" onSubmit={saveBranding}><fieldset className="bare stack" disabled={!mayChange}>
          <p className="muted">{t('settings.merchantName', { name: settings.name })}</p>
          <TextField label={t('settings.displayName')} hint={t('settings.displayNameHint')} maxLength={100} value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
          <ColorField label={t('settings.primaryColor')} fallback="#0057b8" value={primaryColor} onChange={setPrimaryColor} />
          <ColorField label={t('settings.accentColor')} fallback="#ff6a13" value={accentColor} onChange={setAccentColor} />
          <TimeZoneSelect label={t('settings.timezone')} hint={t('settings.timezoneHint')} value={timezone} onChange={setTimezone} />
          <ErrorMessage error={branding.error} />
          {mayChange && <div><button type="submit" className="button primary">{t('settings.saveBranding')}</button></div>}
        </fieldset></form>
      </Section>
      <Section title={t('settings.legal')}>
        <form className="stack" onSubmit={saveLegal}><fieldset className="bare stack" disabled={!mayChange}>
          <p className="muted">{t('settings.legalHint')}</p>
          <TextField label={t('settings.legalName')} maxLength={200} value={legalName} onChange={(e) => setLegalName(e.target.value)} />
          <TextField label={t('settings.line1')} maxLength={200} value={line1} onChange={(e) => setLine1(e.target.value)} />
          <TextField label={t('settings.line2')} maxLength={200} value={line2} onChange={(e) => setLine2(e.target.value)} />
          <TextField label={t('settings.postalCode')} maxLength={20} value={postalCode} onChange={(e) => setPostalCode(e.target.value)} />
          <TextField label={t('settings.city')} maxLength={100} value={city} onChange={(e) => setCity(e.target.value)} />
          <CountrySelect label={t('settings.country')} value={country} onChange={setCountry} />
          <TextField label={t('settings.registrationNumber')} hint={t('settings.registrationHint')} maxLength={50} value={registrationNumber} onChange={(e) => setRegistrationNumber(e.target.value)} />
          <TextField label={t('settings.taxId')} maxLength={50} value={taxId} onChange={(e) => setTaxId(e.target.value)} />
          <ErrorMessage error={legal.error} />
          {mayChange && <div><button type="submit" className="button primary">{t('settings.saveLegal')}</button></div>}
        </fieldset></form>
      </Section>
    </>
  );
}
