// The agency rows of the race table (test/races.test.ts, docs/reliability.md "Races"): one invitation accepted by many
// at once, a mandate revoked or its scopes changed by many at once, and an agency's calls racing the revocation of its
// mandate. Each invariant checks what the agency and its client would see afterwards: the answers, the mandate, and
// one event per change that happened.
import assert from 'node:assert/strict';
import { createMerchant } from '../support/factories.js';
import type { TestApp } from '../support/harness.js';
import { makeAgency } from '../support/platforms.js';
import { assertTally, countEvents, race, succeeded, type RaceRow } from '../support/races.js';

const SCOPE_SETS = [['payments.read'], ['payments.read', 'customers.read'], ['balance.read'], ['customers.read', 'customers.write'], ['refunds.write']];

async function invitation(t: TestApp, scopes: string[]) {
  const agency = await makeAgency(t, 'Agence Race');
  const res = await t.api(agency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'race@client.example', scopes });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { agency, id: res.body.id as string, token: String(res.body.url).split('/').at(-1)! };
}

async function mandated(t: TestApp, scopes: string[]) {
  const inv = await invitation(t, scopes);
  const client = await createMerchant(t, 'Client Race');
  const accepted = await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${inv.token}/accept`);
  assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
  return { agency: inv.agency, client, mandateId: accepted.body.id as string };
}

async function agencyEvents(t: TestApp, agencyId: string, type: string): Promise<any[]> {
  const rows = await t.db.kysely.selectFrom('webhook_events').select('body').where('merchant_id', '=', agencyId).where('type', '=', type).orderBy('seq').execute();
  return rows.map((r) => JSON.parse(r.body).data);
}

export const agencyRaces: RaceRow[] = [
  race({
    name: 'agencies: 20 clients accept one invitation at once: one mandate, one agency.mandate.created',
    setup: async ({ t }) => {
      const inv = await invitation(t, ['payments.read']);
      const clients = await Promise.all(Array.from({ length: 20 }, (_, i) => createMerchant(t, `Acceptor ${i}`)));
      return { ...inv, keys: clients.map((c) => c.testKey) };
    },
    fire: ({ t }, { token, keys }, i) => t.api(keys[i]!, 'POST', `/api/v1/agency-invitations/${token}/accept`),
    invariant: async ({ t }, { agency, id }, answers) => {
      assertTally(answers, { 201: 1, '422 INVITATION_NOT_PENDING': 19 });
      const [won] = succeeded(answers);
      const portfolio = await t.api(agency.testKey, 'GET', '/api/v1/agency/mandates');
      assert.deepEqual(portfolio.body.data.map((m: any) => [m.id, m.merchantId]), [[won!.body.id, won!.body.merchantId]]);
      assert.equal(await countEvents(t, 'agency.mandate.created', { data: { invitationId: id } }), 1);
      const read = await t.api(agency.testKey, 'GET', `/api/v1/agency/invitations/${id}`);
      assert.deepEqual([read.body.status, read.body.mandateId], ['accepted', won!.body.id]);
    },
  }),
  race({
    name: 'agencies: 20 revocations of one mandate at once (client and agency): one agency.mandate.revoked, revoked by whom it says',
    setup: async ({ t }) => mandated(t, ['balance.read']),
    fire: ({ t }, { agency, client, mandateId }, i) => t.api(i % 2 === 0 ? client.testKey : agency.testKey, 'POST', `/api/v1/agency-mandates/${mandateId}/revoke`),
    invariant: async ({ t }, { agency, client, mandateId }, answers) => {
      assertTally(answers, { 200: 20 });
      const events = await agencyEvents(t, agency.id, 'agency.mandate.revoked');
      assert.equal(events.length, 1);
      const [mandate] = (await t.api(client.testKey, 'GET', '/api/v1/agency-mandates')).body.data;
      assert.deepEqual([mandate.id, mandate.status, mandate.revokedBy], [mandateId, 'revoked', events[0].revokedBy]);
      assert.ok(answers.every((a) => a.body.status === 'revoked' && a.body.revokedBy === events[0].revokedBy), 'every answer shows the one revocation');
      const call = await t.api(agency.testKey, 'GET', '/api/v1/balance', undefined, { 'motu-account': client.id });
      assert.equal(call.body.code, 'MANDATE_REVOKED');
    },
  }),
  race({
    name: 'agencies: 20 scope changes of one mandate at once: one agency.mandate.updated per change, chained, the last one holds',
    setup: async ({ t }) => mandated(t, ['payments.read', 'balance.read']),
    fire: ({ t }, { client, mandateId }, i) => t.api(client.testKey, 'PATCH', `/api/v1/agency-mandates/${mandateId}`, { scopes: SCOPE_SETS[i % SCOPE_SETS.length] }),
    invariant: async ({ t }, { agency, client, mandateId }, answers) => {
      assertTally(answers, { 200: 20 });
      const events = (await agencyEvents(t, agency.id, 'agency.mandate.updated')).filter((e) => e.mandateId === mandateId);
      assert.ok(events.length >= 1 && events.length <= 20);
      let scopes = ['payments.read', 'balance.read'];
      for (const e of events) {
        assert.deepEqual(e.previousScopes, scopes, 'each change starts from the one before');
        assert.notDeepEqual(e.scopes, e.previousScopes, 'an event is a change');
        scopes = e.scopes;
      }
      const [mandate] = (await t.api(client.testKey, 'GET', '/api/v1/agency-mandates')).body.data;
      assert.deepEqual(mandate.scopes, scopes, 'the mandate holds the last change');
    },
  }),
  race({
    name: "agencies: 19 of an agency's calls race the revocation of its mandate: none succeeds after it commits",
    setup: async ({ t }) => mandated(t, ['customers.write', 'customers.read']),
    fire: ({ t }, { agency, client, mandateId }, i) => i === 10
      ? t.api(client.testKey, 'POST', `/api/v1/agency-mandates/${mandateId}/revoke`)
      : t.api(agency.testKey, 'POST', '/api/v1/customers', { name: `Race ${i}` }, { 'motu-account': client.id }),
    invariant: async ({ t }, { agency, client }, answers) => {
      const calls = answers.filter((_, i) => i !== 10);
      assert.equal(answers[10]!.status, 200, JSON.stringify(answers[10]!.body));
      for (const a of calls) assert.ok(a.status === 201 || a.body.code === 'MANDATE_REVOKED', `${a.status} ${JSON.stringify(a.body)}`);
      const revokedAt = answers[10]!.body.revokedAt as string;
      const made = succeeded(calls).map((a) => a.body.id as string);
      // Every customer the agency made exists, and was made no later than the revocation committed.
      const rows = await t.db.kysely.selectFrom('customers').select(['id', 'created_at']).where('merchant_id', '=', client.id).execute();
      assert.deepEqual(rows.map((r) => r.id).sort(), [...made].sort());
      for (const r of rows) assert.ok(r.created_at <= revokedAt, `${r.id} made at ${r.created_at}, after the revocation at ${revokedAt}`);
      assert.equal(await countEvents(t, 'agency.mandate.revoked', { data: { agencyId: agency.id } }), 1);
      const after = await t.api(agency.testKey, 'POST', '/api/v1/customers', { name: 'After' }, { 'motu-account': client.id });
      assert.equal(after.body.code, 'MANDATE_REVOKED');
    },
  }),
];
