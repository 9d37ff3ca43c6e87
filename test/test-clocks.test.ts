// Test clocks through HTTP on every database: create, read, list and advance (forward only, not while advancing); a
// live key refused on every test helper; a customer on a clock, whose payments and sessions live at the clock's time:
// they hold still while real time passes, and advancing the clock runs their expiry, authorization expiry and
// settlement in time order, with the events and balance the merchant would see.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { paymentEvents } from './support/events.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paySession } from './support/payments.js';
import { paymentSchedule } from './support/schedule.js';

const DAY = 86_400_000;

eachDatabase('test clocks', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now', env: { MOTU_TEST_SETTLEMENT_DELAY: '3600' } });
  const api = (method: string, url: string, body?: unknown, key = m.testKey) => t.api(key, method, url, body);
  const tick = () => paymentSchedule(t, clock).tick();
  /** A time the clock starts at: ten days before the real time, so anything that read the real time would be overdue. */
  let start: Date;

  const newClock = async (name?: string) => {
    const res = await api('POST', '/api/v1/test-helpers/test-clocks', { frozenTime: start.toISOString(), ...(name ? { name } : {}) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { id: string; frozenTime: string; status: string };
  };
  const advance = async (id: string, to: Date) => {
    const res = await api('POST', `/api/v1/test-helpers/test-clocks/${id}/advance`, { frozenTime: to.toISOString() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'advancing');
    const ran = await tick();
    assert.ok(ran.testClocksReady >= 1);
    const after = (await api('GET', `/api/v1/test-helpers/test-clocks/${id}`)).body;
    assert.equal(after.status, 'ready');
    assert.equal(after.frozenTime, to.toISOString());
  };
  const customerOn = async (clockId: string) => {
    const res = await api('POST', '/api/v1/customers', { name: 'Clocked', email: `clocked-${clockId}@example.com`, testClockId: clockId });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.testClockId, clockId);
    return res.body.id as string;
  };
  const payment = async (id: string) => (await api('GET', `/api/v1/payments/${id}`)).body;

  before(() => {
    start = new Date(Math.floor((clock.now().getTime() - 10 * DAY) / 1000) * 1000);
  });

  it('creates, reads and lists clocks; bad input is a 400 that writes nothing', async () => {
    const created = await newClock('Renewals');
    assert.match(created.id, /^clk_/);
    assert.deepEqual({ ...created, createdAt: undefined }, {
      id: created.id, name: 'Renewals', frozenTime: start.toISOString(), status: 'ready', advancingTo: null, createdAt: undefined,
    });
    assert.deepEqual((await api('GET', `/api/v1/test-helpers/test-clocks/${created.id}`)).body.frozenTime, start.toISOString());
    const before = (await api('GET', '/api/v1/test-helpers/test-clocks?limit=100')).body.data.length;
    for (const body of [{}, { frozenTime: 'tomorrow' }, { frozenTime: '1999-12-31T23:59:59Z' }, { frozenTime: start.toISOString(), extra: 1 }]) {
      const res = await api('POST', '/api/v1/test-helpers/test-clocks', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    assert.equal((await api('GET', '/api/v1/test-helpers/test-clocks?limit=100')).body.data.length, before);
  });

  it('a live key gets 403 PERMISSION_DENIED on every test helper; another merchant gets 404', async () => {
    const own = await newClock();
    for (const [method, url, body] of [
      ['POST', '/api/v1/test-helpers/test-clocks', { frozenTime: start.toISOString() }],
      ['GET', '/api/v1/test-helpers/test-clocks', undefined],
      ['GET', `/api/v1/test-helpers/test-clocks/${own.id}`, undefined],
      ['POST', `/api/v1/test-helpers/test-clocks/${own.id}/advance`, { frozenTime: new Date().toISOString() }],
      ['POST', '/api/v1/test-helpers/payment-methods/pm_x/invalidate', { reason: 'disabled' }],
    ] as const) {
      const res = await api(method, url, body, m.liveKey);
      assert.equal(res.status, 403, `${method} ${url}`);
      assert.equal(res.body.code, 'PERMISSION_DENIED');
    }
    const other = await createMerchant(t, 'Other clocks');
    assert.equal((await api('GET', `/api/v1/test-helpers/test-clocks/${own.id}`, undefined, other.testKey)).status, 404);
    assert.equal((await api('POST', `/api/v1/test-helpers/test-clocks/${own.id}/advance`, { frozenTime: new Date().toISOString() }, other.testKey)).status, 404);
    const foreign = await api('POST', '/api/v1/customers', { testClockId: own.id }, other.testKey);
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.fields[0].field, 'testClockId');
    const live = await api('POST', '/api/v1/customers', { testClockId: own.id }, m.liveKey);
    assert.equal(live.status, 400);
    assert.equal((await api('GET', '/api/v1/customers?limit=100', undefined, m.liveKey)).body.data.length, 0, 'nothing written');
  });

  it('moves forward only, and not while advancing: 422 CLOCK_NOT_ADVANCEABLE', async () => {
    const c = await newClock();
    for (const to of [start, new Date(start.getTime() - 1000)]) {
      const res = await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime: to.toISOString() });
      assert.equal(res.status, 422);
      assert.equal(res.body.code, 'CLOCK_NOT_ADVANCEABLE');
    }
    const first = await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime: new Date(start.getTime() + DAY).toISOString() });
    assert.equal(first.status, 200);
    assert.equal(first.body.advancingTo, new Date(start.getTime() + DAY).toISOString());
    const again = await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime: new Date(start.getTime() + 2 * DAY).toISOString() });
    assert.equal(again.status, 422);
    assert.equal(again.body.code, 'CLOCK_NOT_ADVANCEABLE');
    await tick();
    assert.equal((await api('GET', `/api/v1/test-helpers/test-clocks/${c.id}`)).body.status, 'ready');
  });

  it("a customer's session lives at the clock's time: real time passing does not expire it, the clock passing expiresAt does", async () => {
    const c = await newClock();
    const customerId = await customerOn(c.id);
    const session = await createSession(t, m.testKey, { expiresIn: 3600, extra: { customerId, email: undefined, externalId: undefined } });
    const created = await payment(session.paymentId);
    assert.equal(created.createdAt, start.toISOString(), 'dated by the clock');
    assert.equal(created.expiresAt, new Date(start.getTime() + 3600_000).toISOString());
    // Ten days of real time are past its expiresAt: a session on no clock would expire at the next tick; this one holds.
    await tick();
    assert.equal((await payment(session.paymentId)).status, 'pending');
    await advance(c.id, new Date(start.getTime() + 3599_000));
    assert.equal((await payment(session.paymentId)).status, 'pending', 'one second before expiresAt');
    await advance(c.id, new Date(start.getTime() + 2 * 3600_000));
    assert.equal((await payment(session.paymentId)).status, 'expired');
    assert.deepEqual((await paymentEvents(t, session.paymentId)).map((e) => e.type), ['payment.expired']);
  });

  it('advancing runs every rule in time order: an authorization expires 7 days after it was given, a capture settles an hour after it was made', async () => {
    const c = await newClock();
    const customerId = await customerOn(c.id);
    const manual = await createSession(t, m.testKey, { captureMode: 'MANUAL', extra: { customerId, email: undefined, externalId: undefined } });
    await paySession(t, manual.sessionId);
    const auto = await createSession(t, m.testKey, { amount: 5000, extra: { customerId, email: undefined, externalId: undefined } });
    await paySession(t, auto.sessionId);
    const captured = await payment(auto.paymentId);
    assert.equal(captured.status, 'captured');
    assert.equal((await payment(manual.paymentId)).status, 'transit');
    // Real time is ten days past both: neither the real-time expiry nor the settlement report touches them.
    clock.advance(2 * 3600_000);
    await tick();
    assert.equal((await payment(manual.paymentId)).status, 'transit');
    assert.equal((await payment(auto.paymentId)).settled, false);

    await advance(c.id, new Date(start.getTime() + 8 * DAY));
    assert.equal((await payment(manual.paymentId)).status, 'expired');
    const settled = await payment(auto.paymentId);
    assert.equal(settled.settled, true);
    const types = (await paymentEvents(t, auto.paymentId)).map((e) => e.type);
    assert.deepEqual(types, ['payment.authorized', 'payment.captured', 'payment.settled']);
    const rows = await t.db.kysely.selectFrom('payments').select(['id', 'authorized_at', 'captured_at', 'settled_at'])
      .where('id', 'in', [manual.paymentId, auto.paymentId]).execute();
    const auto_ = rows.find((r) => r.id === auto.paymentId)!;
    assert.equal(auto_.captured_at, start.toISOString(), 'captured at the clock time');
    assert.equal(auto_.settled_at, new Date(start.getTime() + 3600_000).toISOString(), 'settled by the clock, one delay after');
    assert.equal(rows.find((r) => r.id === manual.paymentId)!.authorized_at, start.toISOString());
  });

  it('a clock advanced a year with nothing on it is ready at once', async () => {
    const c = await newClock();
    await advance(c.id, new Date(start.getTime() + 365 * DAY));
  });
});
