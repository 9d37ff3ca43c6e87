// Agencies acting for their clients under mandates, through HTTP on each database: invitations (create, list,
// cancel, expire, accept with a key or as a back-office owner), acting with `Motu-Account` under the mandate's
// scopes (one table, checked against every registered route), the client's changes (scopes, transfer, revocation),
// the agency's portfolio and webhooks, actedBy, the audit, idempotency, and isolation.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createHmac } from 'node:crypto';
import { buildServices } from '../src/compose.js';
import { ROUTE_SCOPES, ON_BEHALF_REFUSED } from '../src/http/agency-scopes.js';
import { SCOPES } from '../src/modules/agencies/scopes.js';
import { eachDatabase, type TestApp } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createKey, createMerchant, createStore, type MerchantFixture } from './support/factories.js';
import { makeAgency } from './support/platforms.js';
import { eventsOfType } from './support/events.js';
import { signedInUser } from './support/back-office.js';

/** The agency.* events the agency `agencyId` was sent, of one type, oldest first. */
async function agencyEvents(t: TestApp, agencyId: string, type: string): Promise<any[]> {
  const rows = await t.db.kysely.selectFrom('webhook_events').select('body').where('merchant_id', '=', agencyId).where('type', '=', type)
    .orderBy('seq').execute();
  return rows.map((r) => JSON.parse(r.body));
}

async function invite(t: TestApp, agency: MerchantFixture, scopes: string[], extra: Record<string, unknown> = {}) {
  const res = await t.api(agency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'client@shop.example', scopes, ...extra });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; url: string; status: string; expiresAt: string };
}

const tokenOf = (url: string) => url.split('/').at(-1)!;

