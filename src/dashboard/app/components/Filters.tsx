// A list's filters: a search landmark holding fields, applied on submit (one request, not one per keystroke),
// and a reset back to everything.
import type { FormEvent, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function Filters({ label, children, onApply, onReset }: { label: string; children: ReactNode; onApply: () => void; onReset: () => void }) {
  const { t } = useTranslation();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply();
  };
  return (
    <form className="filters" role="search" aria-label={label} onSubmit={submit}>
      <div className="filter-fields">{children}</div>
      <div className="filter-actions">
        <button type="submit" className="button primary">{t('common.applyFilters')}</button>
        <button type="button" className="button secondary" onClick={onReset}>{t('common.resetFilters')}</button>
      </div>
    </form>
  );
}
