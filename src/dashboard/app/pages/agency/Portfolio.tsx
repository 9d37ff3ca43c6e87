// An agency's portfolio: its clients under a mandate (by name, with the scopes in words and since when), acting for
// one (the back-office then shows the client's pages, within the scopes), and revoking a mandate behind a
// confirmation.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import { setActing } from '../../acting.js';
import type { Mandate } from '../../platform-types.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { Page } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { ScopeList } from '../../components/Scopes.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { useToast } from '../../components/Toasts.js';
import { NAV } from '../../nav.js';
import { forgetMerchantData, useMe } from '../../session.js';
import { usePermissions } from '../../permissions.js';

export function clientName(mandate: Mandate): string {
  return mandate.merchantName || mandate.merchantId;
}

export function PortfolioPage() {
  const { t } = useTranslation();
  const me = useMe();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const { can } = usePermissions();
  const mayRevoke = can('POST', '/api/v1/agency-mandates/:id/revoke');
  const mandates = useQuery({ queryKey: ['agency-mandates'], queryFn: () => api.get<ApiPage<Mandate>>('/api/v1/agency/mandates', { limit: 100 }) });
  const [revoking, setRevoking] = useState<Mandate | null>(null);

  const act = (mandate: Mandate) => {
    const name = clientName(mandate);
    setActing({
      mandateId: mandate.id, merchantId: mandate.merchantId, name, scopes: mandate.scopes,
      agencyId: me.merchant.id, agencyName: me.merchant.displayName || me.merchant.name, mode: me.mode,
    });
    forgetMerchantData(queryClient);
    const first = NAV.find((item) => item.scope !== undefined && mandate.scopes.includes(item.scope));
    navigate(first?.to ?? '/payments');
    toast(t('acting.started', { name }));
  };
  const revoke = async (mandate: Mandate) => {
    await api.post(`/api/v1/agency-mandates/${mandate.id}/revoke`, {});
    await queryClient.invalidateQueries({ queryKey: ['agency-mandates'] });
    toast(t('agency.portfolio.revoked'));
  };

  const column = createColumnHelper<Mandate>();
  const columns = [
    column.accessor((m) => clientName(m), { id: 'reference', header: t('agency.portfolio.client') }),
    column.accessor('scopes', { header: t('agency.portfolio.scopes'), cell: (c) => <ScopeList scopes={c.getValue()} /> }),
    column.accessor('status', {
      header: t('agency.portfolio.status'),
      cell: (c) => <StatusBadge status={c.getValue()} label={t(`agency.portfolio.mandateStatus.${c.getValue()}`)} />,
    }),
    column.accessor('createdAt', { header: t('agency.portfolio.since'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.display({
      id: 'actions', header: t('common.actions'),
      cell: (c) => {
        const mandate = c.row.original;
        if (mandate.status !== 'active') return '—';
        const name = clientName(mandate);
        return (
          <div className="row-actions">
            <button type="button" className="button primary small" onClick={() => act(mandate)}>{t('agency.portfolio.actFor', { name })}</button>
            {mayRevoke && (
              <button type="button" className="button secondary small" aria-label={t('agency.portfolio.revokeOf', { name })} onClick={() => setRevoking(mandate)}>
                {t('agency.portfolio.revoke')}
              </button>
            )}
          </div>
        );
      },
    }),
  ];

  return (
    <Page title={t('agency.portfolio.title')}>
      <p>{t('agency.portfolio.intro')}</p>
      <QueryView query={mandates}>
        {(page) => <DataTable caption={t('agency.portfolio.caption')} columns={columns} data={page.data} rowKey={(m) => m.id} empty={t('agency.portfolio.empty')} />}
      </QueryView>
      <ConfirmDialog open={revoking !== null} title={t('agency.portfolio.revokeTitle')} confirmLabel={t('agency.portfolio.revoke')} danger onConfirm={() => revoke(revoking!)} onClose={() => setRevoking(null)}>
        {revoking && <p>{t('agency.portfolio.revokeText', { name: clientName(revoking) })}</p>}
      </ConfirmDialog>
    </Page>
  );
}
