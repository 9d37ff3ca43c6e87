// On the Go live page in test mode: the switch to live mode right where the page says the live keys, endpoints and
// bank accounts are made in live mode (the header's switch does the same).
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from '../../api.js';
import { ErrorMessage } from '../../components/ErrorMessage.js';
import { useToast } from '../../components/Toasts.js';
import { acceptMe, forgetMerchantData, useMe } from '../../session.js';
import type { Me } from '../../types.js';

export function SwitchToLive() {
  const { t } = useTranslation();
  const me = useMe();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (me.mode === 'live') return null;
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      acceptMe(queryClient, await api.post<Me>('/dashboard/api/mode', { mode: 'live' }));
      forgetMerchantData(queryClient);
      toast(t('shell.nowLive'));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="notice">
      <p>{t('goLive.liveSwitch')}</p>
      <button type="button" className="button primary small" disabled={busy} onClick={go}>{t('goLive.switchButton')}</button>
      <ErrorMessage error={error} />
    </div>
  );
}
