// Test clocks through HTTP on every database: create, read, list and advance (forward only, not while advancing); a
// live key refused on every test helper; a customer on a clock, whose payments and sessions live at the clock's time:
// they hold still while real time passes, and advancing the clock runs their expiry, authorization expiry and
// settlement in time order, with the events and balance the merchant would see. The limits that bound an advance's
// work: the clock's time range, the distance and due dates one advance covers, the customers and subscriptions a
// clock holds (one at a time and 20 at once).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { paymentEvents } from './support/events.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paySession } from './support/payments.js';
import { paymentSchedule } from './support/schedule.js';
import { saveCard } from './support/wallet.js';

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

  it('frozenTime stays within 2000-01-01 and the end of 2099: 400 VALIDATION_ERROR on frozenTime, nothing changed', async () => {
    const c = await newClock();
    const before = (await api('GET', '/api/v1/test-helpers/test-clocks?limit=100')).body.data.length;
    for (const frozenTime of ['2100-01-01T00:00:00.000Z', '9999-12-31T23:59:59.000Z', '1999-12-31T23:59:59.999Z']) {
      const created = await api('POST', '/api/v1/test-helpers/test-clocks', { frozenTime });
      assert.equal(created.status, 400, frozenTime);
      assert.equal(created.body.code, 'VALIDATION_ERROR');
      assert.equal(created.body.details.field, 'frozenTime');
      const advanced = await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime });
      assert.equal(advanced.status, 400, frozenTime);
      assert.equal(advanced.body.details.field, 'frozenTime');
    }
    assert.equal((await api('GET', '/api/v1/test-helpers/test-clocks?limit=100')).body.data.length, before);
    const same = (await api('GET', `/api/v1/test-helpers/test-clocks/${c.id}`)).body;
    assert.deepEqual([same.frozenTime, same.status], [start.toISOString(), 'ready']);
    const late = await api('POST', '/api/v1/test-helpers/test-clocks', { frozenTime: '2099-06-01T00:00:00.000Z' });
    assert.equal(late.status, 201);
    const past = await api('POST', `/api/v1/test-helpers/test-clocks/${late.body.id}/advance`, { frozenTime: '2100-01-01T00:00:00.000Z' });
    assert.equal(past.status, 400, 'never into the year 2100');
  });

  it('one advance moves a clock at most 731 days: 422 CLOCK_ADVANCE_TOO_FAR with the latest time allowed, the clock unchanged', async () => {
    const c = await newClock();
    const far = await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime: new Date(start.getTime() + 5 * 365 * DAY).toISOString() });
    assert.equal(far.status, 422);
    assert.equal(far.body.code, 'CLOCK_ADVANCE_TOO_FAR');
    assert.equal(far.body.details.latestFrozenTime, new Date(start.getTime() + 731 * DAY).toISOString());
    assert.equal(far.body.details.subscriptionId, null);
    const same = (await api('GET', `/api/v1/test-helpers/test-clocks/${c.id}`)).body;
    assert.deepEqual([same.frozenTime, same.status, same.advancingTo], [start.toISOString(), 'ready', null]);
    await advance(c.id, new Date(far.body.details.latestFrozenTime));
  });

  it('a daily subscription: one advance covers at most 31 of its due dates (five years is refused); advancing again goes on', async () => {
    const c = await newClock();
    const customerId = await customerOn(c.id);
    const saved = await saveCard(t, m.testKey, customerId);
    const sub = await api('POST', '/api/v1/subscriptions', { customerId, paymentMethodId: saved.result.paymentMethodId, amount: 500, currency: 'EUR', interval: 'day' });
    assert.equal(sub.status, 201, JSON.stringify(sub.body));
    const dueDates = async () => (await api('GET', `/api/v1/subscriptions/${sub.body.id}/due-dates?limit=100`)).body.data as unknown[];
    const atStart = (await dueDates()).length;
    const fiveYears = await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime: new Date(start.getTime() + 5 * 365 * DAY).toISOString() });
    assert.equal(fiveYears.status, 422);
    assert.equal(fiveYears.body.code, 'CLOCK_ADVANCE_TOO_FAR');
    assert.equal(fiveYears.body.details.subscriptionId, sub.body.id);
    assert.match(fiveYears.body.message, /31 due dates/);
    const latest = new Date(fiveYears.body.details.latestFrozenTime);
    assert.equal((await dueDates()).length, atStart, 'nothing ran');
    await advance(c.id, latest);
    assert.equal((await dueDates()).length, atStart + 31, 'exactly 31 due dates in one advance');
    const next = await api('POST', `/api/v1/test-helpers/test-clocks/${c.id}/advance`, { frozenTime: new Date(latest.getTime() + 40 * DAY).toISOString() });
    assert.equal(next.status, 422);
    assert.equal(next.body.details.latestFrozenTime, new Date(latest.getTime() + 31 * DAY).toISOString(), 'the next 31 from where it stands');
    await advance(c.id, new Date(latest.getTime() + 10 * DAY));
    assert.equal((await dueDates()).length, atStart + 41);
  });

  it('a clock holds at most 3 customers and 10 subscriptions: 422 CLOCK_OBJECT_LIMIT, nothing written', async () => {
    const c = await newClock();
    const customers: string[] = [];
    for (const name of ['First', 'Second', 'Third']) {
      const res = await api('POST', '/api/v1/customers', { name, testClockId: c.id });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      customers.push(res.body.id);
    }
    const count = async () => (await api('GET', '/api/v1/customers?limit=100')).body.data.length as number;
    const before = await count();
    const fourth = await api('POST', '/api/v1/customers', { name: 'Fourth', testClockId: c.id });
    assert.equal(fourth.status, 422);
    assert.equal(fourth.body.code, 'CLOCK_OBJECT_LIMIT');
    assert.deepEqual(fourth.body.details, { testClockId: c.id, kind: 'customer', limit: 3 });
    assert.equal(await count(), before, 'no fourth customer');
    for (let i = 0; i < 10; i++) {
      const res = await api('POST', '/api/v1/subscriptions', { customerId: customers[i % 3], amount: 100 + i, currency: 'EUR', interval: 'month' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const eleventh = await api('POST', '/api/v1/subscriptions', { customerId: customers[0], amount: 999, currency: 'EUR', interval: 'month' });
    assert.equal(eleventh.status, 422);
    assert.equal(eleventh.body.code, 'CLOCK_OBJECT_LIMIT');
    assert.equal(eleventh.body.details.kind, 'subscription');
    const subs = (await api('GET', '/api/v1/subscriptions?limit=100')).body.data as Array<{ customerId: string }>;
    assert.equal(subs.filter((s) => customers.includes(s.customerId)).length, 10);
    assert.equal((await api('POST', '/api/v1/customers', { name: 'Elsewhere' })).status, 201, 'a customer on no clock is not counted');
  });

  it('20 customers created on one clock at once: exactly 3 are, the others 422 CLOCK_OBJECT_LIMIT', async () => {
    const c = await newClock();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => api('POST', '/api/v1/customers', { name: `Racer ${i}`, testClockId: c.id })));
    assert.equal(answers.filter((a) => a.status === 201).length, 3, JSON.stringify(answers.map((a) => a.status)));
    assert.ok(answers.every((a) => a.status === 201 || a.body.code === 'CLOCK_OBJECT_LIMIT'));
    const all = (await api('GET', '/api/v1/customers?limit=100')).body.data as Array<{ testClockId: string | null }>;
    assert.equal(all.filter((x) => x.testClockId === c.id).length, 3, 'three customers on the clock, no more');
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
