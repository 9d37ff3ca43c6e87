// Events in the order they were recorded, also within one millisecond (event ids are random: they cannot order them).
// The app's clock stands still, so every event below carries the same createdAt: only the insertion sequence (seq)
// orders them, in the history (GET /api/v1/events, across pages) and in the delivery worker's claims.
// Also: migration 0009 numbers existing events in (created_at, id) order, the order they were listed in before it.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Migrator, sql, type Migration } from 'kysely';
import { recordEvent } from '../src/events/outbox.js';
import { payloads } from '../src/events/payloads.js';
import { migrate } from '../src/db/migrate.js';
import * as m0001 from '../src/db/migrations/0001_core.js';
import * as m0002 from '../src/db/migrations/0002_payments.js';
import * as m0003 from '../src/db/migrations/0003_events.js';
import * as m0004 from '../src/db/migrations/0004_acquirer.js';
import * as m0005 from '../src/db/migrations/0005_wallet.js';
import * as m0006 from '../src/db/migrations/0006_refunds.js';
import * as m0007 from '../src/db/migrations/0007_acquirer_refunds.js';
import * as m0008 from '../src/db/migrations/0008_mail.js';
import { startWorkers, type Workers } from '../src/start/workers.js';
import { createMerchant, customerData } from './support/factories.js';
import { eachDatabase, freshDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

const silent = { info() {}, warn() {}, error() {} };

eachDatabase('events order within one millisecond', (dialect) => {
  let workers: Workers | undefined;
  // Registered before the app's own `after`: the worker stops before the app closes.
  after(async () => {
    await workers?.stop();
  });
  const clock = new ManualClock(); // never advanced
  const { t, m, rx } = withMerchantApp(dialect, { clock, receiver: true, merchantName: 'Ordre' });
  /** Customer names in the order their customer.created events were recorded. */
  const recorded: string[] = [];

  before(async () => {
    const ep = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/ordered'), events: ['customer.*'] });
    assert.equal(ep.status, 201, JSON.stringify(ep.body));
    // 1. One request after the other: each its own transaction (on SQLite, each its own savepoint of a group commit).
    for (let i = 0; i < 12; i++) {
      const name = `api-${i}`;
      const res = await t.api(m.testKey, 'POST', '/api/v1/customers', { name });
      assert.equal(res.status, 201);
      recorded.push(name);
    }
    // 2. Many events in one transaction.
    await t.db.transaction(async (trx) => {
      for (let i = 0; i < 25; i++) {
        const name = `trx-${i}`;
        await recordEvent(trx, { merchantId: m.id, mode: 'test', at: clock.now(), ...payloads.customerCreated(customerData(`cus_trx${i}`, name)) });
        recorded.push(name);
      }
    });
    // 3. Two more requests after it.
    for (let i = 0; i < 3; i++) {
      const name = `after-${i}`;
      const res = await t.api(m.testKey, 'POST', '/api/v1/customers', { name });
      assert.equal(res.status, 201);
      recorded.push(name);
    }
  });

  type Listed = { id: string; type: string; createdAt: string; data: { name: string } };
  async function page(query: string): Promise<{ data: Listed[]; hasMore: boolean }> {
    const res = await t.api(m.testKey, 'GET', `/api/v1/events?${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  }

  it('every event carries the same createdAt, and the history lists them newest first in recording order', async () => {
    const all = await page('limit=100');
    assert.equal(all.hasMore, false);
    assert.equal(all.data.length, recorded.length);
    assert.equal(new Set(all.data.map((e) => e.createdAt)).size, 1, 'the test needs one millisecond for all');
    assert.equal(all.data[0]!.createdAt, clock.now().toISOString());
    assert.deepEqual(all.data.map((e) => e.data.name).reverse(), recorded);
    // The same order for a filtered listing.
    const filtered = await page('limit=100&type=customer.*');
    assert.deepEqual(filtered.data.map((e) => e.id), all.data.map((e) => e.id));
  });

  it('cursor pagination crosses page boundaries inside the millisecond without a gap or a repeat', async () => {
    const whole = (await page('limit=100')).data.map((e) => e.id);
    for (const limit of [1, 7, 25, 39]) {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; ; pages++) {
        assert.ok(pages <= recorded.length, 'pagination does not end');
        const p = await page(`limit=${limit}${cursor ? `&startingAfter=${cursor}` : ''}`);
        assert.ok(p.data.length <= limit);
        ids.push(...p.data.map((e) => e.id));
        if (!p.hasMore) break;
        cursor = p.data.at(-1)!.id;
      }
      assert.deepEqual(ids, whole, `limit ${limit}`);
    }
  });

  it('the delivery worker sends them in recording order (one at a time to the endpoint)', { timeout: 60_000 }, async () => {
    // Started once everything is committed: its claims alone decide the order. One send in flight per target, so
    // arrival order is send order.
    workers = startWorkers(t.config, t.db, t.clock, silent, { delivery: { perTarget: 1 } });
    await rx.waitFor(() => rx.for('/ordered').length >= recorded.length, 30_000, 'every event');
    assert.deepEqual(rx.for('/ordered').map((r) => r.body.data.name), recorded);
  });

  it('concurrent requests: deliveries follow the listed order', { timeout: 60_000 }, async () => {
    const m2 = await createMerchant(t, 'Concurrent');
    await workers?.stop();
    workers = undefined;
    const ep = await t.api(m2.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/concurrent'), events: ['customer.*'] });
    assert.equal(ep.status, 201);
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.api(m2.testKey, 'POST', '/api/v1/customers', { name: `c-${i}` }).then((r) => r.status)),
    );
    assert.deepEqual(new Set(statuses), new Set([201]));
    const listed = await t.api(m2.testKey, 'GET', '/api/v1/events?limit=100');
    const order = (listed.body.data as Listed[]).map((e) => e.data.name).reverse();
    assert.equal(order.length, 40);
    workers = startWorkers(t.config, t.db, t.clock, silent, { delivery: { perTarget: 1 } });
    await rx.waitFor(() => rx.for('/concurrent').length >= 40, 30_000, 'every event');
    assert.deepEqual(rx.for('/concurrent').map((r) => r.body.data.name), order);
  });

  it('a backlog is sent without the poll: a finished send claims the rows its target\'s slots, or the process\'s, had left', { timeout: 60_000 }, async () => {
    const m3 = await createMerchant(t, 'Backlog');
    await workers?.stop();
    workers = undefined;
    const ep = await t.api(m3.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/backlog'), events: ['customer.*'] });
    assert.equal(ep.status, 201);
    let sent = 0;
    // One slot for the target, then one for the whole process: each claim but the first is woken by a send ending.
    for (const delivery of [{ perTarget: 1, concurrency: 16 }, { perTarget: 16, concurrency: 1 }]) {
      for (let i = 0; i < 8; i++) assert.equal((await t.api(m3.testKey, 'POST', '/api/v1/customers', { name: `b-${sent + i}` })).status, 201);
      sent += 8;
      workers = startWorkers(t.config, t.db, t.clock, silent, { delivery: { ...delivery, pollMs: 600_000 } });
      await rx.waitFor(() => rx.for('/backlog').length >= sent, 20_000, `the backlog, ${JSON.stringify(delivery)}`);
      await workers.stop();
      workers = undefined;
    }
    assert.deepEqual(rx.for('/backlog').map((r) => r.body.data.name), Array.from({ length: sent }, (_, i) => `b-${i}`));
  });
});

eachDatabase('events order: migration 0009 on existing events', (dialect) => {
  const before0009: Record<string, Migration> = {
    '0001_core': m0001, '0002_payments': m0002, '0003_events': m0003, '0004_acquirer': m0004,
    '0005_wallet': m0005, '0006_refunds': m0006, '0007_acquirer_refunds': m0007, '0008_mail': m0008,
  };

  it('numbers existing events in (created_at, id) order, copies it to their deliveries, and continues after them', async () => {
    const d = await freshDatabase(dialect, { migrate: false });
    try {
      const k = d.db.kysely as any;
      const old = await new Migrator({ db: k, provider: { getMigrations: async () => before0009 } }).migrateToLatest();
      assert.equal(old.error, undefined);
      await sql`insert into merchants (id, name, created_at) values ('mer_old', 'Old', '2024-01-01T00:00:00.000Z')`.execute(k);
      // Inserted out of order: the numbering follows (created_at, id), not insertion.
      const events = [
        ['whe_c', '2024-01-01T00:00:00.001Z'], ['whe_a', '2024-01-01T00:00:00.001Z'],
        ['whe_z', '2024-01-01T00:00:00.002Z'], ['whe_b', '2024-01-01T00:00:00.000Z'],
      ] as const;
      for (const [id, at] of events) {
        await k.insertInto('webhook_events').values({ id, merchant_id: 'mer_old', mode: 'test', type: 'customer.created', payment_id: null, body: '{}', created_at: at }).execute();
        await k.insertInto('webhook_deliveries').values({
          id: `del_${id}`, event_id: id, merchant_id: 'mer_old', mode: 'test', endpoint_id: null, url: 'https://shop.example/hook', target_key: 'url:x',
          status: 'succeeded', attempt_count: 1, next_attempt_at: at, claim_token: null, lease_until: null, last_status_code: 200, last_error: null,
          created_at: at, updated_at: at,
        }).execute();
      }
      assert.ok((await migrate(d.db)).includes('0009_events_order'));
      const rows = await d.db.kysely.selectFrom('webhook_events').select(['seq', 'id']).orderBy('seq').execute();
      assert.deepEqual(rows, [{ seq: 1, id: 'whe_b' }, { seq: 2, id: 'whe_a' }, { seq: 3, id: 'whe_c' }, { seq: 4, id: 'whe_z' }]);
      const deliveries = await d.db.kysely.selectFrom('webhook_deliveries').select(['event_id', 'event_seq']).orderBy('event_seq').execute();
      assert.deepEqual(deliveries.map((r) => [r.event_id, r.event_seq]), [['whe_b', 1], ['whe_a', 2], ['whe_c', 3], ['whe_z', 4]]);
      // A new event, even with an earlier time, comes after them; its deliveries get its seq.
      const fresh = await d.db.transaction((trx) =>
        recordEvent(trx, { merchantId: 'mer_old', mode: 'test', at: new Date('2020-01-01T00:00:00Z'), ...payloads.customerCreated(customerData('cus_new', 'new')) }),
      );
      const row = await d.db.kysely.selectFrom('webhook_events').select('seq').where('id', '=', fresh.id).executeTakeFirstOrThrow();
      assert.equal(row.seq, 5);
      // SQLite: the deliveries' foreign key still points at the rebuilt table and is enforced. (PostgreSQL, which
      // rebuilt nothing, drops it with migration 0063: a delivery is written by the statement that writes its event.)
      if (dialect === 'sqlite') await assert.rejects(
        d.db.kysely.insertInto('webhook_deliveries').values({
          id: 'del_orphan', event_id: 'whe_missing', event_seq: 9, merchant_id: 'mer_old', mode: 'test', endpoint_id: null, url: 'https://shop.example/hook',
          target_key: 'url:x', status: 'pending', attempt_count: 0, next_attempt_at: 'x', claim_token: null, lease_until: null, last_status_code: null,
          last_error: null, created_at: 'x', updated_at: 'x',
        }).execute(),
      );
    } finally {
      await d.drop();
    }
  });
});
