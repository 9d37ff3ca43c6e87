// Settings: the merchant's branding and legal identity, the payout schedule, the team and its roles, the user's own
// two-factor authentication, the team's activity (the audit log), and the agencies given a mandate on the account.
import { Route, Routes } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Page } from '../components/Page.js';
import { SubNav } from '../components/SubNav.js';
import { BusinessPart } from './settings/Business.js';
import { PayoutSchedulePart } from './settings/PayoutSchedule.js';
import { TeamPart } from './settings/Team.js';
import { TwoFactorPart } from './settings/TwoFactor.js';
import { ActivityPart } from './settings/Activity.js';
import { AgenciesPart } from './settings/Agencies.js';
import { NotFoundPage } from './NotFound.js';

export function SettingsPage() {
  const { t } = useTranslation();
  const items = [
    { to: '/settings', label: t('settings.business'), end: true },
    { to: '/settings/payouts', label: t('settings.payoutSchedule') },
    { to: '/settings/team', label: t('settings.team') },
    { to: '/settings/two-factor', label: t('settings.twoFactor') },
    { to: '/settings/activity', label: t('settings.activity') },
    { to: '/settings/agencies', label: t('mandates.tab') },
  ];
  return (
    <Page title={t('settings.title')}>
      <SubNav label={t('settings.title')} items={items} />
      <Routes>
        <Route index element={<BusinessPart />} />
        <Route path="payouts" element={<PayoutSchedulePart />} />
        <Route path="team" element={<TeamPart />} />
        <Route path="two-factor" element={<TwoFactorPart />} />
        <Route path="activity" element={<ActivityPart />} />
        <Route path="agencies" element={<AgenciesPart />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Page>
  );
}
