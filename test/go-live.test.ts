// GET /dashboard/api/go-live on every database: each item of the checklist turns from missing to done as the team
// (legal identity, a live bank account, a live key, a live webhook endpoint) and the operator (the contract connected
// to Monext, homologation then production) act; only owners and admins may read it.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { signedInUser, type UserClient } from './support/back-office.js';
import { FAKE_MONEXT_CREDENTIALS } from './support/fake-monext.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';

const IDENTITY = {
  legalName: 'Fare Ute SARL',
  address: { line1: '12 rue du Général de Gaulle', postalCode: '98714', city: 'Papeete', country: 'PF' },
  registrationNumber: 'A12345',
};

eachDatabase('the Go live checklist', (dialect) => {
  const { t } = withApp(dialect);

  /** A merchant straight from the admin API (its default contract on the simulator, whatever the suite's profile). */
  async function merchant(): Promise<{ id: string; defaultContractId: string }> {
    const res = await t.admin('POST', '/admin/v1/merchants', { name: 'Fare Ute' });
    assert.equal(res.status, 201);
    return res.body;
  }

  async function states(owner: UserClient) {
    const res = await owner.call('GET', '/dashboard/api/go-live');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const items = res.body.items as Record<string, { state: string }>;
    return { ready: res.body.ready as boolean, body: res.body, ...Object.fromEntries(Object.entries(items).map(([k, v]) => [k, v.state])) } as Record<string, string> & { ready: boolean; body: any };
  }

  it('each item flips from missing to done as the merchant and the operator act', async () => {
    const m = await merchant();
    const owner = await signedInUser(t, m.id, 'owner');
    let s = await states(owner);
    assert.equal(s.ready, false);
    assert.deepEqual([s.legalIdentity, s.bankAccount, s.liveContract, s.liveKey, s.webhookEndpoint], ['missing', 'missing', 'missing', 'missing', 'missing']);
    assert.deepEqual(s.body.items.legalIdentity.missing, ['legalName', 'address', 'registrationNumber']);
    // The operator's live key, made with the merchant, is the operator's: counted apart.
    assert.equal(s.body.items.liveKey.operatorKeys, 1);
    const contract = s.body.items.liveContract;
    assert.equal(contract.contract.id, m.defaultContractId);
    assert.equal(contract.contract.acquirer, 'simulator');
    assert.equal(contract.operator.command.startsWith(`motu contracts update ${m.defaultContractId} --acquirer monext `), true, contract.operator.command);
    assert.equal(contract.operator.route, `PATCH /admin/v1/contracts/${m.defaultContractId}`);

    // The legal identity: the same rule as invoicing's activation.
    assert.equal((await owner.call('PATCH', '/dashboard/api/settings', { legalName: IDENTITY.legalName })).status, 200);
    s = await states(owner);
    assert.equal(s.legalIdentity, 'missing');
    assert.deepEqual(s.body.items.legalIdentity.missing, ['address', 'registrationNumber']);
    assert.equal((await owner.call('PATCH', '/dashboard/api/settings', IDENTITY)).status, 200);
    assert.equal((await states(owner)).legalIdentity, 'done');
    const billing = await owner.call('GET', '/api/v1/billing/settings');
    assert.equal(billing.body.issuable, true, 'invoicing opened with it');
    assert.equal(billing.body.activationUrl, `${t.config.publicUrl}/dashboard/settings`, 'the back-office page where it is completed');

    // Whatever mode the session is in, the checklist reads the live environment: a test bank account does not count.
    const iban = { iban: 'FR7630006000010000000000152', holderName: 'Fare Ute', currency: 'EUR' };
    assert.equal((await owner.call('POST', '/api/v1/bank-accounts', iban)).status, 201);
    assert.equal((await states(owner)).bankAccount, 'missing');
    assert.equal((await owner.call('POST', '/dashboard/api/mode', { mode: 'live' })).status, 200);
    assert.equal((await owner.call('POST', '/api/v1/bank-accounts', iban)).status, 201);
    s = await states(owner);
    assert.equal(s.bankAccount, 'done');
    assert.deepEqual(s.body.items.bankAccount.currencies.map((c: { currency: string; defaultAccount: unknown }) => [c.currency, c.defaultAccount !== null]), [['EUR', true], ['XPF', false]]);

    // The operator connects the contract: homologation is not yet real money, production is.
    const homologation = await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { acquirer: 'monext', monext: { ...FAKE_MONEXT_CREDENTIALS, environment: 'homologation' } });
    assert.equal(homologation.status, 200, JSON.stringify(homologation.body));
    s = await states(owner);
    assert.equal(s.liveContract, 'partial');
    assert.equal(s.body.items.liveContract.contract.environment, 'homologation');
    assert.equal(s.body.items.liveContract.operator.command, `motu contracts update ${m.defaultContractId} --monext-environment production --monext-access-key "$MONEXT_ACCESS_KEY"`);
    assert.equal((await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { monext: { environment: 'production' } })).status, 200);
    s = await states(owner);
    assert.equal(s.liveContract, 'done');
    assert.equal(s.body.items.liveContract.operator, null);
    assert.equal(JSON.stringify(s.body).includes(FAKE_MONEXT_CREDENTIALS.accessKey), false, 'never the access key');

    // The team's first live key (made in live mode), then a live endpoint.
    const key = await owner.call('POST', '/dashboard/api/keys', {});
    assert.equal(key.status, 201);
    assert.equal(key.body.mode, 'live');
    assert.equal((await states(owner)).liveKey, 'done');
    assert.equal((await owner.call('POST', '/api/v1/webhook-endpoints', { url: 'https://93.184.215.14/hook', events: ['*'] })).status, 201);
    s = await states(owner);
    assert.equal(s.webhookEndpoint, 'done');
    assert.equal(s.ready, true);

    // A revoked key no longer counts.
    assert.equal((await owner.call('DELETE', `/dashboard/api/keys/${key.body.id}`)).status, 200);
    s = await states(owner);
    assert.equal(s.liveKey, 'missing');
    assert.equal(s.ready, false);
  });

  it('owners and admins read it; developers, analysts and support get 403', async () => {
    const m = await merchant();
    for (const role of ['owner', 'admin'] as const) {
      assert.equal((await (await signedInUser(t, m.id, role)).call('GET', '/dashboard/api/go-live')).status, 200, role);
    }
    for (const role of ['developer', 'analyst', 'support'] as const) {
      const res = await (await signedInUser(t, m.id, role)).call('GET', '/dashboard/api/go-live');
      assert.equal(res.status, 403, role);
      assert.equal(res.body.code, 'PERMISSION_DENIED');
    }
  });
});
