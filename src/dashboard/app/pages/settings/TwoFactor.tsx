// The signed-in user's two-factor authentication (TOTP): enrol by scanning the QR code (or typing the secret) and
// confirming a first code; the ten recovery codes are shown once. Turning it off or getting new recovery codes asks
// the password again.
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, saveBlob } from '../../api.js';
import { ME_KEY, useMe } from '../../session.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { ErrorMessage } from '../../components/ErrorMessage.js';
import { TextField } from '../../components/Form.js';
import { Section } from '../../components/Page.js';
import { useToast } from '../../components/Toasts.js';

interface Enrolment { secret: string; otpauthUrl: string; qrSvg: string }

function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

export function TwoFactorPart() {
  const { t } = useTranslation();
  const me = useMe();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [asking, setAsking] = useState<'disable' | 'regenerate' | null>(null);
  const [password, setPassword] = useState('');
  const refreshMe = () => queryClient.invalidateQueries({ queryKey: ME_KEY });

  const start = async () => {
    setError(null);
    setCodes(null);
    try {
      setEnrolment(await api.post<Enrolment>('/dashboard/api/two-factor/setup', {}));
    } catch (err) {
      setError(err);
    }
  };
  const confirm = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const result = await api.post<{ recoveryCodes: string[] }>('/dashboard/api/two-factor/enable', { code: code.replace(/\s/g, '') });
      setCodes(result.recoveryCodes);
      setEnrolment(null);
      setCode('');
      await refreshMe();
      toast(t('twoFactor.enabled'));
    } catch (err) {
      setError(err);
    }
  };
  const ask = (what: 'disable' | 'regenerate') => {
    setPassword('');
    setAsking(what);
  };

  return (
    <Section title={t('settings.twoFactor')}>
      <p>{me.user.twoFactorEnabled ? t('twoFactor.isOn') : t('twoFactor.isOff')}</p>
      {codes && (
        <div className="notice">
          <p><strong>{t('twoFactor.recoveryCodes')}</strong> {t('twoFactor.recoveryNote')}</p>
          <ul className="recovery-codes" aria-label={t('twoFactor.recoveryCodes')}>{codes.map((c) => <li key={c}><code>{c}</code></li>)}</ul>
          <RecoveryCodeActions codes={codes} />
        </div>
      )}
      {!me.user.twoFactorEnabled && !enrolment && (
        <button type="button" className="button primary" onClick={start}>{t('twoFactor.setUp')}</button>
      )}
      {enrolment && (
        <form className="stack" onSubmit={confirm}>
          <p>{t('twoFactor.scan')}</p>
          <img className="qr" src={svgDataUrl(enrolment.qrSvg)} alt={t('twoFactor.qrAlt')} width={192} height={192} />
          <p>{t('twoFactor.orType')} <code className="totp-secret">{enrolment.secret}</code></p>
          <TextField label={t('signIn.code')} hint={t('twoFactor.codeHint')} autoComplete="one-time-code" inputMode="numeric" required value={code} onChange={(e) => setCode(e.target.value)} />
          <div><button type="submit" className="button primary">{t('twoFactor.turnOn')}</button></div>
        </form>
      )}
      {me.user.twoFactorEnabled && (
        <div className="row-actions">
          <button type="button" className="button secondary" onClick={() => ask('regenerate')}>{t('twoFactor.regenerate')}</button>
          <button type="button" className="button secondary" onClick={() => ask('disable')}>{t('twoFactor.turnOff')}</button>
        </div>
      )}
      <ErrorMessage error={error} />
      <ConfirmDialog
        open={asking !== null} onClose={() => setAsking(null)} danger={asking === 'disable'}
        title={asking === 'disable' ? t('twoFactor.turnOffTitle') : t('twoFactor.regenerateTitle')}
        confirmLabel={asking === 'disable' ? t('twoFactor.turnOff') : t('twoFactor.regenerate')}
        onConfirm={async () => {
          if (asking === 'disable') {
            await api.post('/dashboard/api/two-factor/disable', { password });
            setCodes(null);
            await refreshMe();
            toast(t('twoFactor.disabled'));
          } else {
            setCodes((await api.post<{ recoveryCodes: string[] }>('/dashboard/api/two-factor/recovery-codes', { password })).recoveryCodes);
          }
        }}
      >
        <TextField label={t('signIn.password')} type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </ConfirmDialog>
    </Section>
  );
}

/** The codes copied at once, or saved as a text file (one a line) to keep with the user's other papers. */
function RecoveryCodeActions({ codes }: { codes: string[] }) {
  const { t } = useTranslation();
  const me = useMe();
  const [copied, setCopied] = useState(false);
  const text = `${codes.join('\n')}\n`;
  const copy = async () => {
    await navigator.clipboard?.writeText(text).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div className="section-actions">
      <button type="button" className="button secondary small" onClick={copy}>{copied ? t('twoFactor.codesCopied') : t('twoFactor.copyCodes')}</button>
      <button type="button" className="button secondary small" onClick={() => saveBlob(new Blob([text], { type: 'text/plain' }), `motu-recovery-codes-${me.user.email}.txt`)}>
        {t('twoFactor.downloadCodes')}
      </button>
    </div>
  );
}
