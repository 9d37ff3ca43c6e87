// The team: who may use the back-office and with which role. Owners and admins invite (the set-up link is shown
// when no mail was sent), change roles and remove; the server refuses what a role may not do (PERMISSION_DENIED).
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';
import { api } from '../../api.js';
import { roleLabel } from '../../labels.js';
import { useMe } from '../../session.js';
import { ROLES, type Role, type TeamMember } from '../../types.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { ErrorMessage } from '../../components/ErrorMessage.js';
import { useErrorText } from '../../errors.js';
import { SelectField, TextField } from '../../components/Form.js';
import { Section } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { SecretOnce } from '../../components/SecretOnce.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { useToast } from '../../components/Toasts.js';

const KEY = ['team'];

export function TeamPart() {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const me = useMe();
  const queryClient = useQueryClient();
  const toast = useToast();
  const team = useQuery({ queryKey: KEY, queryFn: () => api.get<{ data: TeamMember[] }>('/dashboard/api/users') });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [invited, setInvited] = useState<{ email: string; setupUrl: string | null; emailSent: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  const [keysTo, setKeysTo] = useState<'revoke' | 'hand-over'>('revoke');
  const manages = me.user.role === 'owner' || me.user.role === 'admin';
  const reload = () => queryClient.invalidateQueries({ queryKey: KEY });

  const invite = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const result = await api.post<{ user: TeamMember; setupUrl?: string | null; emailSent: boolean }>('/dashboard/api/users', { email: email.trim(), role });
      setInvited({ email: result.user.email, setupUrl: result.setupUrl ?? null, emailSent: result.emailSent });
      setEmail('');
      await reload();
    } catch (err) {
      setError(err);
    }
  };
  const changeRole = async (member: TeamMember, next: Role) => {
    try {
      await api.patch(`/dashboard/api/users/${member.id}`, { role: next });
      await reload();
      toast(t('team.roleChanged', { email: member.email, role: roleLabel(t, next) }));
    } catch (err) {
      toast(errorText(err));
      await reload();
    }
  };

  const column = createColumnHelper<TeamMember>();
  const columns = [
    column.accessor('email', { header: t('team.email') }),
    column.accessor('role', {
      header: t('team.role'),
      cell: (c) => (manages && c.row.original.id !== me.user.id ? (
        <SelectField label={t('team.roleOf', { email: c.row.original.email })} className="inline-label" value={c.getValue()} onChange={(e) => void changeRole(c.row.original, e.target.value as Role)}>
          {ROLES.map((r) => <option key={r} value={r}>{roleLabel(t, r)}</option>)}
        </SelectField>
      ) : roleLabel(t, c.getValue())),
    }),
    column.accessor('status', { header: t('team.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.accessor('twoFactorEnabled', { header: t('team.twoFactor'), cell: (c) => (c.getValue() ? t('common.yes') : t('common.no')) }),
    column.accessor('lastSignInAt', { header: t('team.lastSignIn'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.display({
      id: 'actions', header: t('common.actions'),
      cell: (c) => (manages && c.row.original.id !== me.user.id ? (
        <button type="button" className="button secondary small" aria-label={t('team.removeEmail', { email: c.row.original.email })} onClick={() => { setKeysTo('revoke'); setRemoving(c.row.original); }}>
          {t('team.remove')}
        </button>
      ) : null),
    }),
  ];

  return (
    <>
      {manages && (
        <Section title={t('team.invite')}>
          <form className="grid-form" onSubmit={invite}>
            <TextField label={t('team.email')} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
            <SelectField label={t('team.role')} hint={t(`team.roleCan.${role}`)} value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {ROLES.map((r) => <option key={r} value={r}>{roleLabel(t, r)}</option>)}
            </SelectField>
            <div><button type="submit" className="button primary">{t('team.inviteButton')}</button></div>
          </form>
          <ErrorMessage error={error} />
          {invited?.setupUrl && <SecretOnce label={t('team.setupLink', { email: invited.email })} value={invited.setupUrl} note={t('team.setupLinkNote')} />}
          {invited?.emailSent && <p className="notice">{t('team.mailed', { email: invited.email })}</p>}
        </Section>
      )}
      <Section title={t('team.rolesTitle')}>
        <dl className="facts">
          {ROLES.map((r) => <div key={r} className="facts-row"><dt>{roleLabel(t, r)}</dt><dd>{t(`team.roleCan.${r}`)}</dd></div>)}
        </dl>
      </Section>
      <QueryView query={team}>
        {(page) => <DataTable caption={t('team.caption')} columns={columns} data={page.data} rowKey={(u) => u.id} empty={t('team.empty')} />}
      </QueryView>
      <ConfirmDialog
        open={removing !== null} title={t('team.removeTitle')} confirmLabel={t('team.remove')} danger onClose={() => setRemoving(null)}
        onConfirm={async () => {
          await api.del(`/dashboard/api/users/${removing!.id}${removing!.apiKeys > 0 ? `?keys=${keysTo}` : ''}`);
          await reload();
          toast(t('team.removed'));
        }}
      >
        <p>{t('team.removeText', { email: removing?.email ?? '' })}</p>
        {removing && removing.apiKeys > 0 && (
          <fieldset className="choice">
            <legend>{t('team.theirKeys', { count: removing.apiKeys })}</legend>
            <label><input type="radio" name="keys-on-removal" checked={keysTo === 'revoke'} onChange={() => setKeysTo('revoke')} /> {t('team.revokeKeys')}</label>
            <label><input type="radio" name="keys-on-removal" checked={keysTo === 'hand-over'} onChange={() => setKeysTo('hand-over')} /> {t('team.handOverKeys', { role: roleLabel(t, me.user.role) })}</label>
          </fieldset>
        )}
      </ConfirmDialog>
    </>
  );
}
