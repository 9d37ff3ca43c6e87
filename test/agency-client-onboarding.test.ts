// A new business invited by an agency, with no Motu account yet: the invitation page's "no account yet" starts the
// onboarding form tied to the invitation; the case is decided as a seller's is (test mode by the legal name, live by
// the operator); the agency hears agency.client.onboarding.updated on each status, then agency.client.opened and
// agency.mandate.created on approval; the new account is linked to no platform and no merchant.* event is sent.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildServices } from '../src/compose.js';
import { eachDatabase, type TestApp } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { makeAgency, postOnboardingForm, sellerForm, SELLER_IBAN } from './support/platforms.js';
import type { MerchantFixture } from './support/factories.js';

const SCOPES = ['payments.read', 'refunds.write'];

/** Every event the merchant `merchantId` was sent, oldest first: [type, data]. */
async function eventsOf(t: TestApp, merchantId: string): Promise<Array<[string, any]>> {
  const rows = await t.db.kysely.selectFrom('webhook_events').select(['type', 'body']).where('merchant_id', '=', merchantId).orderBy('seq').execute();
  return rows.map((r) => [r.type, JSON.parse(r.body).data]);
}

async function invite(t: TestApp, agency: MerchantFixture, key: string, extra: Record<string, unknown> = {}) {
  const res = await t.api(key, 'POST', '/api/v1/agency/invitations', { email: 'owner@pension-hina.example', scopes: SCOPES, ...extra });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { ...res.body, token: (res.body.url as string).split('/').at(-1)! } as { id: string; url: string; token: string };
}

/** The page's "My business has no Motu account yet" button, posted as the browser does. */
async function startOnboarding(t: TestApp, invitationToken: string) {
  const res = await t.app.inject({
    method: 'POST', url: `/agency-invitations/${invitationToken}?lang=en`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'onboard=1',
  });
  const location = res.headers.location ? String(res.headers.location) : '';
  return { status: res.statusCode, body: res.body, location, sessionToken: location.split('?')[0]!.split('/').at(-1) ?? '' };
}

const invitationOf = (t: TestApp, key: string, id: string) => t.api(key, 'GET', `/api/v1/agency/invitations/${id}`);

