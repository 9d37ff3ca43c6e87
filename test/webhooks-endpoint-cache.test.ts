// The endpoints an event goes to are kept in the process (src/events/endpoint-cache.ts). What a merchant changes takes
// effect from the next event: a new endpoint, another URL, other types, taken out of service, deleted; in this process
// at once, in another through the existing invalidation (PostgreSQL: NOTIFY motu_reference; SQLite: data_version). The
// worker taking an endpoint out of service is read by the statement that writes the deliveries, and sends no
// notification that would empty the caches of every process.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { openDatabase } from '../src/db/database.js';
import { recordEvent } from '../src/events/outbox.js';
import { payloads } from '../src/events/payloads.js';
import { customerData } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { fromAnotherProcess, listening, settled } from './support/reference.js';
import { eventually, sleep } from './support/wait.js';

eachDatabase('webhook endpoints kept in the process', (dialect) => {
  const { t, m } = withMerchantApp(dialect);

  /** Records a customer.created event of the merchant (test mode); its deliveries as [endpoint, url], sorted. */
  async function deliveriesOfNextEvent(): Promise<string[]> {
    const e = await t.db.transaction((trx) => recordEvent(trx, { merchantId: m.id, mode: 'test', ...payloads.customerCreated(customerData('cus_cache', 'Cache')) }));
    const rows = await t.db.kysely.selectFrom('webhook_deliveries').select(['id', 'endpoint_id', 'url']).where('event_id', '=', e.id).execute();
    const written = rows.map((r) => r.id).sort();
    // PostgreSQL writes them with the transaction's next statement, leaving out an endpoint's out of service or deleted.
    if (dialect === 'sqlite') assert.deepEqual(written, [...e.deliveryIds].sort(), 'the ids recordEvent returns are those written');
    else assert.ok(written.every((id) => e.deliveryIds.includes(id)), 'every delivery written is one recordEvent asked for');
    return rows.map((r) => `${r.endpoint_id} ${r.url}`).sort();
  }

  async function createEndpoint(url: string, events: string[]): Promise<string> {
    const res = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url, events });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id;
  }

  async function patch(id: string, body: object): Promise<void> {
    const res = await t.api(m.testKey, 'PATCH', `/api/v1/webhook-endpoints/${id}`, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  it("the merchant's changes through the API take effect from the next event", async () => {
    if (dialect === 'postgres') await listening(t); // before that nothing is cached
    assert.deepEqual(await deliveriesOfNextEvent(), []);
    const a = await createEndpoint('http://127.0.0.1:9/a', ['customer.*']);
    assert.deepEqual(await deliveriesOfNextEvent(), [`${a} http://127.0.0.1:9/a`]);
    assert.deepEqual(await deliveriesOfNextEvent(), [`${a} http://127.0.0.1:9/a`], 'read again from the cache');

    await patch(a, { url: 'http://127.0.0.1:9/a2' });
    assert.deepEqual(await deliveriesOfNextEvent(), [`${a} http://127.0.0.1:9/a2`]);

    await patch(a, { events: ['payment.*'] });
    assert.deepEqual(await deliveriesOfNextEvent(), []);
    await patch(a, { events: ['*'] });
    const b = await createEndpoint('http://127.0.0.1:9/b', ['customer.created']);
    assert.deepEqual(await deliveriesOfNextEvent(), [`${a} http://127.0.0.1:9/a2`, `${b} http://127.0.0.1:9/b`].sort());

    await patch(a, { enabled: false });
    assert.deepEqual(await deliveriesOfNextEvent(), [`${b} http://127.0.0.1:9/b`]);
    await patch(a, { enabled: true });
    assert.deepEqual(await deliveriesOfNextEvent(), [`${a} http://127.0.0.1:9/a2`, `${b} http://127.0.0.1:9/b`].sort());

    const del = await t.api(m.testKey, 'DELETE', `/api/v1/webhook-endpoints/${b}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.deepEqual(await deliveriesOfNextEvent(), [`${a} http://127.0.0.1:9/a2`]);

    // Taken out of service as the worker does at the end of the schedule (not through the API): the next event has
    // no delivery to it, though its entry is still in the cache.
    await t.db.kysely.updateTable('webhook_endpoints').set({ enabled: 0, disabled_reason: 'failing', disabled_at: new Date().toISOString() }).where('id', '=', a).execute();
    assert.deepEqual(await deliveriesOfNextEvent(), []);
    await patch(a, { enabled: true });
    assert.deepEqual(await deliveriesOfNextEvent(), [`${a} http://127.0.0.1:9/a2`]);
    await patch(a, { enabled: false });
  });

  it("another process's changes take effect from the next event once it is told", async () => {
    if (dialect === 'postgres') await listening(t);
    const c = await createEndpoint('http://127.0.0.1:9/c', ['customer.created']);
    assert.deepEqual(await deliveriesOfNextEvent(), [`${c} http://127.0.0.1:9/c`]); // kept from here

    // Another process: its own connections (SQLite: its own connection to the same file), writing the table itself,
    // so that nothing of this process is told but through the database.
    const other = openDatabase({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
    try {
      await other.kysely.updateTable('webhook_endpoints').set({ events: '["payment.*"]' }).where('id', '=', c).execute();
      await eventually('the change made by another process reaches the next event', async () => (await deliveriesOfNextEvent()).length === 0, 3000);
      const at = new Date().toISOString();
      await other.kysely.insertInto('webhook_endpoints').values({
        id: 'we_other_process', merchant_id: m.id, mode: 'test', kind: 'merchant', store_id: null, url: 'http://127.0.0.1:9/d', events: '["*"]',
        description: null, enabled: 1, disabled_reason: null, disabled_at: null, created_at: at, updated_at: at, deleted_at: null,
      }).execute();
      await eventually('an endpoint created by another process gets the next event', async () => (await deliveriesOfNextEvent()).includes('we_other_process http://127.0.0.1:9/d'), 3000);
      await other.kysely.updateTable('webhook_endpoints').set({ deleted_at: at, enabled: 0 }).where('id', '=', 'we_other_process').execute();
      assert.deepEqual(await deliveriesOfNextEvent(), [], 'a deleted endpoint never gets an event, cached or not');
      await other.kysely.updateTable('webhook_endpoints').set({ url: 'http://127.0.0.1:9/c2', events: '["*"]' }).where('id', '=', c).execute();
      await eventually('the types and URL changed by another process', async () => (await deliveriesOfNextEvent()).join() === `${c} http://127.0.0.1:9/c2`, 3000);
    } finally {
      await other.close();
    }
  });

  it("the worker's taking an endpoint out of service tells no process to empty its reference caches", async (ctx) => {
    if (dialect !== 'postgres') return ctx.skip('PostgreSQL: on SQLite every commit of another connection changes data_version');
    await listening(t);
    const e = await createEndpoint('http://127.0.0.1:9/e', ['customer.created']);
    await settled(t);
    const stamp = t.db.referenceStamp();
    const now = new Date().toISOString();
    // The worker's statement (src/events/delivery/record.ts), from another connection.
    await fromAnotherProcess(t, [`update webhook_endpoints set enabled = 0, disabled_reason = 'failing', disabled_at = $1, updated_at = $1 where id = $2`, [now, e]]);
    await sleep(300);
    assert.equal(t.db.referenceStamp(), stamp, 'no notification');
    // A change of what the cache holds does notify (the same path, so the wait above was long enough to hear one).
    await fromAnotherProcess(t, [`update webhook_endpoints set events = '["*"]' where id = $1`, [e]]);
    await eventually('the change of types is heard', () => t.db.referenceStamp() !== stamp, 3000);
  });
});
