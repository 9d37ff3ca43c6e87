// The claim and record stages of the delivery worker on the real database (on PostgreSQL each is one statement):
// a batch of attempts recorded together keeps each attempt's own status, answer and error, and writes nothing for an
// attempt whose claim was lost; a claim keeps the per-target bound, the due order and endpoints out of service; a
// stale claim of a stopped worker is retaken within a second of its lease's end, its attempt recorded as lost.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { parseConfig, type Config } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { claimDue, STALE_CHECK_MS } from '../src/events/delivery/claim.js';
import type { Claimed, DeliveryContext, Finished } from '../src/events/delivery/context.js';
import { recordOutcomes } from '../src/events/delivery/record.js';
import { recordEvent } from '../src/events/outbox.js';
import { payloads } from '../src/events/payloads.js';
import type { SendResult } from '../src/events/transport.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { WebhooksService } from '../src/modules/webhooks/webhooks.service.js';
import { ManualClock } from '../src/shared/clock.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { customerData } from './support/factories.js';
import { eachDatabase, freshDatabase, type TestDatabase } from './support/harness.js';

eachDatabase('webhook delivery: claim and record', (dialect) => {
  let database: TestDatabase;
  let db: Database;
  let config: Config;
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  const warnings: string[] = [];
  const logger = { info() {}, warn: (_: object, msg?: string) => void warnings.push(msg ?? ''), error() {} };
  let merchantId: string;
  let n = 0;

  before(async () => {
    database = await freshDatabase(dialect);
    db = database.db;
    config = parseConfig({ MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent', MOTU_WEBHOOK_RETRY_SCHEDULE: '60,120,180,240,300' });
    merchantId = (await new MerchantsService(db, clock, secretBoxFor(config)).createMerchant({ name: 'Claim' })).id;
  });
  after(() => database.drop());

  const context = (workerId: string, perTarget = 16): DeliveryContext => ({
    db, clock, logger, config, schedule: config.webhookRetrySchedule, perTarget, leaseMs: 15_000, workerId,
  });
  async function endpoint(path: string): Promise<string> {
    const ep = await new WebhooksService(config, db, clock).createEndpoint({ merchantId, mode: 'test' }, { url: `http://127.0.0.1:9/${path}`, events: ['*'] });
    return ep.id;
  }
  /** Takes every current endpoint out of service but `keep` (so the events below go to those only). */
  async function only(keep: string[]) {
    await db.kysely.updateTable('webhook_endpoints').set({ enabled: 0 }).where('merchant_id', '=', merchantId).where('id', 'not in', keep).execute();
    await db.kysely.updateTable('webhook_endpoints').set({ enabled: 1 }).where('id', 'in', keep).execute();
  }
  async function events(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      await db.transaction((trx) => recordEvent(trx, { merchantId, mode: 'test', at: clock.now(), ...payloads.customerCreated(customerData(`cus_${n++}`, 'c')) }));
    }
  }
  const delivery = (id: string) => db.kysely.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const attemptsOf = (id: string) => db.kysely.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).orderBy('attempt').execute();
  const result = (statusCode: number | null, excerpt: string | null, error: string | null, latencyMs: number): SendResult => ({ statusCode, excerpt, error, latencyMs });
  const finished = (c: Claimed, r: SendResult, startedMs: number): Finished => ({ c, result: r, started: new Date(clock.now().getTime() - startedMs), done() {} });
  /** Everything due claimed and answered 2xx, so that each test starts from an empty queue. */
  async function settle(ctx: DeliveryContext) {
    for (;;) {
      const { claimed } = await claimDue(ctx, new Map(), 500);
      if (claimed.length === 0) return;
      await recordOutcomes(ctx, claimed.map((c) => finished(c, result(204, null, null, 1), 1)));
    }
  }

  it('a batch recorded together keeps each attempt its own status, answer and error, and writes nothing for a lost claim', async () => {
    const [ok, failing, last] = [await endpoint('ok'), await endpoint('failing'), await endpoint('last')];
    await only([ok, failing, last]);
    await events(2);
    // `last`'s deliveries are at their last retry: a failure now abandons them and takes the endpoint out of service.
    await db.kysely.updateTable('webhook_deliveries').set({ attempt_count: 5 }).where('endpoint_id', '=', last).execute();
    const ctx = context('w1');
    const first = await claimDue(ctx, new Map(), 100);
    assert.equal(first.claimed.length, 6);
    const of = (target: string) => first.claimed.filter((c) => c.row.endpoint_id === target);
    const [ok1, ok2] = of(ok);
    const [f1, f2] = of(failing);
    const [l1, l2] = of(last);
    // Another worker took l2 over meanwhile (its claim token changed): its outcome must not be written.
    await db.kysely.updateTable('webhook_deliveries').set({ claim_token: 'someone-else' }).where('id', '=', l2!.row.id).execute();
    clock.advance(1_000);
    await recordOutcomes(ctx, [
      finished(ok1!, result(204, null, null, 12), 12),
      finished(f1!, result(500, 'internal error: try later', null, 40), 40),
      finished(ok2!, result(200, 'thanks "quoted" {braces} \\ and é', null, 7), 7),
      finished(f2!, result(null, null, 'connect ECONNREFUSED 127.0.0.1:9', 3), 3),
      finished(l1!, result(503, 'down', null, 25), 25),
      finished(l2!, result(204, null, null, 5), 5),
    ]);
    const nowIso = clock.now().toISOString();
    const retryAt = new Date(clock.now().getTime() + 60_000).toISOString();

    for (const [c, excerpt, code] of [[ok1!, null, 204], [ok2!, 'thanks "quoted" {braces} \\ and é', 200]] as const) {
      const d = await delivery(c.row.id);
      assert.deepEqual([d.status, d.attempt_count, d.last_status_code, d.last_error, d.claim_token, d.lease_until, d.updated_at], ['succeeded', 1, code, null, null, null, nowIso]);
      const a = await attemptsOf(c.row.id);
      assert.deepEqual(a.map((x) => [x.attempt, x.status_code, x.succeeded, x.response_excerpt, x.error, x.event_id]), [[1, code, 1, excerpt, null, c.row.event_id]]);
    }
    const d1 = await delivery(f1!.row.id);
    assert.deepEqual([d1.status, d1.attempt_count, d1.last_status_code, d1.last_error, d1.next_attempt_at, d1.claim_token], ['pending', 1, 500, 'HTTP 500', retryAt, null]);
    assert.deepEqual((await attemptsOf(f1!.row.id)).map((x) => [x.status_code, x.succeeded, x.response_excerpt, x.error, x.latency_ms]), [[500, 0, 'internal error: try later', 'HTTP 500', 40]]);
    const d2 = await delivery(f2!.row.id);
    assert.deepEqual([d2.status, d2.last_status_code, d2.last_error, d2.next_attempt_at], ['pending', null, 'connect ECONNREFUSED 127.0.0.1:9', retryAt]);
    const a2 = await attemptsOf(f2!.row.id);
    assert.deepEqual(a2.map((x) => [x.status_code, x.succeeded, x.response_excerpt, x.error, x.latency_ms, x.started_at]), [[null, 0, null, 'connect ECONNREFUSED 127.0.0.1:9', 3, new Date(clock.now().getTime() - 3).toISOString()]]);
    // The last retry failed: abandoned, and the endpoint out of service.
    const dl = await delivery(l1!.row.id);
    assert.deepEqual([dl.status, dl.attempt_count, dl.last_status_code, dl.last_error], ['abandoned', 6, 503, 'HTTP 503']);
    assert.deepEqual((await attemptsOf(l1!.row.id)).map((x) => [x.attempt, x.status_code, x.response_excerpt]), [[6, 503, 'down']]);
    const eps = await db.kysely.selectFrom('webhook_endpoints').select(['id', 'enabled', 'disabled_reason']).where('id', 'in', [ok, failing, last]).execute();
    assert.deepEqual(Object.fromEntries(eps.map((e) => [e.id, [e.enabled, e.disabled_reason]])), { [ok]: [1, null], [failing]: [1, null], [last]: [0, 'failing'] });
    // The lost claim: untouched, no attempt, and a warning.
    const lost = await delivery(l2!.row.id);
    assert.deepEqual([lost.status, lost.attempt_count, lost.claim_token], ['sending', 5, 'someone-else']);
    assert.deepEqual(await attemptsOf(l2!.row.id), []);
    assert.ok(warnings.includes('webhook claim lost before the attempt was recorded'));
    await db.kysely.updateTable('webhook_deliveries').set({ status: 'abandoned', claim_token: null }).where('id', '=', l2!.row.id).execute();
    clock.advance(60_000);
    await settle(ctx);
  });

  it('a claim takes rows in due order within each target\'s free slots, none of a saturated target or of one out of service', async () => {
    const [a, b, off] = [await endpoint('a'), await endpoint('b'), await endpoint('off')];
    await only([a, b, off]);
    await events(5);
    await db.kysely.updateTable('webhook_endpoints').set({ enabled: 0 }).where('id', '=', off).execute();
    const ctx = context('w2', 4);
    await claimDue(ctx, new Map(), 0); // the first claim of a worker also looks for stale claims; the next ones below do not
    // Target a has 2 sends in flight (2 free slots), b is saturated.
    const { claimed, more } = await claimDue(ctx, new Map([[a, 2], [b, 4]]), 100);
    const expected = await db.kysely.selectFrom('webhook_deliveries').select(['id']).where('endpoint_id', '=', a).orderBy('event_seq').limit(2).execute();
    assert.deepEqual(claimed.map((c) => c.row.id), expected.map((r) => r.id));
    assert.equal(more, false);
    for (const c of claimed) {
      assert.equal(c.row.status, 'sending');
      assert.match(c.row.claim_token!, /^w2:/);
      const event = await db.kysely.selectFrom('webhook_events').select('body').where('id', '=', c.row.event_id).executeTakeFirstOrThrow();
      assert.equal(c.body.toString('utf8'), event.body);
    }
    // A full window all claimed says there may be more.
    const next = await claimDue(ctx, new Map(), 3);
    assert.deepEqual([next.claimed.length, next.more], [3, true]);
    assert.ok(next.claimed.every((c) => c.row.endpoint_id !== off));
    const rest = await claimDue(ctx, new Map(), 100);
    assert.equal(rest.claimed.length, 5); // the ten of a and b, less the two and the three above
    assert.ok(rest.claimed.every((c) => c.row.endpoint_id !== off));
    await recordOutcomes(ctx, [...claimed, ...next.claimed, ...rest.claimed].map((c) => finished(c, result(204, null, null, 1), 1)));
    await db.kysely.updateTable('webhook_deliveries').set({ status: 'abandoned' }).where('endpoint_id', '=', off).execute();
  });

  it('a stale claim is retaken within a second of its lease\'s end, its attempt recorded as lost', async () => {
    const ep = await endpoint('stale');
    await only([ep]);
    await events(1);
    const stopped = context('stopped');
    const [c] = (await claimDue(stopped, new Map(), 10)).claimed;
    assert.ok(c);
    const worker = context('w3');
    assert.equal((await claimDue(worker, new Map(), 10)).claimed.length, 0); // leased to the stopped worker
    // The lease runs out just after this worker's look: within the second, its claims take pending rows only.
    clock.advance(STALE_CHECK_MS - 1);
    await db.kysely.updateTable('webhook_deliveries').set({ lease_until: new Date(clock.now().getTime() - 1).toISOString() }).where('id', '=', c.row.id).execute();
    assert.equal((await claimDue(worker, new Map(), 10)).claimed.length, 0);
    clock.advance(1);
    const retaken = (await claimDue(worker, new Map(), 10)).claimed;
    assert.deepEqual(retaken.map((r) => [r.row.id, r.row.attempt_count]), [[c.row.id, 1]]);
    assert.match(retaken[0]!.row.claim_token!, /^w3:/);
    const lost = await attemptsOf(c.row.id);
    assert.deepEqual(lost.map((a) => [a.attempt, a.succeeded, a.status_code]), [[1, 0, null]]);
    assert.match(lost[0]!.error!, /worker stopped/);
    // The stopped worker's late record finds its claim gone; the new one's is written.
    await recordOutcomes(stopped, [finished(c, result(204, null, null, 1), 1)]);
    await recordOutcomes(worker, [finished(retaken[0]!, result(204, null, null, 1), 1)]);
    const d = await delivery(c.row.id);
    assert.deepEqual([d.status, d.attempt_count], ['succeeded', 2]);
    assert.deepEqual((await attemptsOf(c.row.id)).map((a) => [a.attempt, a.succeeded]), [[1, 0], [2, 1]]);
  });
});
