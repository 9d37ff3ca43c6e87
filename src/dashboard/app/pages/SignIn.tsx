// Sign-in: email and password; when the account has two-factor on, the server answers TWO_FACTOR_REQUIRED and the
// page asks the code too, then sends all three again. A locked account is told how many minutes remain.
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, ApiError } from '../api.js';
import { acceptMe, useMeQuery } from '../session.js';
import type { Me } from '../types.js';
import { TextField } from '../components/Form.js';
import { ErrorMessage } from '../components/ErrorMessage.js';
import { AuthFrame } from './AuthFrame.js';

export function SignInPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [askCode, setAskCode] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const session = useMeQuery();
  const from = (location.state as { from?: string } | null)?.from;
  const destination = from && from !== '/sign-in' ? from : '/';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const me = await api.post<Me>('/dashboard/api/sign-in', askCode ? { email, password, code: code.replace(/\s/g, '') } : { email, password });
      acceptMe(queryClient, me);
      navigate(destination, { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'TWO_FACTOR_REQUIRED') {
        setAskCode(true);
      } else if (err instanceof ApiError && err.code === 'ACCOUNT_LOCKED') {
        const seconds = err.retryAfterSeconds ?? Number(err.body.details?.retryAfterSeconds ?? 0);
        setError(new Error(t('signIn.locked', { minutes: Math.max(1, Math.ceil(seconds / 60)) })));
      } else {
        setError(err);
      }
    } finally {
      setBusy(false);
    }
  };

  // Already signed in (a bookmark, the back button): straight to the back-office.
  if (session.isSuccess) return <Navigate to={destination} replace />;
  return (
    <AuthFrame title={t('signIn.title')}>
      <form className="stack" onSubmit={submit}>
        <TextField label={t('signIn.email')} type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <TextField label={t('signIn.password')} type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        {askCode && (
          <TextField
            label={t('signIn.code')} hint={t('signIn.codeHint')} autoComplete="one-time-code" inputMode="text" required autoFocus
            value={code} onChange={(e) => setCode(e.target.value)}
          />
        )}
        <ErrorMessage error={error} />
        <button type="submit" className="button primary" disabled={busy}>{t('signIn.submit')}</button>
      </form>
    </AuthFrame>
  );
}
