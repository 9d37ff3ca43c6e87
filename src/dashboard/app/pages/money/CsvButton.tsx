// "Export CSV": every row a list route answers with Accept: text/csv (its filters applied), saved as a download; the
// server's refusal shown beside the button.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, saveBlob } from '../../api.js';
import { useErrorText } from '../../errors.js';
import { useToast } from '../../components/Toasts.js';

export function CsvButton({ path, query = {}, filename }: { path: string; query?: Record<string, string | undefined>; filename: string }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      saveBlob(await api.blob(path, query, 'text/csv'), filename);
    } catch (error) {
      toast(errorText(error));
    } finally {
      setBusy(false);
    }
  };
  return <button type="button" className="button secondary" disabled={busy} onClick={download}>{t('balance.exportCsv')}</button>;
}
