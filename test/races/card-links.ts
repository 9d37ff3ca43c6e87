// The card-link rows of the race table (test/races.test.ts, docs/reliability.md "Races"): 20 cards submitted at once
// to one card link never send more than MOTU_MAX_CARD_ATTEMPTS cards to the acquirer, and never save two cards. The
// rows run with the bound at 3 and enough tokens for 20 cards (a session's and a minute's).
import assert from 'node:assert/strict';
import { CARDS } from '../support/cards.js';
import { createCustomer } from '../support/factories.js';
import { tokenize } from '../support/payments.js';
import { race, type RaceApp, type RaceRow } from '../support/races.js';

const MAX = 3;
const PARALLEL = 20;
const BOUNDS = { MOTU_MAX_CARD_ATTEMPTS: String(MAX), MOTU_TOKENS_PER_SESSION: '100', MOTU_TOKENS_PER_MINUTE: '10000' };

interface Link { linkId: string; sessionId: string; customerId: string; tokens: string[] }

/** A card link of a new customer, and 20 tokens of `card` typed on its page beforehand. */
async function linkWithTokens({ t, m }: RaceApp, card: string): Promise<Link> {
  const customerId = await createCustomer(t, m.testKey);
  const res = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/card-links`, {});
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const tokens: string[] = [];
  for (let i = 0; i < PARALLEL; i++) tokens.push(await tokenize(t, res.body.sessionId, card));
  return { linkId: res.body.id, sessionId: res.body.sessionId, customerId, tokens };
}

const submit = ({ t }: RaceApp, s: Link, i: number) => t.api(undefined, 'POST', `/api/v1/sdk/sessions/${s.sessionId}/submit`, { token: s.tokens[i] });

/** The cards the acquirer was asked to verify: the link's tokens it consumed. */
async function cardsSent({ t }: RaceApp, s: Link): Promise<number> {
  return (await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('id', 'in', s.tokens).where('used_at', 'is not', null).execute()).length;
}

/** The card-link rows of the race table (test/races.test.ts). */
export const cardLinkRaces: RaceRow[] = [
  race({
    name: `card links: ${PARALLEL} declined cards at once: exactly ${MAX} reach the acquirer and are answered refused, the link ends failed, the rest get 429 or 410`,
    requests: PARALLEL,
    env: BOUNDS,
    setup: (app) => linkWithTokens(app, CARDS.declined),
    fire: submit,
    invariant: async (app, s, answers) => {
      assert.equal(await cardsSent(app, s), MAX, 'cards sent to the acquirer');
      assert.equal(answers.filter((a) => a.status === 200 && a.body.status === 'failed').length, MAX, 'refusals answered');
      for (const a of answers.filter((x) => x.status !== 200)) {
        assert.ok(['TOO_MANY_ATTEMPTS', 'SESSION_EXPIRED'].includes(a.body.code ?? ''), JSON.stringify(a.body));
      }
      const link = (await app.t.api(app.m.testKey, 'GET', `/api/v1/card-links/${s.linkId}`)).body;
      assert.equal(link.status, 'completed');
      assert.equal(link.outcome, 'failed');
    },
  }),
  race({
    name: `card links: ${PARALLEL} good cards at once: at most ${MAX} reach the acquirer, one card saved, the link completed`,
    requests: PARALLEL,
    env: BOUNDS,
    setup: (app) => linkWithTokens(app, CARDS.visa),
    fire: submit,
    invariant: async (app, s, answers) => {
      const sent = await cardsSent(app, s);
      assert.ok(sent >= 1 && sent <= MAX, `${sent} cards sent`);
      assert.equal(answers.filter((a) => a.status === 200 && a.body.status === 'succeeded').length, 1, 'one card answered saved');
      const methods = await app.t.api(app.m.testKey, 'GET', `/api/v1/customers/${s.customerId}/payment-methods`);
      assert.equal(methods.body.data.length, 1);
      const link = (await app.t.api(app.m.testKey, 'GET', `/api/v1/card-links/${s.linkId}`)).body;
      assert.equal(link.status, 'completed');
      assert.equal(link.paymentMethodId, methods.body.data[0].id);
    },
  }),
];
