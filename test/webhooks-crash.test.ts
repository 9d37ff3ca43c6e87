// Worker processes as operators run them: killed with SIGKILL mid-delivery and restarted, and (on PostgreSQL)
// two of them sharing one queue. Child processes run `node --import tsx src/start/worker-process.ts`.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, it } from 'node:test';
import { recordEvent } from '../src/events/outbox.js';
import { payloads } from '../src/events/payloads.js';
import { ADMIN_TOKEN, eachDatabase, type TestApp } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createMerchant, customerData, type MerchantFixture } from './support/factories.js';
import type { Receiver } from './support/receiver.js';
import { eventually, sleep } from './support/wait.js';

function startWorkerProcess(t: TestApp): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/start/worker-process.ts'], {
    env: {
      ...process.env,
      MOTU_DATA_DIR: t.dataDir,
      DATABASE_URL: t.databaseUrl ?? '',
      MOTU_ADMIN_TOKEN: ADMIN_TOKEN,
      MOTU_SEED_DEMO: 'false',
      MOTU_WEBHOOK_TIMEOUT_MS: '1000',
      MOTU_WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

async function commitEvents(t: TestApp, m: MerchantFixture, count: number): Promise<void> {
  for (let i = 0; i < count; i += 100) {
    await t.db.transaction(async (trx) => {
      for (let j = i; j < Math.min(count, i + 100); j++) {
        await recordEvent(trx, { merchantId: m.id, mode: 'test', ...payloads.customerCreated(customerData(`cus_bulk${j}`, `n${j}`)) });
      }
    });
  }
}

const distinctIds = (rx: Receiver) => new Set(rx.received.map((r) => r.body.id)).size;

eachDatabase('webhook workers as processes', (dialect) => {
  const children: ChildProcess[] = [];
  // Registered before the app's own `after`, so the processes are gone before their database is dropped.
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(children.map(exited));
  });
  const { t, rx } = withApp(dialect, { receiver: true });

  it('loses no event when a worker is killed with SIGKILL while delivering 1,000, once restarted', { timeout: 120_000 }, async () => {
    const m = await createMerchant(t);
    rx.on('/crash', () => ({ status: 200, delayMs: 3 }));
    const ep = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/crash'), events: ['*'] });
    assert.equal(ep.status, 201);
    await commitEvents(t, m, 1000);

    const first = startWorkerProcess(t);
    children.push(first);
    await rx.waitFor(() => rx.for('/crash').length >= 150, 60_000, 'the first deliveries');
    first.kill('SIGKILL');
    await exited(first);
    const atKill = distinctIds(rx);
    assert.ok(atKill < 1000, `the worker was killed mid-way (${atKill} delivered)`);

    const second = startWorkerProcess(t);
    children.push(second);
    await rx.waitFor(() => distinctIds(rx) === 1000, 90_000, 'all 1,000 events after the restart');
    // The sends the killed worker had in flight may all have arrived already: their claims are retaken when
    // their lease ends (timeout + 5 s), recorded as lost attempts, and sent again.
    const unfinished = () =>
      t.db.kysely.selectFrom('webhook_deliveries').select(['id', 'attempt_count']).where('merchant_id', '=', m.id).where('status', '!=', 'succeeded').execute();
    await eventually('every delivery recorded as succeeded', async () => (await unfinished()).length === 0, 30_000, 100);
    second.kill('SIGTERM');
    await exited(second);

    assert.equal((await unfinished()).length, 0, 'every delivery is recorded as succeeded');
    const lost = await t.db.kysely
      .selectFrom('webhook_attempts')
      .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
      .select(['webhook_attempts.attempt', 'webhook_attempts.error', 'webhook_deliveries.attempt_count'])
      .where('webhook_deliveries.merchant_id', '=', m.id)
      .where('webhook_attempts.succeeded', '=', 0)
      .execute();
    // What the killed worker had in flight is recorded as a lost attempt, then the retake succeeded.
    assert.ok(lost.length <= 128, `${lost.length} lost attempts`);
    for (const a of lost) {
      assert.equal(a.attempt, 1);
      assert.equal(a.attempt_count, 2);
      assert.match(a.error!, /worker stopped during the attempt/);
    }
  });

  it('a receiver that hangs ends out of service even when workers are killed while its attempts are in flight', { timeout: 120_000 }, async () => {
    const m = await createMerchant(t, 'Hangs under kills');
    rx.on('/hangs-kills', () => ({ status: 200, hang: true }));
    const ep = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/hangs-kills'), events: ['*'] });
    assert.equal(ep.status, 201);
    await commitEvents(t, m, 1);
    // Twice: the worker is killed while an attempt hangs (before its 1 s timeout), so that attempt is never
    // answered nor recorded by it; the next worker retakes the claim once its lease ends.
    for (let k = 1; k <= 2; k++) {
      const w = startWorkerProcess(t);
      children.push(w);
      await rx.waitFor(() => rx.for('/hangs-kills').length >= k, 30_000, `attempt ${k}`);
      w.kill('SIGKILL');
      await exited(w);
    }
    const last = startWorkerProcess(t);
    children.push(last);
    let endpoint: any;
    const disabled = async () => {
      endpoint = (await t.api(m.testKey, 'GET', `/api/v1/webhook-endpoints/${ep.body.id}`)).body;
      return endpoint.enabled === false;
    };
    await eventually(() => `the hanging endpoint out of service, last read ${JSON.stringify(endpoint)}`, disabled, 60_000, 200);
    last.kill('SIGTERM');
    await exited(last);
    assert.equal(endpoint.enabled, false, 'the hanging endpoint is out of service');
    assert.equal(endpoint.disabledReason, 'failing');
    const attempts = await t.db.kysely
      .selectFrom('webhook_attempts')
      .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
      .select(['webhook_attempts.attempt', 'webhook_attempts.error'])
      .where('webhook_deliveries.merchant_id', '=', m.id)
      .orderBy('webhook_attempts.attempt')
      .execute();
    assert.equal(attempts.length, 6, JSON.stringify(attempts));
    assert.deepEqual(attempts.map((a) => a.attempt), [1, 2, 3, 4, 5, 6]);
    // The two killed attempts are recorded as lost, the others as timeouts.
    assert.equal(attempts.filter((a) => /worker stopped during the attempt/.test(a.error!)).length, 2);
    assert.equal(attempts.filter((a) => /timed out after 1000 ms/.test(a.error!)).length, 4);
    assert.equal(rx.for('/hangs-kills').length, 6);
  });

  it('SIGTERM lets the sends in flight finish and records them before the process exits', { timeout: 60_000 }, async () => {
    const m = await createMerchant(t, 'Graceful');
    rx.on('/graceful', () => ({ status: 200, delayMs: 600 }));
    const ep = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/graceful'), events: ['*'] });
    assert.equal(ep.status, 201);
    const worker = startWorkerProcess(t);
    children.push(worker);
    await commitEvents(t, m, 5);
    // Five sends in flight (each answered after 600 ms): stop the worker now.
    await rx.waitFor(() => rx.for('/graceful').length === 5, 30_000, 'five sends in flight');
    const signalled = Date.now();
    worker.kill('SIGTERM');
    await exited(worker);
    assert.equal(worker.exitCode, 0);
    assert.ok(Date.now() - signalled >= 300, 'the process waited for the answers');
    const rows = await t.db.kysely
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempt_count', 'claim_token'])
      .where('merchant_id', '=', m.id)
      .execute();
    assert.equal(rows.length, 5);
    for (const r of rows) assert.deepEqual(r, { status: 'succeeded', attempt_count: 1, claim_token: null });
    assert.equal(rx.for('/graceful').length, 5, 'nothing sent twice');
  });

  if (dialect === 'postgres') {
    it('two worker processes deliver 2,000 events with no attempt sent twice', { timeout: 120_000 }, async () => {
      const m = await createMerchant(t, 'Two workers');
      const ep = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: rx.url('/pair'), events: ['*'] });
      assert.equal(ep.status, 201);
      const a = startWorkerProcess(t);
      const b = startWorkerProcess(t);
      children.push(a, b);
      await sleep(1500);
      await commitEvents(t, m, 2000);
      await rx.waitFor(() => new Set(rx.for('/pair').map((r) => r.body.id)).size === 2000, 90_000, '2,000 events');
      await sleep(500);
      a.kill('SIGTERM');
      b.kill('SIGTERM');
      await Promise.all([exited(a), exited(b)]);
      assert.equal(rx.for('/pair').length, 2000, 'each event received exactly once');
      const attempts = await t.db.kysely
        .selectFrom('webhook_attempts')
        .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
        .select(['webhook_attempts.attempt'])
        .where('webhook_deliveries.merchant_id', '=', m.id)
        .execute();
      assert.equal(attempts.length, 2000);
      assert.ok(attempts.every((x) => x.attempt === 1));
    });
  }
});
