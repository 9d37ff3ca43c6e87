// A platform's onboarding: the sessions (each a link a future seller fills in: status and expiry; a new one with the
// seller's email, business name and return URL, its link shown with a Copy button; an open one cancelled), and the
// cases the sessions submitted, with their review status and reasons. A case whose correction is requested gets a new
// session with its caseId ("Send a correction link"), so the seller corrects it and sends it again.
// (GET /platform/onboarding-sessions and /platform/onboarding-cases list them: onboarding-lists.routes.ts.)
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import type { EnrollmentStatus, OnboardingCase, OnboardingSession } from '../../platform-types.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { CopyLink } from '../../components/CopyLink.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { TextField } from '../../components/Form.js';
import { Page, Section } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { useToast } from '../../components/Toasts.js';
import { usePermissions } from '../../permissions.js';
import { SellerName } from './SellerParts.js';

const ENROLLMENT_TONE: Record<EnrollmentStatus, string> = {
  SUBMITTED: 'info', IN_REVIEW: 'info', APPROVED: 'good', CORRECTION_REQUESTED: 'bad', REFUSED: 'neutral',
};

type Dialog = { kind: 'create'; caseId?: string; caseName?: string } | { kind: 'cancel'; session: OnboardingSession } | null;

export function OnboardingPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const { can } = usePermissions();
  const mayCreate = can('POST', '/api/v1/platform/onboarding-sessions');
  const sessions = useQuery({
    queryKey: ['onboarding-sessions'],
    queryFn: () => api.get<ApiPage<OnboardingSession>>('/api/v1/platform/onboarding-sessions', { limit: 100 }),
  });
  const [dialog, setDialog] = useState<Dialog>(null);
  const [form, setForm] = useState({ email: '', businessName: '', returnUrl: '' });
  const [made, setMade] = useState<OnboardingSession | null>(null);
  const refresh = () => Promise.all([
    queryClient.invalidateQueries({ queryKey: ['onboarding-sessions'] }),
    queryClient.invalidateQueries({ queryKey: ['onboarding-cases'] }),
  ]);

  const openCreate = (caseId?: string, caseName?: string, email?: string) => {
    setForm({ email: email ?? '', businessName: caseName ?? '', returnUrl: form.returnUrl });
    setDialog({ kind: 'create', ...(caseId ? { caseId } : {}), ...(caseName ? { caseName } : {}) });
  };
  const create = async () => {
    const caseId = dialog?.kind === 'create' ? dialog.caseId : undefined;
    const session = await api.post<OnboardingSession>('/api/v1/platform/onboarding-sessions', {
      email: form.email.trim(), returnUrl: form.returnUrl.trim(),
      ...(form.businessName.trim() ? { businessName: form.businessName.trim() } : {}),
      ...(caseId ? { caseId } : {}),
    });
    setMade(session);
    await refresh();
    toast(t('platform.onboarding.created'));
  };
  const cancel = async (session: OnboardingSession) => {
    await api.post(`/api/v1/platform/onboarding-sessions/${session.id}/cancel`, {});
    if (made?.id === session.id) setMade(null);
    await refresh();
    toast(t('platform.onboarding.cancelled'));
  };

  const column = createColumnHelper<OnboardingSession>();
  const columns = [
    column.accessor('email', { id: 'reference', header: t('platform.onboarding.email'), cell: (c) => <>{c.getValue()}{c.row.original.businessName && <span className="secondary">{c.row.original.businessName}</span>}</> }),
    column.accessor('status', {
      header: t('platform.onboarding.status'),
      cell: (c) => <StatusBadge status={c.getValue()} label={t(`platform.onboarding.sessionStatus.${c.getValue()}`, { defaultValue: c.getValue() })} />,
    }),
    column.accessor('expiresAt', { header: t('platform.onboarding.expiresAt'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor('createdAt', { header: t('platform.onboarding.createdAt'), cell: (c) => <DateTime value={c.getValue()} /> }),
    ...(!mayCreate ? [] : [column.display({
      id: 'actions', header: t('common.actions'),
      cell: (c) => (c.row.original.status !== 'open' ? '—' : (
        <button type="button" className="button secondary small" aria-label={t('platform.onboarding.cancelOf', { email: c.row.original.email })} onClick={() => setDialog({ kind: 'cancel', session: c.row.original })}>
          {t('platform.onboarding.cancel')}
        </button>
      )),
    })]),
  ];
  const target = dialog?.kind === 'cancel' ? dialog.session : null;

  return (
    <Page
      title={t('platform.onboarding.title')}
      actions={mayCreate && <button type="button" className="button primary" onClick={() => openCreate()}>{t('platform.onboarding.create')}</button>}
    >
      <p>{t('platform.onboarding.intro')}</p>
      {made?.url && <CopyLink label={t('platform.onboarding.link')} note={t('platform.onboarding.created')} url={made.url} />}
      <Section title={t('platform.onboarding.sessions')}>
        <QueryView query={sessions}>
          {(page) => <DataTable caption={t('platform.onboarding.caption')} columns={columns} data={page.data} rowKey={(s) => s.id} empty={t('platform.onboarding.empty')} />}
        </QueryView>
      </Section>
      <Section title={t('platform.onboarding.cases')}>
        <Cases mayCorrect={mayCreate} onCorrect={openCreate} />
      </Section>

      <ConfirmDialog
        open={dialog?.kind === 'create'} confirmLabel={t('platform.onboarding.createConfirm')} onConfirm={create} onClose={() => setDialog(null)}
        title={dialog?.kind === 'create' && dialog.caseId ? t('platform.onboarding.correctionTitle') : t('platform.onboarding.createTitle')}
      >
        <div className="stack">
          {dialog?.kind === 'create' && dialog.caseId && <p>{t('platform.onboarding.correctionText')}</p>}
          <TextField label={t('platform.onboarding.email')} type="email" required autoComplete="off" maxLength={254} value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />
          <TextField label={t('platform.onboarding.businessName')} maxLength={200} value={form.businessName} onChange={(e) => setForm({ ...form, businessName: e.target.value })} />
          <TextField label={t('platform.onboarding.returnUrl')} type="url" required placeholder="https://" maxLength={2000} value={form.returnUrl} onChange={(e) => setForm({ ...form, returnUrl: e.target.value })} hint={t('platform.onboarding.returnUrlHint')} />
        </div>
      </ConfirmDialog>
      <ConfirmDialog open={target !== null} title={t('platform.onboarding.cancelTitle')} confirmLabel={t('platform.onboarding.cancel')} danger onConfirm={() => cancel(target!)} onClose={() => setDialog(null)}>
        {target && <p>{t('platform.onboarding.cancelText', { email: target.email })}</p>}
      </ConfirmDialog>
    </Page>
  );
}

/** The cases the sessions submitted, newest first, with their review status and reasons. */
function Cases({ mayCorrect, onCorrect }: { mayCorrect: boolean; onCorrect: (caseId: string, name?: string, email?: string) => void }) {
  const { t } = useTranslation();
  const cases = useQuery({
    queryKey: ['onboarding-cases'],
    queryFn: () => api.get<ApiPage<OnboardingCase>>('/api/v1/platform/onboarding-cases', { limit: 100 }),
  });
  const column = createColumnHelper<OnboardingCase>();
  const columns = [
    column.accessor((c) => c.legalName ?? c.id, { id: 'reference', header: t('platform.onboarding.legalName'), cell: (c) => <>{c.getValue()}<span className="secondary"><code className="id" title={c.row.original.id}>{c.row.original.id}</code></span></> }),
    column.accessor('enrollmentStatus', {
      id: 'status', header: t('platform.onboarding.enrollmentStatus'),
      cell: (c) => <span className={`badge ${ENROLLMENT_TONE[c.getValue()] ?? 'neutral'}`}>{t(`platform.onboarding.enrollment.${c.getValue()}`, { defaultValue: c.getValue() })}</span>,
    }),
    column.accessor((c) => c.reasons ?? [], { id: 'reasons', header: t('platform.onboarding.reasons'), cell: (c) => (c.getValue().length === 0 ? '—' : <ul className="scope-list">{c.getValue().map((r) => <li key={r}>{r}</li>)}</ul>) }),
    column.accessor('merchantId', { header: t('platform.onboarding.seller'), cell: (c) => (c.getValue() ? <SellerName id={c.getValue()!} /> : '—') }),
    column.accessor('createdAt', { header: t('platform.onboarding.createdAt'), cell: (c) => <DateTime value={c.getValue()} /> }),
    ...(!mayCorrect ? [] : [column.display({
      id: 'actions', header: t('common.actions'),
      cell: (c) => {
        const found = c.row.original;
        if (found.enrollmentStatus !== 'CORRECTION_REQUESTED') return '—';
        const name = found.legalName ?? found.id;
        return (
          <button type="button" className="button secondary small" aria-label={t('platform.onboarding.sendCorrectionOf', { name })} onClick={() => onCorrect(found.id, found.legalName ?? undefined, found.email ?? undefined)}>
            {t('platform.onboarding.sendCorrection')}
          </button>
        );
      },
    })]),
  ];
  return (
    <QueryView query={cases}>
      {(page) => <DataTable caption={t('platform.onboarding.casesCaption')} columns={columns} data={page.data} rowKey={(c) => c.id} empty={t('platform.onboarding.casesEmpty')} />}
    </QueryView>
  );
}
