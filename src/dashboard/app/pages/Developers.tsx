// Developers: API keys, webhook endpoints and the signing secret, the event log, and test clocks (test mode).
import { Navigate, Route, Routes } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMe } from '../session.js';
import { Page } from '../components/Page.js';
import { SubNav } from '../components/SubNav.js';
import { ApiKeysPart } from './developers/ApiKeys.js';
import { WebhooksPart } from './developers/Webhooks.js';
import { EventsPart } from './developers/Events.js';
import { TestClocksPart } from './developers/TestClocks.js';
import { NotFoundPage } from './NotFound.js';
import { usePermissions } from '../permissions.js';
import { actingFor, useActingChoice } from '../acting.js';

export function DevelopersPage() {
  const { t } = useTranslation();
  const me = useMe();
  const { can } = usePermissions();
  useActingChoice();
  // Acting for a client: its webhooks and events (the mandate's webhooks.manage), not its keys or test clocks.
  const clocks = me.mode === 'test' && actingFor(me) === null;
  // API keys are for the roles that may hold secrets; the others start on the webhooks.
  const keys = can('GET', '/dashboard/api/keys');
  const items = [
    ...(keys ? [{ to: '/developers', label: t('developers.keys'), end: true }] : []),
    { to: '/developers/webhooks', label: t('developers.webhooks') },
    { to: '/developers/events', label: t('developers.events') },
    ...(clocks ? [{ to: '/developers/test-clocks', label: t('developers.testClocks') }] : []),
  ];
  return (
    <Page title={t('developers.title')}>
      <SubNav label={t('developers.title')} items={items} />
      <Routes>
        <Route index element={keys ? <ApiKeysPart /> : <Navigate to="webhooks" replace />} />
        <Route path="webhooks" element={<WebhooksPart />} />
        <Route path="events" element={<EventsPart />} />
        {clocks && <Route path="test-clocks" element={<TestClocksPart />} />}
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Page>
  );
}
