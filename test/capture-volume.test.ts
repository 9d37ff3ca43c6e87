// The back-office home's 30-day volume, kept per hour as captures commit (capture_volume): after captures made at
// once (20 on one merchant, in its two stores and the merchant's own, in EUR and XPF) and refunds, the home's bars
// equal what the payments captured add up to, day by day; a store's share is its own captures; `motu ledger verify`
// finds the kept volume equal to the payments, and reports an hour that is not.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { readVolume } from '../src/modules/back-office/capture-volume.js';
import { HomeService } from '../src/modules/back-office/home.js';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { toEurCents, type Currency } from '../src/shared/money.js';
import { signedInUser } from './support/back-office.js';
import { createMerchant, createStore } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';

interface Listed { id: string; status: string; currency: Currency; capturedAmount: number; capturedAt: string | null; store: { id: string } | null }

eachDatabase('the home\'s capture volume', (dialect) => {
  const { t } = withMerchantApp(dialect);

  /** What the home should show: the captured payments' amounts summed per UTC hour and currency, put in the merchant's days. */
  const expectedDays = (payments: Listed[], timeZone: string) => {
    const dayOf = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    const hours = new Map<string, { currency: Currency; count: number; amount: number }>();
    for (const p of payments) {
      if (!p.capturedAt) continue;
      const key = `${p.capturedAt.slice(0, 13)} ${p.currency}`;
      const h = hours.get(key) ?? hours.set(key, { currency: p.currency, count: 0, amount: 0 }).get(key)!;
      h.count += 1;
      h.amount += p.capturedAmount;
    }
    const days = new Map<string, { count: number; amountEur: number }>();
    for (const [key, h] of hours) {
      const day = dayOf.format(new Date(`${key.slice(0, 13)}:00:00.000Z`));
      const d = days.get(day) ?? days.set(day, { count: 0, amountEur: 0 }).get(day)!;
      d.count += h.count;
      d.amountEur += toEurCents(h.amount, h.currency);
    }
    return days;
  };

  it('equals the captured payments after 20 captures at once and refunds, per store too, and verify agrees', async () => {
    const shop = await createMerchant(t, 'Volume');
    const [north, south] = [await createStore(t, shop.id, { code: 'north' }), await createStore(t, shop.id, { code: 'south' })];
    const storeOf = (i: number) => [north.id, south.id, undefined][i % 3];
    // 20 payments authorized, then captured at once (the capture requests in flight together).
    const authorized = await Promise.all(Array.from({ length: 20 }, (_, i) => paidPayment(t, shop.testKey, {
      captureMode: 'MANUAL', amount: 1000 + 37 * i, currency: i % 2 ? 'XPF' : 'EUR', storeId: storeOf(i),
    })));
    const captures = await Promise.all(authorized.map((id, i) =>
      t.api(shop.testKey, 'POST', `/api/v1/payments/${id}/capture`, i % 4 === 3 ? { amount: 500 } : {})));
    for (const c of captures) assert.equal(c.status, 200, JSON.stringify(c.body));
    // Refunds, in whole and in part, and one payment left authorized (not captured: not in the volume).
    for (const [i, id] of authorized.entries()) {
      if (i % 5 === 0) assert.equal((await t.api(shop.testKey, 'POST', `/api/v1/payments/${id}/refund`, {})).status, 201);
      if (i % 5 === 1) assert.equal((await t.api(shop.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 100 })).status, 201);
    }
    await paidPayment(t, shop.testKey, { captureMode: 'MANUAL', amount: 999 });

    const payments = (await t.api(shop.testKey, 'GET', '/api/v1/payments?limit=100')).body.data as Listed[];
    assert.equal(payments.length, 21);
    assert.equal(payments.filter((p) => p.capturedAt).length, 20);
    assert.ok(payments.some((p) => p.status === 'refunded') && payments.some((p) => p.status === 'partially_refunded'));

    // The merchant's days: a zone half an hour off UTC's hours (its day starts at half past an hour).
    await t.db.kysely.updateTable('merchants').set({ timezone: 'Asia/Kolkata' }).where('id', '=', shop.id).execute();
    const user = await signedInUser(t, shop.id, 'owner');
    const home = (await user.call('GET', '/dashboard/api/home')).body as { volume: { day: string; count: number; amountEur: number }[] };
    const expected = expectedDays(payments, 'Asia/Kolkata');
    assert.equal(home.volume.length, 30);
    for (const day of home.volume) assert.deepEqual({ count: day.count, amountEur: day.amountEur }, expected.get(day.day) ?? { count: 0, amountEur: 0 }, day.day);
    assert.equal(home.volume.reduce((s, d) => s + d.count, 0), 20);

    // A store's volume: its own captures only (a key or user bound to it reads these).
    const since = new Date(Date.now() - 86_400_000).toISOString();
    for (const store of [north, south]) {
      const rows = await readVolume(t.db.kysely, { merchantId: shop.id, mode: 'test', storeId: store.id }, since);
      const mine = payments.filter((p) => p.capturedAt && p.store?.id === store.id);
      assert.equal(rows.reduce((s, r) => s + r.count, 0), mine.length);
      for (const currency of ['EUR', 'XPF'] as const) {
        assert.equal(rows.filter((r) => r.currency === currency).reduce((s, r) => s + r.amount, 0),
          mine.filter((p) => p.currency === currency).reduce((s, p) => s + p.capturedAmount, 0));
      }
    }

    const clean = await verifyLedger(t.db);
    assert.equal(clean.ok, true, JSON.stringify(clean.differences));
    // An hour kept wrong is reported, with the payments' own figures.
    const kept = await t.db.kysely.selectFrom('capture_volume').selectAll().where('merchant_id', '=', shop.id)
      .where('store_key', '=', north.id).where('currency', '=', 'EUR').executeTakeFirstOrThrow();
    await t.db.kysely.updateTable('capture_volume').set({ amount: Number(kept.amount) + 1 }).where('merchant_id', '=', shop.id).where('mode', '=', 'test')
      .where('hour', '=', kept.hour).where('store_key', '=', north.id).where('currency', '=', 'EUR').where('slot', '=', kept.slot).execute();
    const tampered = await verifyLedger(t.db);
    assert.equal(tampered.found.capture_volume, 1);
    assert.equal(tampered.differences[0]!.check, 'capture_volume');
    assert.match(tampered.differences[0]!.id, new RegExp(`^${shop.id} test \\d{4}-\\d\\d-\\d\\dT\\d\\d ${north.id} EUR$`));
  });

  it('puts each hour in the merchant\'s day as formatting it in the zone does, summer time changes in the window included', async () => {
    const shop = await createMerchant(t, 'Zones');
    // One capture every hour for 33 days around each date below: 1 EUR at hour h, 1,000 XPF more every 7th hour.
    const dates = ['2026-03-20T10:17:00.000Z', '2026-04-10T23:59:00.000Z', '2026-07-01T00:00:00.000Z', '2026-10-20T05:30:00.000Z', '2026-11-15T18:45:00.000Z'];
    const rows = new Map<string, { hour: string; currency: string; count: number; amount: number }>();
    for (const date of dates) {
      for (let h = -33 * 24; h <= 24; h++) {
        const hour = new Date(Math.floor(Date.parse(date) / 3_600_000) * 3_600_000 + h * 3_600_000).toISOString().slice(0, 13);
        rows.set(`${hour} EUR`, { hour, currency: 'EUR', count: 1, amount: 100 });
        if (h % 7 === 0) rows.set(`${hour} XPF`, { hour, currency: 'XPF', count: 2, amount: 1000 });
      }
    }
    const values = [...rows.values()].map((r) => ({ merchant_id: shop.id, mode: 'test' as const, hour: r.hour, store_key: '', currency: r.currency, slot: 0, count: r.count, amount: r.amount }));
    for (let i = 0; i < values.length; i += 500) await t.db.kysely.insertInto('capture_volume').values(values.slice(i, i + 500)).execute();
    for (const date of dates) {
      const home = new HomeService(t.db, { now: () => new Date(date) }, undefined as never, undefined as never);
      for (const zone of ['UTC', 'Pacific/Tahiti', 'Asia/Kolkata', 'Asia/Kathmandu', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Chatham']) {
        const volume = await home.volume({ merchantId: shop.id, mode: 'test' }, zone);
        // The reference: every hour formatted in the zone, from the window's start (31 days before now) on.
        const dayOf = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
        const since = new Date(Date.parse(date) - 31 * 86_400_000).toISOString().slice(0, 13);
        const expected = new Map(volume.map((d) => [d.day, { count: 0, amountEur: 0 }]));
        for (const r of rows.values()) {
          if (r.hour < since) continue;
          const day = expected.get(dayOf.format(new Date(`${r.hour}:00:00.000Z`)));
          if (!day) continue;
          day.count += r.count;
          day.amountEur += toEurCents(r.amount, r.currency as Currency);
        }
        assert.equal(volume.length, 30, `${zone} ${date}`);
        for (const d of volume) assert.deepEqual({ count: d.count, amountEur: d.amountEur }, expected.get(d.day), `${zone} ${date} ${d.day}`);
      }
    }
  });
});
