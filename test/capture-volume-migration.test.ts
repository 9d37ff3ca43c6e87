// Migration 0052 on a database that already has payments: the capture volume it writes equals what the captured
// payments add up to, per merchant, mode, UTC hour, store and currency (payments never captured add nothing; a
// refunded one counts for what was captured), `motu ledger verify` finds it clean, and a capture after it adds to it.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { migrate } from '../src/db/migrate.js';
import { readVolume } from '../src/modules/back-office/capture-volume.js';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { capture } from '../src/modules/payment-transitions/transitions.js';
import { parseConfig } from '../src/config.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { systemClock } from '../src/shared/clock.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { eachDatabase, freshDatabase, type TestDatabase } from './support/harness.js';

eachDatabase('migration 0052: the capture volume from existing payments', (dialect) => {
  let d: TestDatabase;
  before(async () => {
    d = await freshDatabase(dialect, { migrate: false });
    await migrate(d.db, '0051_agency_client_onboarding');
  });
  after(async () => d.drop());

  it('fills each hour with its captured payments, and a later capture adds to its hour', async () => {
    const k = d.db.kysely as any;
    const merchants = new MerchantsService(d.db, systemClock, secretBoxFor(parseConfig({ MOTU_DATA_DIR: d.dataDir, DATABASE_URL: d.databaseUrl })));
    const [old, other] = [await merchants.createMerchant({ name: 'Old' }), await merchants.createMerchant({ name: 'Other' })];
    const storeA = 'sto_a';
    await k.insertInto('stores').values({ id: storeA, merchant_id: old.id, code: 'a', name: 'A', kind: 'online', active: 1, contract_id: null, created_at: '2026-01-01T00:00:00.000Z' }).execute();
    const payment = (id: string, status: string, currency: string, amount: number, capturedAt: string | null, store: string | null, merchant = old.id) => ({
      id, merchant_id: merchant, mode: 'test', session_id: null, status, reference: `SPR-${id}`, order_reference: `ORD-${id}`, external_id: null,
      amount, currency, amount_eur_cents: amount, tax_amount: 0, is_incl_tax_amount: 1, order_json: '{}', capture_mode: 'AUTO', store_id: store,
      contract_id: merchant === old.id ? old.defaultContractId : other.defaultContractId, customer_id: null, customer_created: 0, email: null, save_customer: 0, notification_url: 'https://shop.example/hook', private_data: null,
      authorized_amount: amount, captured_amount: capturedAt ? amount : 0, disputed_amount: 0, refunded_amount: status === 'refunded' ? amount : 0,
      refusal_code: null, refusal_message: null, payment_method_id: null, card_brand: 'visa', card_last4: '4242', card_network: 'CB',
      authorized_at: '2026-03-01T10:00:00.000Z', captured_at: capturedAt, settled: 0, acquirer_authorization_id: null, operation: null, operation_at: null,
      refund_reserved: 0, authorization_attempts: 1, settled_at: null, invoice_id: null, subscription_id: null, due_date: null, test_clock_id: null,
      created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:00:00.000Z',
    });
    const rows = [
      payment('pay_1', 'captured', 'EUR', 1000, '2026-03-01T10:05:00.000Z', null),
      payment('pay_2', 'captured', 'EUR', 2500, '2026-03-01T10:59:59.999Z', null),
      payment('pay_3', 'refunded', 'EUR', 700, '2026-03-01T11:00:00.000Z', null),
      payment('pay_4', 'captured', 'XPF', 12000, '2026-03-01T10:30:00.000Z', null),
      payment('pay_5', 'captured', 'EUR', 400, '2026-03-01T10:10:00.000Z', 'sto_a'),
      payment('pay_6', 'transit', 'EUR', 9000, null, null),
      payment('pay_7', 'failed', 'EUR', 9000, null, 'sto_a'),
      payment('pay_8', 'captured', 'EUR', 333, '2026-03-01T10:15:00.000Z', null, other.id),
    ];
    for (const row of rows) await k.insertInto('payments').values(row).execute();

    assert.ok((await migrate(d.db)).includes('0052_capture_volume'));
    const owner = { merchantId: old.id, mode: 'test' as const, storeId: null };
    const byHour = (list: { hour: string; currency: string; count: number; amount: number }[]) =>
      list.map((r) => `${r.hour} ${r.currency} ${r.count} ${r.amount}`).sort();
    assert.deepEqual(byHour(await readVolume(d.db.kysely, owner, '2026-03-01T00:00:00.000Z')), [
      '2026-03-01T10 EUR 3 3900', '2026-03-01T10 XPF 1 12000', '2026-03-01T11 EUR 1 700',
    ]);
    assert.deepEqual(byHour(await readVolume(d.db.kysely, { ...owner, storeId: 'sto_a' }, '2026-03-01T00:00:00.000Z')), ['2026-03-01T10 EUR 1 400']);
    assert.deepEqual(byHour(await readVolume(d.db.kysely, owner, '2026-03-01T11:30:00.000Z')), ['2026-03-01T11 EUR 1 700'], 'from the hour of `since` on');
    const clean = await verifyLedger(d.db);
    assert.equal(clean.found.capture_volume, 0, JSON.stringify(clean.differences));

    // The payment in transit captured after the migration: added to its hour, next to what the migration wrote.
    await k.updateTable('payments').set({ captured_at: null }).where('id', '=', 'pay_6').execute();
    const captured = await d.db.transaction((trx) => capture(trx, { paymentId: 'pay_6', amount: 9000, operation: null, at: new Date('2026-03-01T11:20:00.000Z') }));
    assert.equal(captured?.status, 'captured');
    assert.deepEqual(byHour(await readVolume(d.db.kysely, owner, '2026-03-01T11:00:00.000Z')), ['2026-03-01T11 EUR 2 9700']);
    assert.equal((await verifyLedger(d.db)).found.capture_volume, 0);
  });
});
