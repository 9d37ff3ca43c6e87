// Webhook endpoints (create, disable, enable again, delete) and the signing secret (reveal, rotate).
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../format.js';
import { useLang } from '../../i18n.js';
import { api, type Page as ApiPage } from '../../api.js';
import type { WebhookEndpoint } from '../../types.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime, useTimeZone } from '../../components/DateTime.js';
import { ErrorMessage } from '../../components/ErrorMessage.js';
import { useErrorText } from '../../errors.js';
import { TextField } from '../../components/Form.js';
import { Section } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { SecretOnce } from '../../components/SecretOnce.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { useToast } from '../../components/Toasts.js';
import { usePermissions } from '../../permissions.js';

const KEY = ['webhook-endpoints'];

export function WebhooksPart() {
  const { readSecrets } = usePermissions();
  return (
    <>
      <EndpointsSection />
      {readSecrets && <SigningSecretSection />}
    </>
  );
}

function EndpointsSection() {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const queryClient = useQueryClient();
  const toast = useToast();
  const endpoints = useQuery({ queryKey: KEY, queryFn: () => api.get<ApiPage<WebhookEndpoint>>('/api/v1/webhook-endpoints', { limit: 100 }) });
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [deleting, setDeleting] = useState<WebhookEndpoint | null>(null);
  const reload = () => queryClient.invalidateQueries({ queryKey: KEY });
  const { can } = usePermissions();
  const mayChange = can('POST', '/api/v1/webhook-endpoints');

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const filters = events.split(/[\s,]+/).filter(Boolean);
      await api.post('/api/v1/webhook-endpoints', { url: url.trim(), events: filters.length ? filters : ['*'], ...(description.trim() ? { description: description.trim() } : {}) });
      setUrl('');
      setDescription('');
      await reload();
      toast(t('webhooks.added'));
    } catch (err) {
      setError(err);
    }
  };
  const setEnabled = async (endpoint: WebhookEndpoint, enabled: boolean) => {
    try {
      await api.patch(`/api/v1/webhook-endpoints/${endpoint.id}`, { enabled });
      await reload();
      toast(enabled ? t('webhooks.enabledNow') : t('webhooks.disabledNow'));
    } catch (err) {
      toast(errorText(err));
    }
  };

  const column = createColumnHelper<WebhookEndpoint>();
  const columns = [
    column.accessor('url', { header: t('webhooks.url'), cell: (c) => <code>{c.getValue()}</code> }),
    column.accessor('events', { header: t('webhooks.events'), cell: (c) => c.getValue().join(', ') }),
    column.accessor('enabled', {
      header: t('webhooks.status'),
      cell: (c) => (
        <>
          <StatusBadge status={c.getValue() ? 'enabled' : 'disabled'} />
          {c.row.original.disabledReason && <span className="muted"> {c.row.original.disabledReason}</span>}
        </>
      ),
    }),
    column.accessor('createdAt', { header: t('webhooks.created'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.display({
      id: 'actions', header: t('common.actions'),
      cell: (c) => {
        const endpoint = c.row.original;
        if (!mayChange) return null;
        return (
          <div className="row-actions">
            <button type="button" className="button secondary small" aria-label={t(endpoint.enabled ? 'webhooks.disableUrl' : endpoint.disabledReason ? 'webhooks.reenableUrl' : 'webhooks.enableUrl', { url: endpoint.url })} onClick={() => setEnabled(endpoint, !endpoint.enabled)}>
              {endpoint.enabled ? t('webhooks.disable') : endpoint.disabledReason ? t('webhooks.reenable') : t('webhooks.enable')}
            </button>
            <button type="button" className="button secondary small" aria-label={t('webhooks.deleteUrl', { url: endpoint.url })} onClick={() => setDeleting(endpoint)}>
              {t('common.delete')}
            </button>
          </div>
        );
      },
    }),
  ];

  return (
    <Section title={t('webhooks.endpoints')}>
      {mayChange && (
        <form className="grid-form" onSubmit={create}>
          <TextField label={t('webhooks.url')} type="url" required placeholder="https://" value={url} onChange={(e) => setUrl(e.target.value)} />
          <TextField label={t('webhooks.events')} hint={t('webhooks.eventsHint')} value={events} onChange={(e) => setEvents(e.target.value)} />
          <TextField label={t('webhooks.description')} value={description} onChange={(e) => setDescription(e.target.value)} />
          <div><button type="submit" className="button primary">{t('webhooks.add')}</button></div>
        </form>
      )}
      <ErrorMessage error={error} />
      <QueryView query={endpoints}>
        {(page) => <DataTable caption={t('webhooks.caption')} columns={columns} data={page.data} rowKey={(e) => e.id} empty={t('webhooks.empty')} />}
      </QueryView>
      <ConfirmDialog
        open={deleting !== null} title={t('webhooks.deleteTitle')} confirmLabel={t('common.delete')} danger onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.del(`/api/v1/webhook-endpoints/${deleting!.id}`);
          await reload();
          toast(t('webhooks.deleted'));
        }}
      >
        <p>{t('webhooks.deleteText', { url: deleting?.url ?? '' })}</p>
      </ConfirmDialog>
    </Section>
  );
}

function SigningSecretSection() {
  const { t } = useTranslation();
  const lang = useLang();
  const timeZone = useTimeZone();
  const [secret, setSecret] = useState<{ webhookSecret: string; previousSecretValidUntil?: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [rotating, setRotating] = useState(false);
  const { can } = usePermissions();
  const reveal = async () => {
    setError(null);
    try {
      setSecret(await api.get<{ webhookSecret: string }>('/api/v1/webhooks/signing-secret'));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Section title={t('webhooks.signingSecret')}>
      <p>{t('webhooks.signingText')}</p>
      <div className="row-actions">
        {!secret && <button type="button" className="button secondary" onClick={reveal}>{t('webhooks.reveal')}</button>}
        {can('POST', '/api/v1/webhooks/signing-secret/rotate') && <button type="button" className="button secondary" onClick={() => setRotating(true)}>{t('webhooks.rotate')}</button>}
      </div>
      <ErrorMessage error={error} />
      {secret && (
        <SecretOnce
          label={t('webhooks.secret')} value={secret.webhookSecret}
          note={secret.previousSecretValidUntil ? t('webhooks.previousValid', { until: formatDateTime(secret.previousSecretValidUntil, timeZone, lang) }) : undefined}
        />
      )}
      <ConfirmDialog
        open={rotating} title={t('webhooks.rotateTitle')} confirmLabel={t('webhooks.rotate')} onClose={() => setRotating(false)}
        onConfirm={async () => setSecret(await api.post<{ webhookSecret: string; previousSecretValidUntil: string }>('/api/v1/webhooks/signing-secret/rotate', {}))}
      >
        <p>{t('webhooks.rotateText')}</p>
      </ConfirmDialog>
    </Section>
  );
}
