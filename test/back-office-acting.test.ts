// An agency's back-office user acting for a client with the session cookie and `Motu-Account` (the back-office's
// "Act for this client"), on every database: the client's objects within the mandate's scopes, a scope it lacks
// refused with details.scope, the user's own role still bounding what they change, the change written to the
// client's audit log naming the user and the agency, and a revoked mandate refused at once.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { signedInUser } from './support/back-office.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';
import { makeAgency } from './support/platforms.js';

eachDatabase('acting for a client from the back-office', (dialect) => {
  const { t } = withApp(dialect);

  async function mandate(scopes: string[]) {
    const agency = await makeAgency(t, 'Agence Moana');
    const client = await createMerchant(t, 'Client SARL');
    const invited = await t.api(agency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'owner@client.example', scopes });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    const accepted = await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${String(invited.body.url).split('/').at(-1)}/accept`, {});
    assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
    return { agency, client, mandateId: accepted.body.id as string };
  }

  it("reads the client's payments within the scopes; a missing scope is 403 with details.scope; revoked: MANDATE_REVOKED", async () => {
    const { agency, client, mandateId } = await mandate(['payments.read', 'refunds.write']);
    const paymentId = await paidPayment(t, client.testKey, { amount: 4200 });
    const owner = await signedInUser(t, agency.id, 'owner');
    const as = { headers: { 'motu-account': client.id } };

    const own = await owner.call('GET', '/api/v1/payments');
    assert.equal(own.status, 200);
    assert.equal(own.body.data.some((p: { id: string }) => p.id === paymentId), false, "the agency's own list is its own");
    const listed = await owner.call('GET', '/api/v1/payments', undefined, as);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(listed.body.data.map((p: { id: string }) => p.id), [paymentId]);

    const balance = await owner.call('GET', '/api/v1/balance', undefined, as);
    assert.equal(balance.status, 403);
    assert.equal(balance.body.code, 'PERMISSION_DENIED');
    assert.equal(balance.body.details.scope, 'balance.read');

    const refund = await owner.call('POST', `/api/v1/payments/${paymentId}/refund`, { amount: 1000 }, as);
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    const audit = await t.db.kysely.selectFrom('audit_log').selectAll().where('merchant_id', '=', client.id).execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.user_id, owner.id);
    assert.equal(audit[0]!.agency_id, agency.id);
    assert.equal(audit[0]!.outcome, 'succeeded');

    // The user's role still bounds them: an analyst of the agency reads the client, refunds nothing.
    const analyst = await signedInUser(t, agency.id, 'analyst');
    assert.equal((await analyst.call('GET', `/api/v1/payments/${paymentId}`, undefined, as)).status, 200);
    const refused = await analyst.call('POST', `/api/v1/payments/${paymentId}/refund`, { amount: 100 }, as);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'PERMISSION_DENIED');

    // Another merchant without a mandate: 404 as for any unknown account.
    const stranger = await createMerchant(t, 'Stranger');
    assert.equal((await owner.call('GET', '/api/v1/payments', undefined, { headers: { 'motu-account': stranger.id } })).status, 404);

    // The client revokes: the agency's user is refused at once.
    assert.equal((await t.api(client.testKey, 'POST', `/api/v1/agency-mandates/${mandateId}/revoke`, {})).status, 200);
    const after = await owner.call('GET', '/api/v1/payments', undefined, as);
    assert.equal(after.status, 403);
    assert.equal(after.body.code, 'MANDATE_REVOKED');
    const refunds = await t.api(client.testKey, 'GET', `/api/v1/payments/${paymentId}`);
    assert.equal(refunds.body.refundedAmount, 1000, 'one refund, the one made while the mandate stood');
  });

  it('the back-office user of a merchant that is not an agency acts for nobody', async () => {
    const { client } = await mandate(['payments.read']);
    const other = await createMerchant(t, 'Not an agency');
    const owner = await signedInUser(t, other.id, 'owner');
    const res = await owner.call('GET', '/api/v1/payments', undefined, { headers: { 'motu-account': client.id } });
    assert.equal(res.status, 404);
  });
});
