// Races on a card link's attempts: 20 cards submitted at once never send more than MOTU_MAX_CARD_ATTEMPTS cards to the
// acquirer, and never save two cards. A table of {name, setup, fire, invariant} rows, run on every database (the
// race that matters is PostgreSQL's, with a pool of connections; SQLite's single writer serializes them anyway).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCustomer } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { tokenize } from './support/payments.js';
import { CARDS } from './support/cards.js';
import type { TestApp } from './support/harness.js';

const MAX = 3;
const PARALLEL = 20;

interface Ctx { t: TestApp; key: string }
interface Setup { linkId: string; sessionId: string; customerId: string; tokens: string[] }
interface Answer { status: number; body: { status?: string; code?: string } }
interface Race {
  name: string;
  setup: (ctx: Ctx) => Promise<Setup>;
  fire: (ctx: Ctx, s: Setup) => Promise<Answer[]>;
  invariant: (ctx: Ctx, s: Setup, answers: Answer[]) => Promise<void>;
}

async function linkWithTokens({ t, key }: Ctx, card: string): Promise<Setup> {
  const customerId = await createCustomer(t, key);
  const res = await t.api(key, 'POST', `/api/v1/customers/${customerId}/card-links`, {});
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const tokens: string[] = [];
  for (let i = 0; i < PARALLEL; i++) tokens.push(await tokenize(t, res.body.sessionId, card));
  return { linkId: res.body.id, sessionId: res.body.sessionId, customerId, tokens };
}

const submitAll = ({ t }: Ctx, s: Setup) =>
  Promise.all(s.tokens.map((token) => t.api(undefined, 'POST', `/api/v1/sdk/sessions/${s.sessionId}/submit`, { token }) as Promise<Answer>));

/** The cards the acquirer was asked to verify: the link's tokens it consumed. */
async function cardsSent({ t }: Ctx, s: Setup): Promise<number> {
  return (await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('id', 'in', s.tokens).where('used_at', 'is not', null).execute()).length;
}

const RACES: Race[] = [
  {
    name: `${PARALLEL} declined cards at once: exactly ${MAX} reach the acquirer and are answered refused, the link ends failed, the rest get 429 or 410`,
    setup: (ctx) => linkWithTokens(ctx, CARDS.declined),
    fire: submitAll,
    invariant: async (ctx, s, answers) => {
      assert.equal(await cardsSent(ctx, s), MAX, 'cards sent to the acquirer');
      assert.equal(answers.filter((a) => a.status === 200 && a.body.status === 'failed').length, MAX, 'refusals answered');
      for (const a of answers.filter((x) => x.status !== 200)) {
        assert.ok(['TOO_MANY_ATTEMPTS', 'SESSION_EXPIRED'].includes(a.body.code ?? ''), JSON.stringify(a.body));
      }
      const link = (await ctx.t.api(ctx.key, 'GET', `/api/v1/card-links/${s.linkId}`)).body;
      assert.equal(link.status, 'completed');
      assert.equal(link.outcome, 'failed');
    },
  },
  {
    name: `${PARALLEL} good cards at once: at most ${MAX} reach the acquirer, one card saved, the link completed`,
    setup: (ctx) => linkWithTokens(ctx, CARDS.visa),
    fire: submitAll,
    invariant: async (ctx, s, answers) => {
      assert.ok((await cardsSent(ctx, s)) <= MAX, `${await cardsSent(ctx, s)} cards sent`);
      assert.ok(answers.some((a) => a.status === 200 && a.body.status === 'succeeded'));
      const methods = await ctx.t.api(ctx.key, 'GET', `/api/v1/customers/${s.customerId}/payment-methods`);
      assert.equal(methods.body.data.length, 1);
      const link = (await ctx.t.api(ctx.key, 'GET', `/api/v1/card-links/${s.linkId}`)).body;
      assert.equal(link.status, 'completed');
      assert.equal(link.paymentMethodId, methods.body.data[0].id);
    },
  },
];

eachDatabase('card link races', (dialect) => {
  const { t, m } = withMerchantApp(dialect, {
    env: { MOTU_MAX_CARD_ATTEMPTS: String(MAX), MOTU_TOKENS_PER_SESSION: '100', MOTU_TOKENS_PER_MINUTE: '10000' },
  });
  for (const race of RACES) {
    test(race.name, async () => {
      const ctx = { t, key: m.testKey };
      const s = await race.setup(ctx);
      const answers = await race.fire(ctx, s);
      await race.invariant(ctx, s, answers);
    });
  }
});
