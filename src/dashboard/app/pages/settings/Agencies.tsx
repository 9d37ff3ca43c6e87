// Settings → Agencies: the agencies the merchant gave a mandate to manage its account, each by name with what it may
// do; owners and admins change the scopes, transfer the mandate to another agency (by its id) and revoke it, each
// behind a confirmation. The other roles read.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import type { Mandate, Scope } from '../../platform-types.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { TextField } from '../../components/Form.js';
import { Section } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { ScopeChecklist, ScopeList } from '../../components/Scopes.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { useToast } from '../../components/Toasts.js';
import { useMe } from '../../session.js';
import { mayChangeSettings } from '../../../../modules/users/roles.js';

type Action = { kind: 'scopes' | 'transfer' | 'revoke'; mandate: Mandate } | null;

export function agencyName(mandate: Mandate): string {
  return mandate.agencyName || mandate.agencyId;
}

export function AgenciesPart() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const mayChange = mayChangeSettings(useMe().user.role);
  const mandates = useQuery({ queryKey: ['client-mandates'], queryFn: () => api.get<ApiPage<Mandate>>('/api/v1/agency-mandates', { limit: 100 }) });
  const [action, setAction] = useState<Action>(null);
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [agencyId, setAgencyId] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['client-mandates'] });
  const open = (kind: 'scopes' | 'transfer' | 'revoke', mandate: Mandate) => {
    setScopes(mandate.scopes);
    setAgencyId('');
    setAction({ kind, mandate });
  };

  const saveScopes = async (mandate: Mandate) => {
    await api.patch(`/api/v1/agency-mandates/${mandate.id}`, { scopes });
    await refresh();
    toast(t('mandates.saved'));
  };
  const transfer = async (mandate: Mandate) => {
    await api.post(`/api/v1/agency-mandates/${mandate.id}/transfer`, { agencyId: agencyId.trim() });
    await refresh();
    toast(t('mandates.transferred'));
  };
  const revoke = async (mandate: Mandate) => {
    await api.post(`/api/v1/agency-mandates/${mandate.id}/revoke`, {});
    await refresh();
    toast(t('mandates.revoked'));
  };

  const column = createColumnHelper<Mandate>();
  const columns = [
    column.accessor((m) => agencyName(m), { id: 'reference', header: t('mandates.agency') }),
    column.accessor('scopes', { header: t('mandates.scopes'), cell: (c) => <ScopeList scopes={c.getValue()} /> }),
    column.accessor('status', {
      header: t('mandates.status'),
      cell: (c) => <StatusBadge status={c.getValue()} label={t(`agency.portfolio.mandateStatus.${c.getValue()}`)} />,
    }),
    column.accessor('createdAt', { header: t('mandates.since'), cell: (c) => <DateTime value={c.getValue()} /> }),
    ...(!mayChange ? [] : [column.display({
      id: 'actions', header: t('common.actions'),
      cell: (c) => {
        const mandate = c.row.original;
        if (mandate.status !== 'active') return '—';
        const name = agencyName(mandate);
        return (
          <div className="row-actions">
            <button type="button" className="button secondary small" aria-label={t('mandates.editOf', { name })} onClick={() => open('scopes', mandate)}>{t('mandates.edit')}</button>
            <button type="button" className="button secondary small" aria-label={t('mandates.transferOf', { name })} onClick={() => open('transfer', mandate)}>{t('mandates.transfer')}</button>
            <button type="button" className="button secondary small" aria-label={t('mandates.revokeOf', { name })} onClick={() => open('revoke', mandate)}>{t('mandates.revoke')}</button>
          </div>
        );
      },
    })]),
  ];
  const target = action?.mandate ?? null;
  const name = target ? agencyName(target) : '';

  return (
    <Section title={t('mandates.tab')}>
      <p>{t('mandates.intro')}</p>
      {!mayChange && <p className="muted">{t('mandates.readOnly')}</p>}
      <QueryView query={mandates}>
        {(page) => <DataTable caption={t('mandates.caption')} columns={columns} data={page.data} rowKey={(m) => m.id} empty={t('mandates.empty')} />}
      </QueryView>
      <ConfirmDialog open={action?.kind === 'scopes'} title={t('mandates.editTitle', { name })} confirmLabel={t('mandates.save')} onConfirm={() => saveScopes(target!)} onClose={() => setAction(null)}>
        <ScopeChecklist legend={t('mandates.scopes')} value={scopes} onChange={setScopes} />
      </ConfirmDialog>
      <ConfirmDialog open={action?.kind === 'transfer'} title={t('mandates.transferTitle')} confirmLabel={t('mandates.transferConfirm')} danger onConfirm={() => transfer(target!)} onClose={() => setAction(null)}>
        <p>{t('mandates.transferText', { name })}</p>
        <TextField label={t('mandates.agencyId')} required autoComplete="off" spellCheck={false} maxLength={64} value={agencyId} onChange={(e) => setAgencyId(e.target.value)} />
      </ConfirmDialog>
      <ConfirmDialog open={action?.kind === 'revoke'} title={t('mandates.revokeTitle')} confirmLabel={t('mandates.revoke')} danger onConfirm={() => revoke(target!)} onClose={() => setAction(null)}>
        <p>{t('mandates.revokeText', { name })}</p>
      </ConfirmDialog>
    </Section>
  );
}
