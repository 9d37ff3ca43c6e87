// A confirmation before an action that moves money or cannot be undone: a native modal <dialog> (the browser traps
// focus in it and closes it on Escape), focus back on the button that opened it when it closes, and the server's
// refusal shown inside it.
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorMessage } from './ErrorMessage.js';

interface Props {
  open: boolean;
  title: string;
  /** The confirming button's text (its accessible name). */
  confirmLabel: string;
  danger?: boolean;
  /** The currency of the amounts at stake, for a refusal whose amounts do not name theirs. */
  currency?: string;
  children?: ReactNode;
  /** Runs the action; a rejection is shown in the dialog, which stays open. */
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}

export function ConfirmDialog({ open, title, confirmLabel, danger, currency, children, onConfirm, onClose }: Props) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement as HTMLElement | null;
      setError(null);
      dialog.showModal();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  const closed = () => {
    opener.current?.focus();
    onClose();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      ref.current?.close();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={closed}>
      <form onSubmit={submit}>
        <h2 id={titleId}>{title}</h2>
        {children}
        <ErrorMessage error={error} currency={currency} />
        <div className="dialog-actions">
          <button type="button" className="button secondary" onClick={() => ref.current?.close()}>{t('common.back')}</button>
          <button type="submit" className={danger ? 'button danger' : 'button primary'} disabled={busy}>{confirmLabel}</button>
        </div>
      </form>
    </dialog>
  );
}
