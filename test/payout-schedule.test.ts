// Automatic payouts through HTTP on every database: the schedule (defaults per mode, changes, bad input, store keys),
// the daily run paying each currency's available balance to its default account once a day, on the days a weekly or
// monthly schedule falls on, never for a manual one, after the delay, and not to an errored account.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { createKey, createMerchant, type MerchantFixture } from './support/factories.js';
import { eachDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paymentSchedule } from './support/schedule.js';

const DAY = 86_400_000;
// A Friday; February 2027 has 28 days.
const START = new Date('2027-02-26T10:00:00.000Z');

eachDatabase('payout schedule', (dialect) => {
  const clock = new ManualClock(START);
  const { t, m } = withMerchantApp(dialect, { checkAnswers: true, clock });
  const api = (method: string, url: string, body?: unknown, key = m.testKey) => t.api(key, method, url, body);
  const run = () => paymentSchedule(t, clock).services.payoutSchedule.runDue(clock.now());
  const merchant = async (name: string, funds = 5000) => {
    const x = await createMerchant(t, name);
    const account = await t.api(x.testKey, 'POST', '/api/v1/bank-accounts', { iban: 'FR7630006000010000000000152', holderName: name, currency: 'EUR' });
    assert.equal(account.status, 201, JSON.stringify(account.body));
    await fund(x, funds);
    return x;
  };
  const fund = async (x: MerchantFixture, amount: number) => {
    const res = await t.admin('POST', `/admin/v1/merchants/${x.id}/adjustments`, { mode: 'test', currency: 'EUR', amount, reason: 'sales' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  };
  const payouts = async (x: MerchantFixture) => (await t.api(x.testKey, 'GET', '/api/v1/payouts?limit=100')).body.data as Array<{ amount: number; automatic: boolean; description: string }>;
  const schedule = (x: MerchantFixture, body: unknown) => t.api(x.testKey, 'PATCH', '/api/v1/payout-schedule', body);

  it('defaults: daily, no delay in test mode and two days in live mode; changes are kept; bad input is a 400; a store key gets 403', async () => {
    assert.deepEqual((await api('GET', '/api/v1/payout-schedule')).body, { interval: 'daily', weeklyAnchor: 'monday', monthlyAnchor: 1, delayDays: 0, nextRunOn: '2027-02-26' });
    assert.equal((await api('GET', '/api/v1/payout-schedule', undefined, m.liveKey)).body.delayDays, 2);
    const weekly = await api('PATCH', '/api/v1/payout-schedule', { interval: 'weekly', weeklyAnchor: 'tuesday' });
    assert.equal(weekly.status, 200);
    assert.deepEqual(weekly.body, { interval: 'weekly', weeklyAnchor: 'tuesday', monthlyAnchor: 1, delayDays: 0, nextRunOn: '2027-03-02' });
    assert.deepEqual((await api('GET', '/api/v1/payout-schedule')).body, weekly.body);
    const monthly = await api('PATCH', '/api/v1/payout-schedule', { interval: 'monthly', monthlyAnchor: 31 });
    assert.equal(monthly.body.nextRunOn, '2027-02-28', '31: the last day of a shorter month');
    for (const body of [{ interval: 'hourly' }, { weeklyAnchor: 'someday' }, { monthlyAnchor: 0 }, { monthlyAnchor: 32 }, { delayDays: 31 }, { delayDays: -1 }, { extra: 1 }]) {
      assert.equal((await api('PATCH', '/api/v1/payout-schedule', body)).status, 400, JSON.stringify(body));
    }
    assert.equal((await api('GET', '/api/v1/payout-schedule')).body.monthlyAnchor, 31, 'nothing changed by bad input');
    assert.equal((await api('GET', '/api/v1/payout-schedule', undefined, m.liveKey)).body.interval, 'daily', 'test and live apart');
    const store = await t.admin('POST', `/admin/v1/merchants/${m.id}/stores`, { code: 'S1', name: 'Shop', kind: 'online' });
    const storeKey = (await createKey(t, m.id, { mode: 'test', storeId: store.body.id })).secretKey;
    assert.equal((await api('GET', '/api/v1/payout-schedule', undefined, storeKey)).status, 403);
    await api('PATCH', '/api/v1/payout-schedule', { interval: 'manual' });
  });

  it('a daily run pays the whole available balance once a day, automatically; a manual schedule never', async () => {
    const daily = await merchant('Daily');
    const manual = await merchant('Manual');
    assert.equal((await schedule(manual, { interval: 'manual' })).status, 200);
    await run();
    const [paid] = await payouts(daily);
    assert.deepEqual([paid!.amount, paid!.automatic, paid!.description], [5000, true, 'Automatic payout']);
    assert.deepEqual(await payouts(manual), []);
    await fund(daily, 700);
    await run();
    assert.equal((await payouts(daily)).length, 1, 'once a day');
    clock.advance(DAY);
    await run();
    assert.deepEqual((await payouts(daily)).map((p) => p.amount), [700, 5000]);
    assert.deepEqual(await payouts(manual), []);
    assert.deepEqual((await verifyLedger(t.db)).differences, []);
  });

  it('weekly and monthly schedules run on their day only; a delay pays what has been available that long', async () => {
    clock.set(START);
    const weekly = await merchant('Weekly');
    const monthly = await merchant('Monthly');
    const delayed = await merchant('Delayed', 1000);
    await schedule(weekly, { interval: 'weekly', weeklyAnchor: 'monday' });
    await schedule(monthly, { interval: 'monthly', monthlyAnchor: 31 });
    await schedule(delayed, { delayDays: 2 });
    await run(); // Friday 26 February
    assert.deepEqual(await payouts(weekly), []);
    assert.deepEqual(await payouts(monthly), []);
    assert.deepEqual(await payouts(delayed), [], 'available for less than two days');
    clock.advance(DAY); // Saturday 27
    await fund(delayed, 400);
    await run();
    assert.deepEqual(await payouts(delayed), []);
    clock.advance(DAY); // Sunday 28: the last day of February
    await run();
    assert.deepEqual((await payouts(monthly)).map((p) => p.amount), [5000]);
    assert.deepEqual((await payouts(delayed)).map((p) => p.amount), [1000], 'the 400 of Saturday waits');
    assert.deepEqual(await payouts(weekly), []);
    clock.advance(DAY); // Monday 1 March
    await run();
    assert.deepEqual((await payouts(weekly)).map((p) => p.amount), [5000]);
    assert.deepEqual((await payouts(monthly)).map((p) => p.amount), [5000]);
    assert.deepEqual((await payouts(delayed)).map((p) => p.amount), [400, 1000]);
  });

  it('an errored default account pauses automatic payouts until another default is set', async () => {
    const x = await merchant('Errored');
    await t.db.kysely.updateTable('bank_accounts').set({ status: 'errored' }).where('merchant_id', '=', x.id).execute();
    clock.advance(DAY);
    await run();
    assert.deepEqual(await payouts(x), []);
    const other = await t.api(x.testKey, 'POST', '/api/v1/bank-accounts', { iban: 'DE89370400440532013000', holderName: 'Errored', currency: 'EUR' });
    assert.equal((await t.api(x.testKey, 'PATCH', `/api/v1/bank-accounts/${other.body.id}`, { default: true })).status, 200);
    await run();
    assert.deepEqual((await payouts(x)).map((p) => p.amount), [5000]);
  });
});
