// Retention (job `apply-retention`, docs/reliability.md "Retention"): what grows without bound is deleted once older
// than its setting, in batches: the webhook attempts of deliveries that succeeded (the delivery stays and still tells
// its status), the card tokens once used (the payment and the saved card still work), and audit rows past the legal
// period; expired idempotency keys go in batches too. Newer rows and everything else stay; a setting of 0 keeps
// everything.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseConfig } from '../src/config.js';
import { scheduledJobs } from '../src/start/workers.js';
import type { Mode } from '../src/modules/merchants/merchants.table.js';
import { eachDatabase, ManualClock, type TestApp } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createCustomer } from './support/factories.js';
import { paidPayment } from './support/payments.js';
import { saveCard } from './support/wallet.js';

const DAY = 86_400_000;
const START = new Date('2026-01-05T08:00:00Z');

test('MOTU_RETENTION_*: defaults, 0 keeps forever, a wrong value stops the start naming the variable', () => {
  assert.deepEqual({ ...parseConfig({}).retention }, { attemptsDays: 90, usedTokensHours: 24, auditDays: 3650, batchSize: 1000 });
  const off = parseConfig({ MOTU_RETENTION_ATTEMPTS_DAYS: '0', MOTU_RETENTION_USED_TOKENS_HOURS: '0', MOTU_RETENTION_AUDIT_DAYS: '0' }).retention;
  assert.deepEqual([off.attemptsDays, off.usedTokensHours, off.auditDays], [0, 0, 0]);
  assert.equal(parseConfig({ MOTU_RETENTION_BATCH: '50' }).retention.batchSize, 50);
  const bad: [string, string][] = [
    ['MOTU_RETENTION_ATTEMPTS_DAYS', '-1'], ['MOTU_RETENTION_ATTEMPTS_DAYS', '90d'], ['MOTU_RETENTION_USED_TOKENS_HOURS', '1.5'],
    ['MOTU_RETENTION_AUDIT_DAYS', 'ten years'], ['MOTU_RETENTION_AUDIT_DAYS', '36501'], ['MOTU_RETENTION_BATCH', '0'], ['MOTU_RETENTION_BATCH', 'all'],
  ];
  for (const [name, value] of bad) assert.throws(() => parseConfig({ [name]: value }), new RegExp(`Invalid configuration: ${name} `));
});