eachDatabase('agencies: a new business onboards through the invitation', (dialect) => {
  const { t } = withApp(dialect);

  it('test mode: the page offers "no Motu account yet"; the form approves at once; events in order; the mandate with the invitation\'s scopes; no platform', async () => {
    const agency = await makeAgency(t, 'Agence Moana');
    const invitation = await invite(t, agency, agency.testKey);
    const page = await t.app.inject({ method: 'GET', url: `/agency-invitations/${invitation.token}?lang=en` });
    assert.match(page.body, /My business has no Motu account yet/);
    const fr = await t.app.inject({ method: 'GET', url: `/agency-invitations/${invitation.token}?lang=fr` });
    assert.match(fr.body, /Mon entreprise n&#39;a pas encore de compte Motu|Mon entreprise n'a pas encore de compte Motu/);

    const started = await startOnboarding(t, invitation.token);
    assert.equal(started.status, 303, started.body);
    assert.match(started.location, /^\/onboarding\/obs_[0-9A-Za-z]{22}\.[A-Za-z0-9_-]{43}\?lang=en$/);
    // The same link again while it is open.
    assert.equal((await startOnboarding(t, invitation.token)).location, started.location);
    const form = await t.app.inject({ method: 'GET', url: `/onboarding/${started.sessionToken}?lang=en` });
    assert.equal(form.statusCode, 200);

    const posted = await postOnboardingForm(t, started.sessionToken, sellerForm({ legalName: 'Pension Hina' }));
    assert.equal(posted.status, 303, posted.body);

    const read = await invitationOf(t, agency.testKey, invitation.id);
    assert.equal(read.body.status, 'accepted');
    const merchantId = read.body.merchantId as string;
    const mandateId = read.body.mandateId as string;
    assert.match(merchantId, /^mer_/);
    const events = await eventsOf(t, agency.id);
    const flow = events.filter(([type]) => type.startsWith('agency.client.') || type.startsWith('agency.mandate.'));
    const caseId = flow[0]![1].caseId as string;
    assert.match(caseId, /^obc_/);
    const base = { invitationId: invitation.id, agencyId: agency.id, caseId };
    assert.deepEqual(flow, [
      ['agency.client.onboarding.updated', { ...base, enrollmentStatus: 'SUBMITTED', previousStatus: null }],
      ['agency.client.onboarding.updated', { ...base, enrollmentStatus: 'IN_REVIEW', previousStatus: 'SUBMITTED' }],
      ['agency.client.onboarding.updated', { ...base, enrollmentStatus: 'APPROVED', previousStatus: 'IN_REVIEW' }],
      ['agency.client.opened', { ...base, merchantId }],
      ['agency.mandate.created', { mandateId, agencyId: agency.id, merchantId, scopes: SCOPES, invitationId: invitation.id }],
    ]);
    assert.deepEqual(events.filter(([type]) => type.startsWith('merchant.')), [], 'no platform event');
    assert.equal(await t.db.kysely.selectFrom('platform_links').select('id').where('seller_id', '=', merchantId).executeTakeFirst(), undefined);

    // The agency's portfolio has the new client; it acts for it under the mandate.
    const mandates = await t.api(agency.testKey, 'GET', '/api/v1/agency/mandates');
    assert.deepEqual(mandates.body.data.map((m: any) => [m.id, m.merchantId, m.merchantName, m.scopes, m.status]), [[mandateId, merchantId, 'Pension Hina', SCOPES, 'active']]);
    const acting = await t.api(agency.testKey, 'GET', '/api/v1/payments', undefined, { 'motu-account': merchantId });
    assert.equal(acting.status, 200, JSON.stringify(acting.body));
    // The account is open, with the form's IBAN as its bank account (read with a key the operator makes).
    const merchant = await t.admin('GET', `/admin/v1/merchants/${merchantId}`);
    assert.equal(merchant.body.legalName, 'Pension Hina');
    assert.ok(merchant.body.openedAt, JSON.stringify(merchant.body));
    const key = await t.admin('POST', `/admin/v1/merchants/${merchantId}/keys`, { mode: 'test' });
    const banks = await t.api(key.body.secretKey, 'GET', '/api/v1/bank-accounts');
    assert.deepEqual(banks.body.data.map((b: any) => b.last4), [SELLER_IBAN.slice(-4)]);

    // The invitation is used: its page says so, and the button starts nothing.
    const after = await t.app.inject({ method: 'GET', url: `/agency-invitations/${invitation.token}?lang=en` });
    assert.match(after.body, /accepted already/);
    assert.equal((await startOnboarding(t, invitation.token)).status, 422);
  });

  it('a correction: CORRECTION_REQUESTED with its reasons, the button gives a correcting session, the second submission approves', async () => {
    const agency = await makeAgency(t);
    const invitation = await invite(t, agency, agency.testKey);
    const first = await startOnboarding(t, invitation.token);
    assert.equal((await postOnboardingForm(t, first.sessionToken, sellerForm({ legalName: 'Correction Hina' }))).status, 303);
    assert.equal((await invitationOf(t, agency.testKey, invitation.id)).body.status, 'pending');

    const second = await startOnboarding(t, invitation.token);
    assert.equal(second.status, 303, second.body);
    assert.notEqual(second.sessionToken, first.sessionToken);
    const prefilled = await t.app.inject({ method: 'GET', url: `/onboarding/${second.sessionToken}?lang=en` });
    assert.match(prefilled.body, /value="Correction Hina"/);
    assert.equal((await postOnboardingForm(t, second.sessionToken, sellerForm({ legalName: 'Correction Hina' }))).status, 303);

    const events = (await eventsOf(t, agency.id)).filter(([type]) => type.startsWith('agency.client.') || type.startsWith('agency.mandate.'));
    const statuses = events.map(([type, data]) => type === 'agency.client.onboarding.updated' ? `${data.previousStatus}>${data.enrollmentStatus}` : type);
    assert.deepEqual(statuses, [
      'null>SUBMITTED', 'SUBMITTED>IN_REVIEW', 'IN_REVIEW>CORRECTION_REQUESTED',
      'CORRECTION_REQUESTED>SUBMITTED', 'SUBMITTED>IN_REVIEW', 'IN_REVIEW>APPROVED', 'agency.client.opened', 'agency.mandate.created',
    ]);
    assert.deepEqual(events[2]![1].reasons, ['Test mode: the legal name contains "correction"; submit the form again']);
    assert.equal(new Set(events.slice(0, 6).map(([, d]) => d.caseId)).size, 1, 'one case, corrected');
    assert.equal((await invitationOf(t, agency.testKey, invitation.id)).body.status, 'accepted');
  });

  it('a refused case: REFUSED with its reasons, no account, the invitation stays pending and the button says it was refused', async () => {
    const agency = await makeAgency(t);
    const invitation = await invite(t, agency, agency.testKey);
    const started = await startOnboarding(t, invitation.token);
    assert.equal((await postOnboardingForm(t, started.sessionToken, sellerForm({ legalName: 'Refuse Hina' }))).status, 303);
    const events = await eventsOf(t, agency.id);
    const last = events.at(-1)!;
    assert.equal(last[0], 'agency.client.onboarding.updated');
    assert.deepEqual([last[1].enrollmentStatus, last[1].previousStatus, last[1].reasons], ['REFUSED', 'IN_REVIEW', ['Test mode: the legal name contains "refuse"']]);
    assert.equal(events.filter(([type]) => type === 'agency.client.opened' || type === 'agency.mandate.created' || type.startsWith('merchant.')).length, 0);
    const read = await invitationOf(t, agency.testKey, invitation.id);
    assert.deepEqual([read.body.status, read.body.merchantId, read.body.mandateId], ['pending', null, null]);
    const again = await startOnboarding(t, invitation.token);
    assert.equal(again.status, 409);
    assert.match(again.body, /Your application to open an account was refused/);
  });

  it('an expired or cancelled invitation starts no onboarding, and a form opened before the cancellation submits nothing', async () => {
    const agency = await makeAgency(t);
    const expiring = await invite(t, agency, agency.testKey, { expiresIn: 60 });
    const services = buildServices(t.config, t.db, t.clock);
    assert.equal(await services.agencyInvitations.expireDue(new Date(Date.now() + 61_000)), 1);
    const expired = await startOnboarding(t, expiring.token);
    assert.equal(expired.status, 410);
    assert.match(expired.body, /This invitation has expired/);

    const open = await invite(t, agency, agency.testKey);
    const started = await startOnboarding(t, open.token);
    assert.equal(started.status, 303);
    assert.equal((await t.api(agency.testKey, 'POST', `/api/v1/agency/invitations/${open.id}/cancel`)).status, 200);
    assert.equal((await startOnboarding(t, open.token)).status, 422);
    const posted = await postOnboardingForm(t, started.sessionToken, sellerForm({ legalName: 'Pension Hina' }));
    assert.equal(posted.status, 410, posted.body);
    const cases = await t.db.kysely.selectFrom('onboarding_cases').select('id').where('invitation_id', 'in', [expiring.id, open.id]).execute();
    assert.deepEqual(cases, []);
    assert.deepEqual((await eventsOf(t, agency.id)).filter(([type]) => type.startsWith('agency.client.')), []);
  });

  it('live mode: the case waits IN_REVIEW for the operator, whose approval opens the account and gives the live mandate', async () => {
    const agency = await makeAgency(t);
    const invitation = await invite(t, agency, agency.liveKey);
    const started = await startOnboarding(t, invitation.token);
    assert.equal((await postOnboardingForm(t, started.sessionToken, sellerForm({ legalName: 'Pension Hina' }))).status, 303);
    const before = (await eventsOf(t, agency.id)).filter(([type]) => type.startsWith('agency.client.'));
    assert.deepEqual(before.map(([, d]) => d.enrollmentStatus), ['SUBMITTED', 'IN_REVIEW']);
    const caseId = before[0]![1].caseId as string;
    // The platform API is not the agency's (it is no platform), and its lists leave such cases out.
    assert.equal((await t.api(agency.liveKey, 'GET', `/api/v1/platform/onboarding-cases/${caseId}`)).status, 403);
    const decided = await t.admin('POST', `/admin/v1/onboarding-cases/${caseId}/decision`, { enrollmentStatus: 'APPROVED' });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const read = await invitationOf(t, agency.liveKey, invitation.id);
    assert.equal(read.body.status, 'accepted');
    const after = (await eventsOf(t, agency.id)).map(([type]) => type).filter((type) => type.startsWith('agency.client.') || type.startsWith('agency.mandate.'));
    assert.deepEqual(after.slice(2), ['agency.client.onboarding.updated', 'agency.client.opened', 'agency.mandate.created']);
    const mandates = await t.api(agency.liveKey, 'GET', '/api/v1/agency/mandates');
    assert.deepEqual(mandates.body.data.map((m: any) => [m.merchantId, m.mode]), [[read.body.merchantId, 'live']]);
  });

  it('live mode: an invitation that expires during the review is still accepted; one cancelled meanwhile gives an open account and no mandate', async () => {
    const agency = await makeAgency(t);
    const services = buildServices(t.config, t.db, t.clock);
    const expiring = await invite(t, agency, agency.liveKey, { expiresIn: 60 });
    const cancelled = await invite(t, agency, agency.liveKey);
    const caseOf = async (token: string, legalName: string) => {
      const started = await startOnboarding(t, token);
      assert.equal((await postOnboardingForm(t, started.sessionToken, sellerForm({ legalName }))).status, 303);
      const row = await t.db.kysely.selectFrom('onboarding_sessions').select('case_id').where('id', '=', started.sessionToken.split('.')[0]!).executeTakeFirstOrThrow();
      return row.case_id!;
    };
    const late = await caseOf(expiring.token, 'Pension Late');
    const withdrawn = await caseOf(cancelled.token, 'Pension Withdrawn');
    assert.equal(await services.agencyInvitations.expireDue(new Date(Date.now() + 61_000)), 1);
    assert.equal((await t.api(agency.liveKey, 'POST', `/api/v1/agency/invitations/${cancelled.id}/cancel`)).status, 200);
    for (const id of [late, withdrawn]) {
      assert.equal((await t.admin('POST', `/admin/v1/onboarding-cases/${id}/decision`, { enrollmentStatus: 'APPROVED' })).status, 200);
    }
    const a = await invitationOf(t, agency.liveKey, expiring.id);
    assert.equal(a.body.status, 'accepted');
    assert.match(a.body.mandateId, /^mdt_/);
    const b = await invitationOf(t, agency.liveKey, cancelled.id);
    assert.deepEqual([b.body.status, b.body.mandateId], ['cancelled', null]);
    const events = await eventsOf(t, agency.id);
    const opened = events.filter(([type]) => type === 'agency.client.opened').map(([, d]) => d.invitationId);
    assert.deepEqual(opened, [expiring.id, cancelled.id]);
    const mandates = events.filter(([type]) => type === 'agency.mandate.created').map(([, d]) => d.invitationId);
    assert.deepEqual(mandates, [expiring.id]);
  });
});
