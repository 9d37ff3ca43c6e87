// An agency's invitations: a new one (the client's email and the scopes asked, chosen in words), its link shown with a
// Copy button to send it, and the list with each invitation's status and expiry; a pending one may be cancelled.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import type { Invitation, Scope } from '../../platform-types.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { CopyLink } from '../../components/CopyLink.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { TextField } from '../../components/Form.js';
import { Page } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { ScopeChecklist, ScopeList } from '../../components/Scopes.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { useToast } from '../../components/Toasts.js';
import { usePermissions } from '../../permissions.js';

export function InvitationsPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const { can } = usePermissions();
  const mayInvite = can('POST', '/api/v1/agency/invitations');
  const invitations = useQuery({ queryKey: ['agency-invitations'], queryFn: () => api.get<ApiPage<Invitation>>('/api/v1/agency/invitations', { limit: 100 }) });
  const [creating, setCreating] = useState(false);
  const [email, setEmail] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['payments.read']);
  const [made, setMade] = useState<Invitation | null>(null);
  const [cancelling, setCancelling] = useState<Invitation | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['agency-invitations'] });

  const create = async () => {
    if (scopes.length === 0) throw new Error(t('agency.invitations.noScope'));
    const invitation = await api.post<Invitation>('/api/v1/agency/invitations', { email: email.trim(), scopes });
    setMade(invitation);
    await refresh();
    toast(t('agency.invitations.created'));
  };
  const cancel = async (invitation: Invitation) => {
    await api.post(`/api/v1/agency/invitations/${invitation.id}/cancel`, {});
    if (made?.id === invitation.id) setMade(null);
    await refresh();
    toast(t('agency.invitations.cancelled'));
  };

  const column = createColumnHelper<Invitation>();
  const columns = [
    column.accessor('email', { id: 'reference', header: t('agency.invitations.email') }),
    column.accessor('scopes', { header: t('agency.portfolio.scopes'), cell: (c) => <ScopeList scopes={c.getValue()} /> }),
    column.accessor('status', {
      header: t('agency.invitations.status'),
      cell: (c) => <StatusBadge status={c.getValue()} label={t(`agency.invitations.invitationStatus.${c.getValue()}`, { defaultValue: c.getValue() })} />,
    }),
    column.accessor('expiresAt', { header: t('agency.invitations.expiresAt'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor('createdAt', { header: t('agency.invitations.createdAt'), cell: (c) => <DateTime value={c.getValue()} /> }),
    ...(!mayInvite ? [] : [column.display({
      id: 'actions', header: t('common.actions'),
      cell: (c) => (c.row.original.status !== 'pending' ? '—' : (
        <button type="button" className="button secondary small" aria-label={t('agency.invitations.cancelOf', { email: c.row.original.email })} onClick={() => setCancelling(c.row.original)}>
          {t('agency.invitations.cancel')}
        </button>
      )),
    })]),
  ];

  return (
    <Page
      title={t('agency.invitations.title')}
      actions={mayInvite && <button type="button" className="button primary" onClick={() => { setEmail(''); setScopes(['payments.read']); setCreating(true); }}>{t('agency.invitations.create')}</button>}
    >
      <p>{t('agency.invitations.intro')}</p>
      {made?.url && <CopyLink label={t('agency.invitations.link')} note={t('agency.invitations.created')} url={made.url} />}
      <QueryView query={invitations}>
        {(page) => <DataTable caption={t('agency.invitations.caption')} columns={columns} data={page.data} rowKey={(i) => i.id} empty={t('agency.invitations.empty')} />}
      </QueryView>
      <ConfirmDialog open={creating} title={t('agency.invitations.createTitle')} confirmLabel={t('agency.invitations.createConfirm')} onConfirm={create} onClose={() => setCreating(false)}>
        <div className="stack">
          <TextField label={t('agency.invitations.email')} type="email" required autoComplete="off" maxLength={254} value={email} onChange={(e) => setEmail(e.target.value)} />
          <ScopeChecklist legend={t('agency.invitations.scopes')} hint={t('agency.invitations.scopesHint')} value={scopes} onChange={setScopes} />
        </div>
      </ConfirmDialog>
      <ConfirmDialog open={cancelling !== null} title={t('agency.invitations.cancelTitle')} confirmLabel={t('agency.invitations.cancel')} danger onConfirm={() => cancel(cancelling!)} onClose={() => setCancelling(null)}>
        {cancelling && <p>{t('agency.invitations.cancelText', { email: cancelling.email })}</p>}
      </ConfirmDialog>
    </Page>
  );
}