const count = async (t: TestApp, table: 'webhook_attempts' | 'webhook_deliveries' | 'webhook_events' | 'acquirer_tokens' | 'acquirer_cards' | 'audit_log' | 'idempotency_keys' | 'payments' | 'balance_transactions' | 'ledger_lines') =>
  Number((await t.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

/** An event with one delivery in `status`, made `ageDays` before now, and its `attempts` attempts (the last one the success, if any). */
async function delivery(t: TestApp, merchantId: string, clock: ManualClock, name: string, status: 'succeeded' | 'abandoned' | 'pending', ageDays: number, attempts: number) {
  const at = new Date(clock.now().getTime() - ageDays * DAY).toISOString();
  const eventId = `evt_retention_${name}`;
  const body = JSON.stringify({ id: eventId, type: 'payment.captured', createdAt: at, data: {} });
  const { seq } = await t.db.kysely.insertInto('webhook_events').values({ id: eventId, merchant_id: merchantId, mode: 'test' as Mode, type: 'payment.captured', payment_id: null, body, created_at: at })
    .returning('seq').executeTakeFirstOrThrow();
  const deliveryId = `del_retention_${name}`;
  await t.db.kysely.insertInto('webhook_deliveries').values({
    id: deliveryId, event_id: eventId, merchant_id: merchantId, mode: 'test', endpoint_id: null, url: 'https://shop.example/hook', target_key: 'url:https://shop.example/hook',
    event_seq: Number(seq), status, attempt_count: attempts, next_attempt_at: at, claim_token: null, lease_until: null,
    last_status_code: status === 'succeeded' ? 200 : 500, last_error: null, created_at: at, updated_at: at,
  }).execute();
  for (let n = 1; n <= attempts; n++) {
    const ok = status === 'succeeded' && n === attempts;
    await t.db.kysely.insertInto('webhook_attempts').values({
      id: `att_retention_${name}_${n}`, delivery_id: deliveryId, event_id: eventId, attempt: n, started_at: new Date(Date.parse(at) - (attempts - n) * 60_000).toISOString(),
      status_code: ok ? 200 : 500, latency_ms: 12, succeeded: ok ? 1 : 0, response_excerpt: ok ? 'ok' : 'boom', error: null,
    }).execute();
  }
  return eventId;
}

async function auditRows(t: TestApp, merchantId: string, clock: ManualClock, ages: Record<string, number>) {
  const userId = `usr_retention_${Math.random().toString(36).slice(2, 10)}`;
  await t.db.kysely.insertInto('users').values({
    id: userId, merchant_id: merchantId, email: `${userId}@shop.example`, role: 'owner', password_hash: null, setup_nonce: null, setup_expires_at: null,
    totp_secret: null, totp_enabled: 0, totp_last_step: null, recovery_codes: null, failed_sign_ins: 0, locked_until: null, invited_by: null,
    created_at: START.toISOString(), last_sign_in_at: null, removed_at: null,
  } as never).execute();
  for (const [id, ageDays] of Object.entries(ages)) {
    await t.db.kysely.insertInto('audit_log').values({
      id, merchant_id: merchantId, mode: 'test', user_id: userId, key_id: null, action: 'POST /api/v1/payments/:id/refund', object_id: null,
      outcome: 'succeeded', status_code: 200, created_at: new Date(clock.now().getTime() - ageDays * DAY).toISOString(),
    }).execute();
  }
}

const ids = async (t: TestApp, table: 'audit_log' | 'webhook_attempts') => (await t.db.kysely.selectFrom(table).select('id').execute()).map((r) => r.id).sort();

eachDatabase('retention', (dialect) => {
  describe('with the settings: attempts 90 days, used tokens 24 hours, audit 3650 days, batches of 2', () => {
    const clock = new ManualClock(START);
    const { t, m } = withMerchantApp(dialect, { clock, env: { MOTU_RETENTION_BATCH: '2' } });
    const job = (name: string) => {
      const found = scheduledJobs(t.db, clock, t.config).find((j) => j.name === name);
      assert.ok(found, `the worker runs ${name}`);
      return found;
    };

    test('the attempts of deliveries that succeeded more than 90 days ago go; the deliveries stay, and every other attempt', async () => {
      const old = await delivery(t, m.id, clock, 'old', 'succeeded', 91, 3);
      const oldSingle = await delivery(t, m.id, clock, 'old-single', 'succeeded', 120, 1);
      const recent = await delivery(t, m.id, clock, 'recent', 'succeeded', 89, 2);
      const abandoned = await delivery(t, m.id, clock, 'abandoned', 'abandoned', 200, 6);
      const pending = await delivery(t, m.id, clock, 'pending', 'pending', 95, 2);
      const deliveries = await count(t, 'webhook_deliveries');
      const events = await count(t, 'webhook_events');

      const result = await job('apply-retention').run(clock.now()) as { webhookAttempts: number };
      assert.equal(result.webhookAttempts, 4);
      const left = await ids(t, 'webhook_attempts');
      for (const id of ['att_retention_old_1', 'att_retention_old_2', 'att_retention_old_3', 'att_retention_old-single_1']) assert.ok(!left.includes(id), id);
      for (const id of ['att_retention_recent_1', 'att_retention_recent_2', 'att_retention_pending_2', ...[1, 2, 3, 4, 5, 6].map((n) => `att_retention_abandoned_${n}`)]) assert.ok(left.includes(id), id);
      assert.equal(await count(t, 'webhook_deliveries'), deliveries);
      assert.equal(await count(t, 'webhook_events'), events);

      // What the merchant reads: the old delivery still says it succeeded, after 3 attempts, with a 200.
      const res = await t.api(m.testKey, 'GET', `/api/v1/events/${old}/deliveries`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data.map((d: any) => [d.status, d.attemptCount, d.lastStatusCode, d.attempts.length]), [['succeeded', 3, 200, 0]]);
      assert.equal((await t.api(m.testKey, 'GET', `/api/v1/events/${oldSingle}`)).status, 200);
      const kept = await t.api(m.testKey, 'GET', `/api/v1/events/${abandoned}/deliveries`);
      assert.equal(kept.body.data[0].attempts.length, 6, 'an abandoned delivery keeps every attempt');
      assert.equal((await t.api(m.testKey, 'GET', `/api/v1/events/${recent}/deliveries`)).body.data[0].attempts.length, 2);
      assert.equal((await t.api(m.testKey, 'GET', `/api/v1/events/${pending}/deliveries`)).body.data[0].attempts.length, 2);

      // Two days later the recent one is past 90 days too.
      clock.advance(2 * DAY);
      assert.equal((await job('apply-retention').run(clock.now()) as { webhookAttempts: number }).webhookAttempts, 2);
      assert.equal((await job('apply-retention').run(clock.now()) as { webhookAttempts: number }).webhookAttempts, 0);
    });

    test('card tokens used more than 24 hours ago go; the payment still reads, the saved card still pays, unused tokens are left to purge-card-tokens', async () => {
      const paid = await paidPayment(t, m.testKey);
      const customer = await createCustomer(t, m.testKey);
      const saved = await saveCard(t, m.testKey, customer);
      const used = await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('used_at', 'is not', null).execute();
      assert.ok(used.length >= 2);
      const cards = await count(t, 'acquirer_cards');
      const payments = await count(t, 'payments');
      const ledger = await count(t, 'ledger_lines');

      clock.advance(23 * 3_600_000);
      assert.equal((await job('apply-retention').run(clock.now()) as { usedCardTokens: number }).usedCardTokens, 0);
      clock.advance(2 * 3_600_000);
      assert.equal((await job('apply-retention').run(clock.now()) as { usedCardTokens: number }).usedCardTokens, used.length);
      assert.equal(await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('used_at', 'is not', null).executeTakeFirst(), undefined);
      assert.equal(await count(t, 'acquirer_cards'), cards, 'the cards stay, with their authorizations');
      assert.equal(await count(t, 'payments'), payments);
      assert.equal(await count(t, 'ledger_lines'), ledger);

      const read = await t.api(m.testKey, 'GET', `/api/v1/payments/${paid}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.status, 'captured');
      const charge = await t.api(m.testKey, 'POST', '/api/v1/payments', {
        paymentMethodId: saved.result.paymentMethodId, order: { reference: 'AFTER-RETENTION', amount: 500, currency: 'EUR' }, notificationUrl: 'https://shop.example/n',
      });
      assert.equal(charge.status, 201, JSON.stringify(charge.body));
      assert.equal(charge.body.status, 'captured');
    });

    test('audit rows older than 3650 days go, the younger stay', async () => {
      await auditRows(t, m.id, clock, { aud_retention_11y: 4020, aud_retention_10y1d: 3651, aud_retention_12y: 4400, aud_retention_9y: 3300, aud_retention_today: 0 });
      assert.equal((await job('apply-retention').run(clock.now()) as { auditRows: number }).auditRows, 3);
      const left = await ids(t, 'audit_log');
      assert.ok(left.includes('aud_retention_9y') && left.includes('aud_retention_today'));
      for (const id of ['aud_retention_11y', 'aud_retention_10y1d', 'aud_retention_12y']) assert.ok(!left.includes(id), id);
    });

    test('idempotency keys past their 24 hours go, in batches; the others stay', async () => {
      const now = clock.now().getTime();
      const keys = [-5, -3, -2, -1, 1, 2].map((hours, i) => ({
        merchant_id: m.id, mode: 'test' as Mode, scope: 'POST /api/v1/customers', key: `retention-${i}`, request_hash: 'h', state: 'completed',
        status_code: 200, response_body: '{}', created_at: new Date(now + hours * 3_600_000 - DAY).toISOString(), expires_at: new Date(now + hours * 3_600_000).toISOString(),
      }));
      await t.db.kysely.deleteFrom('idempotency_keys').execute();
      await t.db.kysely.insertInto('idempotency_keys').values(keys as never).execute();
      assert.equal(await job('purge-idempotency-keys').run(clock.now()), 4);
      const left = (await t.db.kysely.selectFrom('idempotency_keys').select('key').execute()).map((r) => r.key).sort();
      assert.deepEqual(left, ['retention-4', 'retention-5']);
    });
  });

  describe('a setting of 0 keeps everything', () => {
    const clock = new ManualClock(START);
    const { t, m } = withMerchantApp(dialect, {
      clock, env: { MOTU_RETENTION_ATTEMPTS_DAYS: '0', MOTU_RETENTION_USED_TOKENS_HOURS: '0', MOTU_RETENTION_AUDIT_DAYS: '0' },
    });

    test('old attempts, used tokens and audit rows all stay', async () => {
      await delivery(t, m.id, clock, 'ancient', 'succeeded', 5000, 2);
      await paidPayment(t, m.testKey);
      await auditRows(t, m.id, clock, { aud_retention_ancient: 20_000 });
      clock.advance(400 * DAY);
      const before = [await count(t, 'webhook_attempts'), await count(t, 'acquirer_tokens'), await count(t, 'audit_log')];
      const job = scheduledJobs(t.db, clock, t.config).find((j) => j.name === 'apply-retention')!;
      assert.deepEqual(await job.run(clock.now()), { webhookAttempts: 0, usedCardTokens: 0, auditRows: 0 });
      assert.deepEqual([await count(t, 'webhook_attempts'), await count(t, 'acquirer_tokens'), await count(t, 'audit_log')], before);
    });
  });
});
