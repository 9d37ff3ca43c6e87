// Before anyone drafts an invoice: whether invoicing is open (GET /api/v1/billing/settings, what the API itself
// checks at finalization) and, while it is not, the legal identity's missing fields and where to complete them.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { catalog } from '../../../../i18n/index.js';
import { api } from '../../api.js';
import { useLang } from '../../i18n.js';

interface BillingSettings {
  issuable: boolean;
  completeness: { missing: Array<{ field: string }> };
}

export function InvoicingNotice() {
  const { t } = useTranslation();
  const lang = useLang();
  const settings = useQuery({ queryKey: ['billing-settings'], queryFn: () => api.get<BillingSettings>('/api/v1/billing/settings'), staleTime: 0 });
  if (!settings.data || settings.data.issuable) return null;
  const names = catalog[lang].dashboard.errors.fields as Record<string, string>;
  const missing = settings.data.completeness.missing.map((m) => names[m.field] ?? m.field).join(', ');
  return (
    <div className="notice">
      <p>{t('invoicingNotice.closed', { missing })} <Link to="/settings">{t('invoicingNotice.act')}</Link></p>
    </div>
  );
}