/** An agency with an active mandate on a new client, in test mode. */
async function mandated(t: TestApp, scopes: string[], names: { agency?: string; client?: string } = {}) {
  const agency = await makeAgency(t, names.agency ?? 'Agence Moana');
  const client = await createMerchant(t, names.client ?? 'Boutique Tiare');
  const invitation = await invite(t, agency, scopes);
  const accepted = await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${tokenOf(invitation.url)}/accept`);
  assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
  const as = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    t.api(agency.testKey, method, url, body, { 'motu-account': client.id, ...headers });
  return { agency, client, mandate: accepted.body as { id: string; scopes: string[]; status: string }, as };
}

eachDatabase('agencies', (dialect) => {
  const { t } = withApp(dialect, { checkAnswers: true });

  it('an agency invites: 201 {id, url, status: pending, expiresAt} (7 days by default) and agency.invitation.created; lists and reads them', async () => {
    const agency = await makeAgency(t);
    const before = Date.now();
    const created = await invite(t, agency, ['payments.read', 'customers.write']);
    assert.match(created.id, /^agi_[0-9A-Za-z]{22}$/);
    assert.equal(created.status, 'pending');
    assert.match(created.url, new RegExp(`^${t.config.publicUrl}/agency-invitations/[0-9A-Za-z]{32}$`));
    const days = (Date.parse(created.expiresAt) - before) / 86_400_000;
    assert.ok(days > 6.99 && days < 7.01, `expires in ${days} days`);
    const [event] = await agencyEvents(t, agency.id, 'agency.invitation.created');
    assert.deepEqual(event.data, {
      invitationId: created.id, agencyId: agency.id, email: 'client@shop.example', scopes: ['payments.read', 'customers.write'], status: 'pending', expiresAt: created.expiresAt,
    });
    const short = await invite(t, agency, ['balance.read'], { expiresIn: 3600 });
    assert.ok(Date.parse(short.expiresAt) - Date.now() <= 3600_000);
    const list = await t.api(agency.testKey, 'GET', '/api/v1/agency/invitations');
    assert.deepEqual(list.body.data.map((i: { id: string }) => i.id), [short.id, created.id]);
    const one = await t.api(agency.testKey, 'GET', `/api/v1/agency/invitations/${created.id}`);
    assert.equal(one.body.url, created.url);
    // The other mode's key, another agency: not found.
    assert.equal((await t.api(agency.liveKey, 'GET', `/api/v1/agency/invitations/${created.id}`)).status, 404);
    const other = await makeAgency(t, 'Autre agence');
    assert.equal((await t.api(other.testKey, 'GET', `/api/v1/agency/invitations/${created.id}`)).status, 404);
  });

  it('a non-agency key is 403 PERMISSION_DENIED on every agency route; invalid scopes are 400 naming the field, and write nothing', async () => {
    const shop = await createMerchant(t, 'Not an agency');
    for (const [method, url, body] of [
      ['POST', '/api/v1/agency/invitations', { email: 'x@shop.example', scopes: ['payments.read'] }],
      ['GET', '/api/v1/agency/invitations', undefined], ['GET', '/api/v1/agency/mandates', undefined],
      ['POST', '/api/v1/agency/webhooks', { url: 'https://hooks.example/agency' }],
    ] as const) {
      const res = await t.api(shop.testKey, method, url, body);
      assert.equal(res.status, 403, `${method} ${url}`);
      assert.equal(res.body.code, 'PERMISSION_DENIED');
    }
    const agency = await makeAgency(t);
    for (const [scopes, field] of [[['payments.read', 'payments.delete'], 'scopes[1]'], [[], 'scopes'], [['PAYMENTS.READ'], 'scopes[0]']] as const) {
      const res = await t.api(agency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'x@shop.example', scopes });
      assert.equal(res.status, 400, JSON.stringify(scopes));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.equal(res.body.details.field, field);
    }
    const badEmail = await t.api(agency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'nope', scopes: ['payments.read'] });
    assert.deepEqual([badEmail.status, badEmail.body.details.field], [400, 'email']);
    assert.equal((await t.api(agency.testKey, 'GET', '/api/v1/agency/invitations')).body.data.length, 0);
    assert.equal((await agencyEvents(t, agency.id, 'agency.invitation.created')).length, 0);
  });

  it('cancel: agency.invitation.cancelled, then the page and acceptance refuse it; expiry: agency.invitation.expired by the job', async () => {
    const agency = await makeAgency(t);
    const client = await createMerchant(t, 'Client');
    const a = await invite(t, agency, ['payments.read']);
    const cancelled = await t.api(agency.testKey, 'POST', `/api/v1/agency/invitations/${a.id}/cancel`);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    const again = await t.api(agency.testKey, 'POST', `/api/v1/agency/invitations/${a.id}/cancel`);
    assert.deepEqual([again.status, again.body.code], [422, 'INVITATION_NOT_PENDING']);
    assert.equal((await agencyEvents(t, agency.id, 'agency.invitation.cancelled')).length, 1);
    const accept = await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${tokenOf(a.url)}/accept`);
    assert.deepEqual([accept.status, accept.body.code], [422, 'INVITATION_NOT_PENDING']);

    const b = await invite(t, agency, ['payments.read'], { expiresIn: 60 });
    const services = buildServices(t.config, t.db, t.clock);
    assert.equal(await services.agencyInvitations.expireDue(new Date(Date.now() - 1000)), 0, 'not due yet');
    const late = await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${tokenOf(b.url)}/accept`);
    assert.equal(late.status, 201, 'still pending: accepted');
    const c = await invite(t, agency, ['payments.read'], { expiresIn: 60 });
    assert.equal(await services.agencyInvitations.expireDue(new Date(Date.now() + 61_000)), 1);
    assert.equal(await services.agencyInvitations.expireDue(new Date(Date.now() + 61_000)), 0, 'once');
    const [expired] = await agencyEvents(t, agency.id, 'agency.invitation.expired');
    assert.deepEqual([expired.data.invitationId, expired.data.status], [c.id, 'expired']);
    const refused = await t.api(createMerchantKey(await createMerchant(t, 'Late')), 'POST', `/api/v1/agency-invitations/${tokenOf(c.url)}/accept`);
    assert.deepEqual([refused.status, refused.body.code], [410, 'INVITATION_EXPIRED']);
  });

  it('accepting with the client\'s key creates the mandate (mdt_) and agency.mandate.created {mandateId, merchantId, scopes}; one invitation, one mandate', async () => {
    const agency = await makeAgency(t);
    const client = await createMerchant(t, 'Pension Hina');
    const inv = await invite(t, agency, ['customers.write', 'payments.read']);
    const own = await t.api(agency.testKey, 'POST', `/api/v1/agency-invitations/${tokenOf(inv.url)}/accept`);
    assert.deepEqual([own.status, own.body.code], [422, 'AGENCY_OWN_INVITATION']);
    const otherMode = await t.api(client.liveKey, 'POST', `/api/v1/agency-invitations/${tokenOf(inv.url)}/accept`);
    assert.equal(otherMode.status, 404, 'a live key does not see a test invitation');
    assert.equal((await t.api(client.testKey, 'POST', '/api/v1/agency-invitations/notatoken/accept')).status, 404);
    const accepted = await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${tokenOf(inv.url)}/accept`);
    assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
    assert.match(accepted.body.id, /^mdt_[0-9A-Za-z]{22}$/);
    assert.deepEqual([accepted.body.agencyId, accepted.body.merchantId, accepted.body.status, accepted.body.mode], [agency.id, client.id, 'active', 'test']);
    assert.deepEqual(accepted.body.scopes, ['payments.read', 'customers.write'], 'in the list\'s order');
    const [event] = await agencyEvents(t, agency.id, 'agency.mandate.created');
    assert.deepEqual(event.data, { mandateId: accepted.body.id, agencyId: agency.id, merchantId: client.id, scopes: ['payments.read', 'customers.write'], invitationId: inv.id });
    const second = await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${tokenOf(inv.url)}/accept`);
    assert.deepEqual([second.status, second.body.code], [422, 'INVITATION_NOT_PENDING']);
    const read = await t.api(agency.testKey, 'GET', `/api/v1/agency/invitations/${inv.id}`);
    assert.deepEqual([read.body.status, read.body.merchantId, read.body.mandateId], ['accepted', client.id, accepted.body.id]);
    // A second invitation accepted by the same client: the agency already holds a mandate there.
    const dup = await invite(t, agency, ['payments.read']);
    const conflict = await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${tokenOf(dup.url)}/accept`);
    assert.deepEqual([conflict.status, conflict.body.code], [409, 'ALREADY_EXISTS']);
  });

  it('a back-office owner accepts through the API with the session; another role may not', async () => {
    const agency = await makeAgency(t);
    const client = await createMerchant(t, 'Roulotte');
    const inv = await invite(t, agency, ['payments.read']);
    const admin = await signedInUser(t, client.id, 'admin');
    const refused = await admin.call('POST', `/api/v1/agency-invitations/${tokenOf(inv.url)}/accept`, {});
    assert.deepEqual([refused.status, refused.body.code], [403, 'PERMISSION_DENIED']);
    const owner = await signedInUser(t, client.id, 'owner');
    const accepted = await owner.call('POST', `/api/v1/agency-invitations/${tokenOf(inv.url)}/accept`, {});
    assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
    assert.equal(accepted.body.merchantId, client.id);
    const header = await owner.call('GET', '/api/v1/payments', undefined, { headers: { 'motu-account': agency.id } });
    // A session acts only for the clients of its own agency (the back-office's "Act for this client"): the client
    // holds no mandate on the agency, which is then unknown to it.
    assert.deepEqual([header.status, header.body.code], [404, 'NOT_FOUND'], 'a session acts for no account but its agency\'s clients');
    const dash = await owner.call('GET', '/dashboard/api/me', undefined, { headers: { 'motu-account': agency.id } });
    assert.deepEqual([dash.status, dash.body.code], [400, 'ON_BEHALF_NOT_ALLOWED']);
  });

  it('acting: the client\'s environment within the scopes; 403 PERMISSION_DENIED with details.scope outside; actedBy and the client\'s audit name the agency', async () => {
    const { agency, client, as } = await mandated(t, ['customers.read', 'customers.write', 'payments.write']);
    const created = await as('POST', '/api/v1/customers', { name: 'Teva', email: 'teva@client.example' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.actedBy, { agencyId: agency.id });
    const mine = await t.api(client.testKey, 'GET', `/api/v1/customers/${created.body.id}`);
    assert.equal(mine.status, 200, 'the customer is the client\'s');
    assert.deepEqual(mine.body.actedBy, { agencyId: agency.id });
    const listed = await t.api(client.testKey, 'GET', '/api/v1/customers');
    assert.deepEqual(listed.body.data[0].actedBy, { agencyId: agency.id });
    assert.equal((await t.api(agency.testKey, 'GET', `/api/v1/customers/${created.body.id}`)).status, 404, 'not the agency\'s own');
    const ownCustomer = await t.api(client.testKey, 'POST', '/api/v1/customers', { name: 'By the client' });
    assert.equal(ownCustomer.body.actedBy, undefined);

    const session = await as('POST', '/api/v1/payments/sessions', { order: { reference: 'AG-1', amount: 1500, currency: 'EUR' }, redirectUrl: 'https://client.example/back', notificationUrl: 'https://client.example/notify' });
    assert.equal(session.status, 201, JSON.stringify(session.body));
    assert.deepEqual(session.body.actedBy, { agencyId: agency.id });
    const payment = await t.api(client.testKey, 'GET', `/api/v1/payments/${session.body.paymentId}`);
    assert.deepEqual(payment.body.actedBy, { agencyId: agency.id }, 'the client sees who made the payment');

    const outside = await as('GET', '/api/v1/payments');
    assert.deepEqual([outside.status, outside.body.code, outside.body.details.scope], [403, 'PERMISSION_DENIED', 'payments.read']);
    const refund = await as('POST', `/api/v1/payments/${session.body.paymentId}/refund`, {});
    assert.deepEqual([refund.status, refund.body.details.scope], [403, 'refunds.write']);

    const owner = await signedInUser(t, client.id, 'owner');
    const audit = await owner.call('GET', '/dashboard/api/audit?limit=100');
    assert.equal(audit.status, 200);
    const rows = audit.body.data.filter((r: any) => r.actedBy.agencyId === agency.id);
    assert.deepEqual(rows.map((r: any) => r.action).sort(), ['POST /api/v1/customers', 'POST /api/v1/payments/sessions']);
    assert.ok(rows.every((r: any) => r.outcome === 'succeeded'));
  });

  it('no mandate, another agency\'s mandate, the flag off, a non-agency key, the other mode: 404 as for an unknown merchant', async () => {
    const { agency, client, as } = await mandated(t, [...SCOPES]);
    assert.equal((await as('GET', '/api/v1/balance')).status, 200);
    const other = await makeAgency(t, 'Agence B');
    const stranger = await createMerchant(t, 'Stranger');
    for (const [key, account, what] of [
      [other.testKey, client.id, "agency B under agency A's mandate"],
      [agency.testKey, stranger.id, 'no mandate'],
      [stranger.testKey, client.id, 'a non-agency key'],
      [agency.liveKey, client.id, "the client's other mode"],
      [agency.testKey, 'mer_nope', 'a malformed id'],
    ] as const) {
      const res = await t.api(key, 'GET', '/api/v1/customers', undefined, { 'motu-account': account });
      assert.deepEqual([res.status, res.body.code], [404, 'NOT_FOUND'], what);
    }
    const unknown = await t.api(agency.testKey, 'GET', '/api/v1/customers', undefined, { 'motu-account': 'mer_0000000000000000000000' });
    assert.deepEqual(Object.keys(unknown.body).sort(), ['code', 'details', 'message']);
    // The operator turns the flag off: refused at once, as an unknown account; on again, the mandate holds.
    await t.admin('PATCH', `/admin/v1/merchants/${agency.id}`, { agency: false });
    assert.equal((await as('GET', '/api/v1/balance')).status, 404);
    await t.admin('PATCH', `/admin/v1/merchants/${agency.id}`, { agency: true });
    assert.equal((await as('GET', '/api/v1/balance')).status, 200);
    // The client's own objects seen through the mandate are the client's test ones only.
    const liveCustomer = await t.api(client.liveKey, 'POST', '/api/v1/customers', { name: 'Live only' });
    const seen = await as('GET', '/api/v1/customers?limit=100');
    assert.ok(!seen.body.data.some((c: { id: string }) => c.id === liveCustomer.body.id));
    // A store-bound key of the agency cannot act for a client.
    const store = await createStore(t, agency.id, { code: 'S1', name: 'Shop', kind: 'online' });
    const bound = await createKey(t, agency.id, { mode: 'test', storeId: store.id });
    const byStore = await t.api(bound.secretKey, 'GET', '/api/v1/balance', undefined, { 'motu-account': client.id });
    assert.deepEqual([byStore.status, byStore.body.code], [403, 'PERMISSION_DENIED']);
  });

  it('routes that make no sense on behalf refuse the header with 400 ON_BEHALF_NOT_ALLOWED', async () => {
    const { mandate, as } = await mandated(t, [...SCOPES]);
    for (const [method, url] of [
      ['GET', '/api/v1/agency/mandates'], ['GET', '/api/v1/agency/invitations'], ['POST', '/api/v1/agency/webhooks'],
      ['GET', '/api/v1/agency-mandates'], ['POST', `/api/v1/agency-mandates/${mandate.id}/revoke`],
    ] as const) {
      const res = await as(method, url, method === 'POST' ? { url: 'https://hooks.example/x' } : undefined);
      assert.deepEqual([res.status, res.body.code], [400, 'ON_BEHALF_NOT_ALLOWED'], `${method} ${url}`);
      assert.equal(res.body.details.header, 'Motu-Account');
    }
  });

  it('idempotency keys count on the agency: the same key by the client and by its agency are two requests', async () => {
    const { client, as } = await mandated(t, ['customers.write', 'customers.read']);
    const byAgency = await as('POST', '/api/v1/customers', { name: 'One' }, { 'idempotency-key': 'same-key-1' });
    const byClient = await t.api(client.testKey, 'POST', '/api/v1/customers', { name: 'Two' }, { 'idempotency-key': 'same-key-1' });
    assert.equal(byAgency.status, 201);
    assert.equal(byClient.status, 201, 'not IDEMPOTENCY_KEY_REUSED: the client\'s keys are its own');
    assert.notEqual(byAgency.body.id, byClient.body.id);
    const replay = await as('POST', '/api/v1/customers', { name: 'One' }, { 'idempotency-key': 'same-key-1' });
    assert.equal(replay.body.id, byAgency.body.id);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
  });

  it('the client: lists its mandates, changes the scopes (agency.mandate.updated {change: scopes}), which hold at once', async () => {
    const { agency, client, mandate, as } = await mandated(t, ['customers.read', 'payments.read']);
    const list = await t.api(client.testKey, 'GET', '/api/v1/agency-mandates');
    assert.deepEqual(list.body.data.map((m: any) => [m.id, m.agencyId, m.agencyName]), [[mandate.id, agency.id, 'Agence Moana']]);
    assert.equal((await t.api(client.liveKey, 'GET', '/api/v1/agency-mandates')).body.data.length, 0, 'the other mode has none');
    assert.equal((await as('GET', '/api/v1/customers')).status, 200);
    const bad = await t.api(client.testKey, 'PATCH', `/api/v1/agency-mandates/${mandate.id}`, { scopes: ['payments.read', 'all'] });
    assert.deepEqual([bad.status, bad.body.details.field], [400, 'scopes[1]']);
    const byAgency = await t.api(agency.testKey, 'PATCH', `/api/v1/agency-mandates/${mandate.id}`, { scopes: [...SCOPES] });
    assert.equal(byAgency.status, 404, 'only the client changes its scopes');
    const changed = await t.api(client.testKey, 'PATCH', `/api/v1/agency-mandates/${mandate.id}`, { scopes: ['payments.read'] });
    assert.equal(changed.status, 200);
    assert.deepEqual(changed.body.scopes, ['payments.read']);
    const [event] = await agencyEvents(t, agency.id, 'agency.mandate.updated');
    assert.deepEqual(event.data, { mandateId: mandate.id, agencyId: agency.id, merchantId: client.id, change: 'scopes', scopes: ['payments.read'], previousScopes: ['payments.read', 'customers.read'] });
    const now = await as('GET', '/api/v1/customers');
    assert.deepEqual([now.status, now.body.details.scope], [403, 'customers.read']);
    const same = await t.api(client.testKey, 'PATCH', `/api/v1/agency-mandates/${mandate.id}`, { scopes: ['payments.read'] });
    assert.equal(same.status, 200);
    assert.equal((await agencyEvents(t, agency.id, 'agency.mandate.updated')).length, 1, 'no change, no event');
  });

  it('the portfolio: the agency\'s mandates with each client\'s name', async () => {
    const { agency, client, mandate } = await mandated(t, ['payments.read'], { client: 'Vanille de Tahaa' });
    const portfolio = await t.api(agency.testKey, 'GET', '/api/v1/agency/mandates');
    assert.equal(portfolio.status, 200);
    assert.deepEqual(portfolio.body.data.map((m: any) => [m.id, m.merchantId, m.merchantName, m.status]), [[mandate.id, client.id, 'Vanille de Tahaa', 'active']]);
    assert.equal((await t.api(agency.liveKey, 'GET', '/api/v1/agency/mandates')).body.data.length, 0);
    const admin = await t.admin('GET', `/admin/v1/merchants/${client.id}/mandates`);
    assert.deepEqual(admin.body.data.map((m: any) => m.id), [mandate.id]);
    assert.deepEqual((await t.admin('GET', `/admin/v1/merchants/${agency.id}/mandates`)).body.data.map((m: any) => m.id), [mandate.id]);
    assert.equal((await t.admin('GET', '/admin/v1/merchants/mer_0000000000000000000000/mandates')).status, 404);
  });

  it('transfer to another agency (by the client): agency.mandate.updated {change: ownership_transferred} to both; the old agency is refused, the new one acts', async () => {
    const { agency, client, mandate, as } = await mandated(t, ['balance.read']);
    const next = await makeAgency(t, 'Agence Nui');
    const shop = await createMerchant(t, 'Not an agency');
    const notAgency = await t.api(client.testKey, 'POST', `/api/v1/agency-mandates/${mandate.id}/transfer`, { agencyId: shop.id });
    assert.deepEqual([notAgency.status, notAgency.body.details.field], [400, 'agencyId']);
    const byAgency = await t.api(agency.testKey, 'POST', `/api/v1/agency-mandates/${mandate.id}/transfer`, { agencyId: next.id });
    assert.equal(byAgency.status, 404, 'by the client only');
    const moved = await t.api(client.testKey, 'POST', `/api/v1/agency-mandates/${mandate.id}/transfer`, { agencyId: next.id });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.agencyId, next.id);
    const expected = { mandateId: mandate.id, merchantId: client.id, change: 'ownership_transferred', previousAgencyId: agency.id, agencyId: next.id, scopes: ['balance.read'] };
    assert.deepEqual((await agencyEvents(t, agency.id, 'agency.mandate.updated')).map((e) => e.data), [expected]);
    assert.deepEqual((await agencyEvents(t, next.id, 'agency.mandate.updated')).map((e) => e.data), [expected]);
    assert.equal((await as('GET', '/api/v1/balance')).status, 404, 'the old agency holds nothing now');
    const byNext = await t.api(next.testKey, 'GET', '/api/v1/balance', undefined, { 'motu-account': client.id });
    assert.equal(byNext.status, 200);
  });

  it('revocation by the client or the agency: agency.mandate.revoked, then 403 MANDATE_REVOKED; a second revocation changes nothing', async () => {
    const first = await mandated(t, ['balance.read']);
    const byClient = await t.api(first.client.testKey, 'POST', `/api/v1/agency-mandates/${first.mandate.id}/revoke`);
    assert.equal(byClient.status, 200);
    assert.deepEqual([byClient.body.status, byClient.body.revokedBy], ['revoked', 'client']);
    const refused = await first.as('GET', '/api/v1/balance');
    assert.deepEqual([refused.status, refused.body.code], [403, 'MANDATE_REVOKED']);
    const again = await t.api(first.agency.testKey, 'POST', `/api/v1/agency-mandates/${first.mandate.id}/revoke`);
    assert.deepEqual([again.status, again.body.revokedBy], [200, 'client']);
    const events = await agencyEvents(t, first.agency.id, 'agency.mandate.revoked');
    assert.deepEqual(events.map((e) => e.data), [{ mandateId: first.mandate.id, agencyId: first.agency.id, merchantId: first.client.id, scopes: ['balance.read'], revokedBy: 'client' }]);
    const patch = await t.api(first.client.testKey, 'PATCH', `/api/v1/agency-mandates/${first.mandate.id}`, { scopes: ['balance.read', 'payments.read'] });
    assert.deepEqual([patch.status, patch.body.code], [403, 'MANDATE_REVOKED']);

    const second = await mandated(t, ['balance.read'], { agency: 'Agence Two', client: 'Client Two' });
    const stranger = await createMerchant(t, 'Stranger');
    assert.equal((await t.api(stranger.testKey, 'POST', `/api/v1/agency-mandates/${second.mandate.id}/revoke`)).status, 404);
    const byAgency = await t.api(second.agency.testKey, 'POST', `/api/v1/agency-mandates/${second.mandate.id}/revoke`);
    assert.deepEqual([byAgency.status, byAgency.body.revokedBy], [200, 'agency']);
    assert.equal((await second.as('GET', '/api/v1/balance')).body.code, 'MANDATE_REVOKED');
    // Invited again and accepted: a new mandate, the calls work again.
    const inv = await invite(t, second.agency, ['balance.read']);
    assert.equal((await t.api(second.client.testKey, 'POST', `/api/v1/agency-invitations/${tokenOf(inv.url)}/accept`)).status, 201);
    assert.equal((await second.as('GET', '/api/v1/balance')).status, 200);
  });

  it('the route table names every merchant API route, and only those', () => {
    const registered = new Set(t.routes.filter((r) => r.path.startsWith('/api/v1/') && r.path !== '/api/v1/openapi.json').map((r) => `${r.method} ${r.path}`));
    const missing = [...registered].filter((r) => ROUTE_SCOPES[r] === undefined);
    assert.deepEqual(missing, [], 'routes without a scope in src/http/agency-scopes.ts');
    const stale = Object.keys(ROUTE_SCOPES).filter((r) => !registered.has(r));
    assert.deepEqual(stale, [], 'rows of src/http/agency-scopes.ts for routes that are gone');
    for (const scope of Object.values(ROUTE_SCOPES)) assert.ok(scope === ON_BEHALF_REFUSED || (SCOPES as readonly string[]).includes(scope));
  });

  it('`motu mandates list --merchant` prints the merchant\'s mandates', async () => {
    const { client, mandate } = await mandated(t, ['payments.read']);
    const { main } = await import('../src/start/cli.js');
    const saved = { ...process.env };
    Object.assign(process.env, { MOTU_DATA_DIR: t.dataDir, MOTU_PUBLIC_URL: 'http://localhost:3000', MOTU_SEED_DEMO: 'false', LOG_LEVEL: 'silent' });
    if (t.databaseUrl) process.env.DATABASE_URL = t.databaseUrl; else delete process.env.DATABASE_URL;
    const lines: string[] = [];
    try {
      assert.equal(await main(['mandates', 'list', '--merchant', client.id], (l) => lines.push(l)), 0);
    } finally {
      process.env = saved;
    }
    assert.deepEqual(JSON.parse(lines.join('\n')).data.map((m: any) => m.id), [mandate.id]);
  });
});

