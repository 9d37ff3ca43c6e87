// One dispute: amount, reason, the deadline to answer (in the merchant's time zone), the evidence (saved as a draft,
// then submitted once: the dispute goes under review) and Accept behind its confirmation (a chargeback is lost, an
// inquiry closed).
import { useId, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api } from '../api.js';
import { disputeOpen, EVIDENCE_FIELDS, type Dispute, type EvidenceField } from '../money-types.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DateTime, useTimeZone } from '../components/DateTime.js';
import { ErrorMessage } from '../components/ErrorMessage.js';
import { Money } from '../components/Money.js';
import { Page, Section } from '../components/Page.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { useToast } from '../components/Toasts.js';
import { disputeReasonLabel } from './money/disputes.js';
import { useMayChange } from './money/permissions.js';
import { ObjectName } from '../components/ObjectName.js';

export function DisputeDetailPage() {
  const { id = '' } = useParams();
  const dispute = useQuery({ queryKey: ['dispute', id], queryFn: () => api.get<Dispute>(`/api/v1/disputes/${encodeURIComponent(id)}`) });
  return <QueryView query={dispute}>{(found) => <DisputeView key={found.id} dispute={found} />}</QueryView>;
}

function DisputeView({ dispute }: { dispute: Dispute }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const timeZone = useTimeZone();
  const answerable = disputeOpen(dispute);
  const open = useMayChange('billing') && answerable;
  const [evidence, setEvidence] = useState<Record<EvidenceField, string>>(
    () => Object.fromEntries(EVIDENCE_FIELDS.map((f) => [f, dispute.evidence[f] ?? ''])) as Record<EvidenceField, string>,
  );
  const [action, setAction] = useState<'accept' | 'submit' | null>(null);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<unknown>(null);

  const refresh = (next: Dispute) => {
    queryClient.setQueryData(['dispute', dispute.id], next);
    return Promise.all(['disputes', 'balance', 'home'].map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
  };
  const send = async (submit: boolean) => {
    const body = { ...Object.fromEntries(EVIDENCE_FIELDS.map((f) => [f, evidence[f]])), submit };
    await refresh(await api.post<Dispute>(`/api/v1/disputes/${dispute.id}/evidence`, body));
  };
  const saveDraft = async () => {
    setSaving(true);
    setSaveError(null);
    try {
      await send(false);
      toast(t('disputes.draftSaved'));
    } catch (error) {
      setSaveError(error);
    } finally {
      setSaving(false);
    }
  };
  const submit = async () => {
    await send(true);
    toast(t('disputes.submitted'));
  };
  const accept = async () => {
    await refresh(await api.post<Dispute>(`/api/v1/disputes/${dispute.id}/accept`, {}));
    toast(t('disputes.accepted'));
  };

  return (
    <Page
      title={t('disputes.detailTitle', { id: dispute.id })}
      actions={open && <button type="button" className="button secondary" onClick={() => setAction('accept')}>{t('disputes.accept')}</button>}
    >
      <p><Link to="/disputes">{t('disputes.backToList')}</Link></p>
      <Section title={t('disputes.summary')}>
        <p className="amount-hero"><Money amount={dispute.amount} currency={dispute.currency} eurCents={dispute.amountEur} /></p>
        <p><StatusBadge status={dispute.status} /></p>
        {answerable && (
          <p className="notice deadline">
            {t('disputes.deadline')} <strong><DateTime value={dispute.evidenceDueBy} /></strong> ({timeZone})
          </p>
        )}
        <dl className="facts">
          <dt>{t('disputes.id')}</dt><dd><code>{dispute.id}</code></dd>
          <dt>{t('disputes.kind')}</dt><dd>{t(`disputes.kinds.${dispute.kind}`)}</dd>
          <dt>{t('disputes.reason')}</dt><dd>{disputeReasonLabel(t, dispute.reason)}</dd>
          <dt>{t('disputes.payment')}</dt><dd><ObjectName id={dispute.paymentId} /></dd>
          <dt>{t('disputes.opened')}</dt><dd><DateTime value={dispute.createdAt} /></dd>
          <dt>{t('disputes.dueBy')}</dt><dd><DateTime value={dispute.evidenceDueBy} /></dd>
          <dt>{t('disputes.evidenceSubmittedAt')}</dt><dd><DateTime value={dispute.evidenceSubmittedAt} /></dd>
          <dt>{t('disputes.closedAt')}</dt><dd><DateTime value={dispute.closedAt} /></dd>
        </dl>
      </Section>
      <Section title={t('disputes.evidence')}>
        {open ? (
          <form className="stack wide" onSubmit={(e) => { e.preventDefault(); setAction('submit'); }}>
            <p className="hint">{t('disputes.evidenceHint')}</p>
            {EVIDENCE_FIELDS.map((field) => (
              <TextArea key={field} label={t(`disputes.fields.${field}`)} value={evidence[field]} onChange={(value) => setEvidence({ ...evidence, [field]: value })} />
            ))}
            <ErrorMessage error={saveError} />
            <div className="row-actions">
              <button type="button" className="button secondary" disabled={saving} onClick={saveDraft}>{t('disputes.saveDraft')}</button>
              <button type="submit" className="button primary">{t('disputes.submit')}</button>
            </div>
          </form>
        ) : (
          <dl className="facts">
            {EVIDENCE_FIELDS.map((field) => (
              <div key={field} className="facts-row">
                <dt>{t(`disputes.fields.${field}`)}</dt><dd className="pre-wrap">{dispute.evidence[field] || '—'}</dd>
              </div>
            ))}
          </dl>
        )}
      </Section>
      <ConfirmDialog open={action === 'accept'} title={t('disputes.acceptTitle')} confirmLabel={t('disputes.accept')} danger onConfirm={accept} onClose={() => setAction(null)}>
        <p>{dispute.kind === 'chargeback' ? t('disputes.acceptChargeback') : t('disputes.acceptInquiry')} <Money amount={dispute.amount} currency={dispute.currency} /></p>
      </ConfirmDialog>
      <ConfirmDialog open={action === 'submit'} title={t('disputes.submitTitle')} confirmLabel={t('disputes.submit')} onConfirm={submit} onClose={() => setAction(null)}>
        <p>{t('disputes.submitText')}</p>
      </ConfirmDialog>
    </Page>
  );
}

function TextArea({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} rows={3} maxLength={20000} value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}
