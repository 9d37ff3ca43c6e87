// The set-up link of a new user (motu users create, or an invitation): choose a password (twice), then signed in.
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, ApiError } from '../api.js';
import { acceptMe } from '../session.js';
import type { Me } from '../types.js';
import { TextField } from '../components/Form.js';
import { ErrorMessage } from '../components/ErrorMessage.js';
import { QueryView } from '../components/QueryView.js';
import { AuthFrame } from './AuthFrame.js';

const MIN_PASSWORD = 12;

export function SetupPage() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const link = useQuery({ queryKey: ['setup', token], queryFn: () => api.get<{ email: string; merchantName: string }>(`/dashboard/api/setup/${encodeURIComponent(token)}`), retry: false });
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [checked, setChecked] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const tooShort = password.length < MIN_PASSWORD;
  // The server refuses a password that already opens this address's account in another team (each needs its own).
  const refusedPassword = error instanceof ApiError && error.code === 'VALIDATION_ERROR' && Array.isArray(error.body.fields)
    && error.body.fields.some((f) => f.field === 'password' && f.message?.includes('another team'));
  const mismatch = password !== confirm;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (tooShort || mismatch) return;
    setBusy(true);
    setError(null);
    try {
      acceptMe(queryClient, await api.post<Me>('/dashboard/api/setup', { token, password }));
      navigate('/', { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame title={t('setup.title')}>
      <QueryView query={link}>
        {(found) => (
          <form className="stack" onSubmit={submit} noValidate>
            <p>{t('setup.intro', { email: found.email, merchant: found.merchantName })}</p>
            <TextField
              label={t('setup.password')} type="password" autoComplete="new-password" required minLength={MIN_PASSWORD}
              hint={t('setup.passwordHint', { n: MIN_PASSWORD })}
              error={checked && tooShort ? t('setup.tooShort', { n: MIN_PASSWORD }) : refusedPassword ? t('setup.otherTeam') : null}
              value={password} onChange={(e) => setPassword(e.target.value)}
            />
            <TextField
              label={t('setup.confirm')} type="password" autoComplete="new-password" required
              error={checked && !tooShort && mismatch ? t('setup.mismatch') : null}
              value={confirm} onChange={(e) => setConfirm(e.target.value)}
            />
            {!refusedPassword && <ErrorMessage error={error} />}
            <button type="submit" className="button primary" disabled={busy}>{t('setup.submit')}</button>
          </form>
        )}
      </QueryView>
    </AuthFrame>
  );
}