eachDatabase('agencies: webhooks and open streams', (dialect) => {
  const suite = withApp(dialect, { workers: true, receiver: true, serve: true });
  const { t, rx } = suite;

  it('agency.* events go to the agency\'s declared addresses, signed with the agency\'s own secret', async () => {
    const agency = await makeAgency(t);
    const declared = await t.api(agency.testKey, 'POST', '/api/v1/agency/webhooks', { url: rx.url('/agency') });
    assert.equal(declared.status, 201, JSON.stringify(declared.body));
    assert.deepEqual([declared.body.kind, declared.body.events], ['agency', ['agency.*']]);
    const inv = await invite(t, agency, ['payments.read']);
    await rx.waitFor(() => rx.for('/agency').length === 1);
    const [r] = rx.for('/agency');
    assert.equal(r!.body.type, 'agency.invitation.created');
    assert.equal(r!.body.data.invitationId, inv.id);
    const ts = String(r!.headers['x-service-timestamp']);
    const v2 = createHmac('sha256', agency.testWebhookSecret).update(Buffer.concat([Buffer.from(`${ts}.`), r!.raw])).digest('hex');
    assert.equal(r!.headers['x-service-signature-v2'], v2);
    assert.ok((await eventsOfType(t, 'agency.invitation.created')).length >= 1);
  });

  it('a revoked mandate ends the event stream the agency opened for its client; a scope taken away too', async () => {
    for (const end of ['revoke', 'scopes'] as const) {
      const { agency, client, mandate } = await mandated(t, ['webhooks.manage', 'payments.read'], { agency: `Agence ${end}`, client: `Client ${end}` });
      const abort = new AbortController();
      const res = await fetch(`${suite.baseUrl}/api/v1/events/stream`, { headers: { authorization: `Bearer ${agency.testKey}`, 'motu-account': client.id }, signal: abort.signal });
      assert.equal(res.status, 200);
      let endedByServer = false;
      const reading = (async () => {
        try {
          for await (const _chunk of res.body as unknown as AsyncIterable<Uint8Array>) { /* read on */ }
          endedByServer = true;
        } catch { /* aborted */ }
      })();
      const change = end === 'revoke'
        ? await t.api(client.testKey, 'POST', `/api/v1/agency-mandates/${mandate.id}/revoke`)
        : await t.api(client.testKey, 'PATCH', `/api/v1/agency-mandates/${mandate.id}`, { scopes: ['payments.read'] });
      assert.equal(change.status, 200);
      const deadline = Date.now() + 6000;
      while (!endedByServer && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      abort.abort();
      await reading;
      assert.ok(endedByServer, `the stream ends after ${end}`);
    }
  });
});

function createMerchantKey(m: MerchantFixture): string {
  return m.testKey;
}
