// API keys of the current mode: created with a permission and, optionally, bound to a store; the secret is shown
// once, at creation; a key is revoked after a confirmation. A key made here never does more than its maker's role,
// which the list shows beside the maker.
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import type { ApiKey, Store } from '../../types.js';
import { useMe } from '../../session.js';
import { roleLabel } from '../../labels.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { ErrorMessage } from '../../components/ErrorMessage.js';
import { SelectField } from '../../components/Form.js';
import { Section } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { SecretOnce } from '../../components/SecretOnce.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { useToast } from '../../components/Toasts.js';

export function ApiKeysPart() {
  const { t } = useTranslation();
  const me = useMe();
  const queryClient = useQueryClient();
  const toast = useToast();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => api.get<ApiPage<ApiKey>>('/dashboard/api/keys') });
  const stores = useQuery({ queryKey: ['stores'], queryFn: () => api.get<ApiPage<Store>>('/dashboard/api/stores') });
  const [permission, setPermission] = useState('write');
  const [storeId, setStoreId] = useState('');
  const [created, setCreated] = useState<ApiKey | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const storeName = (id: string | null) => (id ? stores.data?.data.find((s) => s.id === id)?.name ?? id : t('apiKeys.allStores'));

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const key = await api.post<ApiKey>('/dashboard/api/keys', { permission, ...(storeId ? { storeId } : {}) });
      setCreated(key);
      await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    } catch (err) {
      setError(err);
    }
  };

  const column = createColumnHelper<ApiKey>();
  const columns = [
    column.accessor('last4', { header: t('apiKeys.key'), cell: (c) => <code>{`sk_${c.row.original.mode}_…${c.getValue()}`}</code> }),
    column.accessor('permission', { header: t('apiKeys.permission'), cell: (c) => (c.getValue() === 'read' ? t('apiKeys.read') : t('apiKeys.write')) }),
    column.accessor('storeId', { header: t('apiKeys.store'), cell: (c) => storeName(c.getValue()) }),
    column.accessor('createdAt', { header: t('apiKeys.created'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor('createdBy', {
      header: t('apiKeys.madeBy'),
      cell: (c) => {
        const maker = c.getValue();
        const role = c.row.original.role;
        return maker ? t('apiKeys.madeByUser', { email: maker.email, role: role ? roleLabel(t, role) : '' }) : t('apiKeys.madeByOperator');
      },
    }),
    column.accessor('revokedAt', { header: t('apiKeys.status'), cell: (c) => <StatusBadge status={c.getValue() ? 'revoked' : 'active'} /> }),
    column.display({
      id: 'actions', header: t('common.actions'),
      cell: (c) => (c.row.original.revokedAt ? null : (
        <button type="button" className="button secondary small" aria-label={t('apiKeys.revokeKey', { last4: c.row.original.last4 })} onClick={() => setRevoking(c.row.original)}>
          {t('apiKeys.revoke')}
        </button>
      )),
    }),
  ];

  return (
    <>
      <Section title={t('apiKeys.create')}>
        <form className="grid-form" onSubmit={create}>
          <SelectField label={t('apiKeys.permission')} value={permission} onChange={(e) => setPermission(e.target.value)}>
            <option value="write">{t('apiKeys.write')}</option>
            <option value="read">{t('apiKeys.read')}</option>
          </SelectField>
          <SelectField label={t('apiKeys.store')} value={storeId} onChange={(e) => setStoreId(e.target.value)}>
            <option value="">{t('apiKeys.allStores')}</option>
            {(stores.data?.data ?? []).map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
          </SelectField>
          <div><button type="submit" className="button primary">{t('apiKeys.createButton', { mode: me.mode })}</button></div>
        </form>
        <p className="hint">{t('apiKeys.ceiling', { role: roleLabel(t, me.user.role) })}</p>
        <ErrorMessage error={error} />
        {created?.secretKey && <SecretOnce label={t('apiKeys.newKey')} note={t('apiKeys.shownOnce')} value={created.secretKey} />}
      </Section>
      <QueryView query={keys}>
        {(page) => <DataTable caption={t('apiKeys.caption')} columns={columns} data={page.data} rowKey={(k) => k.id} empty={t('apiKeys.empty')} />}
      </QueryView>
      <ConfirmDialog
        open={revoking !== null} title={t('apiKeys.revokeTitle')} confirmLabel={t('apiKeys.revoke')} danger onClose={() => setRevoking(null)}
        onConfirm={async () => {
          await api.del(`/dashboard/api/keys/${revoking!.id}`);
          await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
          toast(t('apiKeys.revoked'));
        }}
      >
        <p>{t('apiKeys.revokeText', { last4: revoking?.last4 ?? '' })}</p>
      </ConfirmDialog>
    </>
  );
}
