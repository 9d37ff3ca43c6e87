// Payment sessions and payments through HTTP, on every database: the session request, the store codes, the
// lifecycle, money, API conventions and the existing integrations' requests (docs/payments.md, docs/compatibility.md).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ManualClock, eachDatabase, type TestApp } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createKey, createMerchant, createStore } from './support/factories.js';
import { fromAnotherProcess, listening } from './support/reference.js';
import { eventually } from './support/wait.js';

const START = new Date('2030-01-15T10:00:00.000Z');

function body(over: Record<string, unknown> = {}) {
  return {
    order: { reference: 'CMD-1', amount: 1000, currency: 'XPF' },
    redirectUrl: 'https://shop.example/return',
    notificationUrl: 'https://shop.example/hooks/motu',
    ...over,
  };
}

async function createContract(t: TestApp, merchantId: string, extra: Record<string, unknown> = {}) {
  const res = await t.admin('POST', `/admin/v1/merchants/${merchantId}/contracts`, {
    statementLabel: 'BOUTIQUE', commissionRate: 200, fixedFee: 10, ...extra,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string };
}

function assertValidation(res: { status: number; body: any }, field: string) {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.code, 'VALIDATION_ERROR', JSON.stringify(res.body));
  assert.equal(res.body.details.field, field, JSON.stringify(res.body));
  assert.ok(res.body.fields.some((f: { field: string }) => f.field === field), JSON.stringify(res.body));
}

eachDatabase('payment sessions', (dialect) => {
  const clock = new ManualClock(START);
  const post = (b: unknown, key = m.testKey, headers?: Record<string, string>) => t.api(key, 'POST', '/api/v1/payments/sessions', b, headers);
  const { t, m } = withMerchantApp(dialect, { checkAnswers: true, clock });

  describe('creation and reads', () => {
    it('creates a session and its pending payment, answering the documented fields', async () => {
      const res = await post(body({ externalId: 'cart-77' }));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body).sort(), ['checkoutUrl', 'expiresAt', 'externalId', 'paymentId', 'sessionId', 'status', 'store']);
      assert.match(res.body.paymentId, /^pay_[0-9A-Za-z]{22}$/);
      assert.match(res.body.sessionId, /^ses_[0-9A-Za-z]{22}$/);
      assert.equal(res.body.checkoutUrl, `http://localhost:3000/checkout/${res.body.sessionId}`);
      assert.equal(res.body.store, null);
      assert.equal(res.body.status, 'pending');
      assert.equal(res.body.externalId, 'cart-77');
      assert.equal(res.body.expiresAt, '2030-01-16T10:00:00.000Z'); // default 24 h
    });

    it('echoes every default on GET of the session', async () => {
      const created = await post(body());
      const res = await t.api(m.testKey, 'GET', `/api/v1/payments/sessions/${created.body.sessionId}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const s = res.body;
      assert.equal(s.id, created.body.sessionId);
      assert.equal(s.paymentId, created.body.paymentId);
      assert.equal(s.status, 'open');
      assert.equal(s.captureMode, 'AUTO');
      assert.equal(s.languageCode, 'fr');
      assert.equal(s.successPageMode, 'auto');
      assert.equal(s.failurePageMode, 'show');
      assert.equal(s.saveCustomer, false);
      assert.equal(s.allowCustomerToSavePaymentMethod, false);
      assert.equal(s.savePaymentMethodCheckedByDefault, true);
      assert.equal(s.isInclTaxAmount, true);
      assert.equal(s.failureRedirectUrl, 'https://shop.example/return'); // defaults to redirectUrl
      assert.equal(s.merchantConfigId, m.defaultContractId); // active default contract
      assert.equal(s.expiresAt, '2030-01-16T10:00:00.000Z');
      assert.equal(s.checkoutUrl, created.body.checkoutUrl);
    });

    it('keeps the values given instead of the defaults', async () => {
      const created = await post(body({
        captureMode: 'MANUAL', languageCode: 'en-US', successPageMode: 'redirect', failurePageMode: 'redirect',
        failureRedirectUrl: 'https://shop.example/failed', savePaymentMethodCheckedByDefault: false, expiresIn: 60,
      }));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.expiresAt, '2030-01-15T10:01:00.000Z');
      const s = (await t.api(m.testKey, 'GET', `/api/v1/payments/sessions/${created.body.sessionId}`)).body;
      assert.equal(s.captureMode, 'MANUAL');
      assert.equal(s.languageCode, 'en-US');
      assert.equal(s.successPageMode, 'redirect');
      assert.equal(s.failurePageMode, 'redirect');
      assert.equal(s.failureRedirectUrl, 'https://shop.example/failed');
      assert.equal(s.savePaymentMethodCheckedByDefault, false);
    });

    it('reads the payment with the fields integrations expect', async () => {
      const created = await post(body({ externalId: 'ext-9', privateData: { cart: 12 } }));
      const res = await t.api(m.testKey, 'GET', `/api/v1/payments/${created.body.paymentId}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const p = res.body;
      assert.equal(p.id, created.body.paymentId);
      assert.equal(p.paymentId, created.body.paymentId);
      assert.equal(p.status, 'pending');
      assert.equal(p.externalId, 'ext-9');
      assert.match(p.reference, /^SPR-[A-Z2-7]{16}$/);
      assert.equal(p.orderReference, 'CMD-1');
      assert.equal(p.order.reference, 'CMD-1');
      assert.equal(p.amount, 1000);
      assert.equal(p.currency, 'XPF');
      assert.equal(p.amountCents, 838); // 1,000 XPF = 8.38 EUR
      assert.equal(p.originalAmount, 1000);
      assert.equal(p.originalCurrency, 'XPF');
      assert.equal(p.store, null);
      assert.equal(p.customerId, null);
      assert.equal(p.captureMode, 'AUTO');
      assert.equal(p.refusalCode, null);
      assert.equal(p.refusalMessage, null);
      assert.equal(p.capturedAmount, 0);
      assert.equal(p.refundedAmount, 0);
      assert.equal(p.sessionId, created.body.sessionId);
      assert.equal(p.createdAt, START.toISOString());
      assert.equal(p.expiresAt, created.body.expiresAt);
      assert.deepEqual(p.privateData, { cart: 12 });
    });

    it('converts XPF to EUR cents half up and leaves EUR as it is', async () => {
      const xpf = await post(body({ order: { amount: 250, currency: 'XPF' } }));
      const p1 = (await t.api(m.testKey, 'GET', `/api/v1/payments/${xpf.body.paymentId}`)).body;
      assert.equal(p1.amountCents, 210); // 250 × 838 / 1000 = 209.5 → 210
      const eur = await post(body({ order: { amount: 1999, currency: 'EUR' } }));
      const p2 = (await t.api(m.testKey, 'GET', `/api/v1/payments/${eur.body.paymentId}`)).body;
      assert.equal(p2.amount, 1999);
      assert.equal(p2.amountCents, 1999);
      assert.equal(p2.currency, 'EUR');
    });

    it('writes exactly one session and one payment per creation', async () => {
      const created = await post(body());
      const sessions = await t.db.kysely.selectFrom('payment_sessions').selectAll().where('payment_id', '=', created.body.paymentId).execute();
      const payments = await t.db.kysely.selectFrom('payments').selectAll().where('session_id', '=', created.body.sessionId).execute();
      assert.equal(sessions.length, 1);
      assert.equal(payments.length, 1);
      assert.equal(payments[0].notification_url, 'https://shop.example/hooks/motu');
      assert.equal(payments[0].contract_id, m.defaultContractId);
    });
  });

  describe('stores (the STORE_… codes)', () => {
    let online: { id: string; code: string; name: string };
    before(async () => {
      online = await createStore(t, m.id, { code: 'papeete', name: 'Papeete' });
    });

    it('finds a store by id or by code and echoes it', async () => {
      const byId = await post(body({ storeId: online.id }));
      assert.equal(byId.status, 201, JSON.stringify(byId.body));
      assert.deepEqual(byId.body.store, { id: online.id, code: 'papeete', name: 'Papeete' });
      const byCode = await post(body({ storeId: 'papeete' }));
      assert.deepEqual(byCode.body.store, { id: online.id, code: 'papeete', name: 'Papeete' });
      const p = (await t.api(m.testKey, 'GET', `/api/v1/payments/${byCode.body.paymentId}`)).body;
      assert.deepEqual(p.store, { id: online.id, code: 'papeete', name: 'Papeete' });
    });

    it('UNKNOWN_STORE for an id or code nobody has, and for another merchant’s store', async () => {
      for (const storeId of ['nowhere', 'sto_0000000000000000000000']) {
        const res = await post(body({ storeId }));
        assert.equal(res.status, 400);
        assert.equal(res.body.code, 'UNKNOWN_STORE');
        assert.equal(res.body.details.field, 'storeId');
      }
      const other = await createMerchant(t, 'Other shop');
      const theirs = await createStore(t, other.id, { code: 'faaa' });
      for (const storeId of [theirs.id, 'faaa']) {
        const res = await post(body({ storeId }));
        assert.equal(res.body.code, 'UNKNOWN_STORE');
      }
    });

    it('STORE_INACTIVE for a disabled store', async () => {
      const s = await createStore(t, m.id, { code: 'closed', active: false });
      const res = await post(body({ storeId: s.code }));
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'STORE_INACTIVE');
      assert.equal(res.body.details.field, 'storeId');
    });

    it('STORE_KIND_MISMATCH for a physical point of sale', async () => {
      const s = await createStore(t, m.id, { code: 'counter', kind: 'physical' });
      const res = await post(body({ storeId: s.id }));
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'STORE_KIND_MISMATCH');
    });

    it('STORE_CONTRACT_INACTIVE when the store’s contract was switched off', async () => {
      const c = await createContract(t, m.id);
      const s = await createStore(t, m.id, { code: 'old-contract', contractId: c.id });
      assert.equal((await post(body({ storeId: s.code }))).status, 201);
      const patched = await t.admin('PATCH', `/admin/v1/contracts/${c.id}`, { active: false });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const res = await post(body({ storeId: s.code }));
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'STORE_CONTRACT_INACTIVE');
    });

    it('STORE_CONTRACT_CONFLICT when merchantConfigId and the store designate different contracts', async () => {
      const c = await createContract(t, m.id);
      const s = await createStore(t, m.id, { code: 'own-contract', contractId: c.id });
      const res = await post(body({ storeId: s.code, merchantConfigId: m.defaultContractId }));
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'STORE_CONTRACT_CONFLICT');
      assert.equal(res.body.details.field, 'merchantConfigId');
      // The same contract on both sides is no conflict; the store's contract is used.
      const same = await post(body({ storeId: s.code, merchantConfigId: c.id }));
      assert.equal(same.status, 201, JSON.stringify(same.body));
      const viaStore = await post(body({ storeId: s.code }));
      const session = (await t.api(m.testKey, 'GET', `/api/v1/payments/sessions/${viaStore.body.sessionId}`)).body;
      assert.equal(session.merchantConfigId, c.id);
    });

    it('a key attached to a store imposes it; the body may repeat it, never contradict it (STORE_KEY_MISMATCH)', async () => {
      const second = await createStore(t, m.id, { code: 'punaauia', name: 'Punaauia' });
      const key = await createKey(t, m.id, { mode: 'test', storeId: online.id });
      const implicit = await post(body(), key.secretKey);
      assert.equal(implicit.status, 201, JSON.stringify(implicit.body));
      assert.equal(implicit.body.store.id, online.id);
      assert.equal((await post(body({ storeId: online.id }), key.secretKey)).status, 201);
      assert.equal((await post(body({ storeId: 'papeete' }), key.secretKey)).status, 201);
      for (const storeId of [second.id, 'punaauia', 'nowhere']) {
        const res = await post(body({ storeId }), key.secretKey);
        assert.equal(res.status, 400);
        assert.equal(res.body.code, 'STORE_KEY_MISMATCH', JSON.stringify(res.body));
        assert.equal(res.body.details.field, 'storeId');
      }
    });

    it('a key attached to a store that was disabled fails with STORE_INACTIVE', async () => {
      const s = await createStore(t, m.id, { code: 'soon-closed' });
      const key = await createKey(t, m.id, { mode: 'test', storeId: s.id });
      assert.equal((await t.admin('PATCH', `/admin/v1/stores/${s.id}`, { active: false })).status, 200);
      const res = await post(body(), key.secretKey);
      assert.equal(res.body.code, 'STORE_INACTIVE');
    });
  });

  // Stores and contracts are cached in the process (src/db/reference-cache.ts): a change made after they were used, by
  // the admin API or by another process, is seen by the very next session (PostgreSQL: another process's change once
  // its commit's notification has arrived).
  describe('stores and contracts changed after use', () => {
    it('a store disabled, re-enabled, or its contract switched off through the admin API', async () => {
      const c = await createContract(t, m.id);
      const s = await createStore(t, m.id, { code: 'cached-shop', contractId: c.id });
      assert.equal((await post(body({ storeId: 'cached-shop' }))).status, 201);
      assert.equal((await t.admin('PATCH', `/admin/v1/stores/${s.id}`, { active: false })).status, 200);
      assert.equal((await post(body({ storeId: 'cached-shop' }))).body.code, 'STORE_INACTIVE');
      assert.equal((await t.admin('PATCH', `/admin/v1/stores/${s.id}`, { active: true })).status, 200);
      assert.equal((await post(body({ storeId: s.id }))).status, 201);
      assert.equal((await t.admin('PATCH', `/admin/v1/contracts/${c.id}`, { active: false })).status, 200);
      assert.equal((await post(body({ storeId: s.id }))).body.code, 'STORE_CONTRACT_INACTIVE');
    });

    if (dialect === 'sqlite') {
      it('a store disabled by another process (another connection to the database file)', async () => {
        const s = await createStore(t, m.id, { code: 'other-process' });
        assert.equal((await post(body({ storeId: 'other-process' }))).status, 201);
        const { default: SQLite } = await import('better-sqlite3');
        const { join } = await import('node:path');
        const other = new SQLite(join(t.dataDir, 'motu.sqlite'));
        try {
          other.prepare('update stores set active = 0 where id = ?').run(s.id);
        } finally {
          other.close();
        }
        assert.equal((await post(body({ storeId: 'other-process' }))).body.code, 'STORE_INACTIVE');
      });
    }

    if (dialect === 'postgres') {
      it('a store disabled, then its contract switched off, by another process: seen once each commit is heard', async () => {
        await listening(t);
        const c = await createContract(t, m.id);
        const s = await createStore(t, m.id, { code: 'other-process', contractId: c.id });
        assert.equal((await post(body({ storeId: 'other-process' }))).status, 201);
        await fromAnotherProcess(t, ['update stores set active = 0 where id = $1', [s.id]]);
        await eventually('the store is seen inactive', async () => (await post(body({ storeId: 'other-process' }))).body.code === 'STORE_INACTIVE');
        await fromAnotherProcess(t, ['update stores set active = 1 where id = $1', [s.id]], ['update contracts set active = 0 where id = $1', [c.id]]);
        await eventually('the contract is seen inactive', async () => (await post(body({ storeId: s.id }))).body.code === 'STORE_CONTRACT_INACTIVE');
      });
    }
  });

  describe('merchantConfigId', () => {
    it('uses an active contract of this merchant', async () => {
      const c = await createContract(t, m.id);
      const res = await post(body({ merchantConfigId: c.id }));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const s = (await t.api(m.testKey, 'GET', `/api/v1/payments/sessions/${res.body.sessionId}`)).body;
      assert.equal(s.merchantConfigId, c.id);
    });

    it('refuses an unknown, foreign or inactive contract with a 400 on merchantConfigId', async () => {
      assertValidation(await post(body({ merchantConfigId: 'mcf_0000000000000000000000' })), 'merchantConfigId');
      const other = await createMerchant(t, 'Foreign contract');
      assertValidation(await post(body({ merchantConfigId: other.defaultContractId })), 'merchantConfigId');
      const c = await createContract(t, m.id, { active: false });
      assertValidation(await post(body({ merchantConfigId: c.id })), 'merchantConfigId');
    });
  });

  describe('customers (triple identification)', () => {
    let hina: { id: string };
    let teva: { id: string };
    before(async () => {
      hina = (await t.api(m.testKey, 'POST', '/api/v1/customers', { email: 'hina@example.pf', externalId: 'crm-hina' })).body;
      teva = (await t.api(m.testKey, 'POST', '/api/v1/customers', { email: 'teva@example.pf', externalId: 'crm-teva' })).body;
    });
    const paymentOf = async (res: { body: any }) => (await t.api(m.testKey, 'GET', `/api/v1/payments/${res.body.paymentId}`)).body;

    it('identifies by customerId, by email (any case) or by externalId', async () => {
      for (const id of [{ customerId: hina.id }, { email: 'HINA@example.pf' }, { externalId: 'crm-hina' }]) {
        const res = await post(body(id));
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.equal((await paymentOf(res)).customerId, hina.id);
      }
      const all = await post(body({ customerId: hina.id, email: 'hina@example.pf', externalId: 'crm-hina' }));
      assert.equal(all.status, 201);
    });

    it('an unknown customerId is 404 NOT_FOUND', async () => {
      const res = await post(body({ customerId: 'cus_0000000000000000000000' }));
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'NOT_FOUND');
      assert.equal(res.body.details.field, 'customerId');
      // Another mode's customer does not exist for this key.
      const live = await post(body({ customerId: hina.id }), m.liveKey);
      assert.equal(live.status, 404);
    });

    it('an email or externalId of nobody makes an anonymous payment that keeps them', async () => {
      const res = await post(body({ email: 'new@example.pf', externalId: 'medusa-sess-1' }));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const p = await paymentOf(res);
      assert.equal(p.customerId, null);
      assert.equal(p.email, 'new@example.pf');
      assert.equal(p.externalId, 'medusa-sess-1');
      assert.deepEqual(p.privateData, { customerEmail: 'new@example.pf' });
    });

    it('identifiers that designate two different customers are a 400 naming the later field', async () => {
      assertValidation(await post(body({ customerId: hina.id, email: 'teva@example.pf' })), 'email');
      assertValidation(await post(body({ customerId: hina.id, externalId: 'crm-teva' })), 'externalId');
      assertValidation(await post(body({ email: 'teva@example.pf', externalId: 'crm-hina' })), 'externalId');
      void teva;
    });

    it('allowCustomerToSavePaymentMethod needs an identified customer or saveCustomer', async () => {
      assertValidation(await post(body({ allowCustomerToSavePaymentMethod: true })), 'allowCustomerToSavePaymentMethod');
      assertValidation(
        await post(body({ allowCustomerToSavePaymentMethod: true, email: 'nobody@example.pf' })),
        'allowCustomerToSavePaymentMethod',
      );
      assert.equal((await post(body({ allowCustomerToSavePaymentMethod: true, saveCustomer: true }))).status, 201);
      const withCustomer = await post(body({ allowCustomerToSavePaymentMethod: true, customerId: hina.id }));
      assert.equal(withCustomer.status, 201);
      const s = (await t.api(m.testKey, 'GET', `/api/v1/payments/sessions/${withCustomer.body.sessionId}`)).body;
      assert.equal(s.allowCustomerToSavePaymentMethod, true);
    });

    it('saveCustomer is kept for an anonymous payment and ignored when a customer is identified', async () => {
      const anon = await post(body({ saveCustomer: true, email: 'later@example.pf' }));
      assert.equal((await t.api(m.testKey, 'GET', `/api/v1/payments/sessions/${anon.body.sessionId}`)).body.saveCustomer, true);
      const known = await post(body({ saveCustomer: true, customerId: hina.id }));
      assert.equal((await t.api(m.testKey, 'GET', `/api/v1/payments/sessions/${known.body.sessionId}`)).body.saveCustomer, false);
    });
  });

  describe('validation (400 VALIDATION_ERROR with details.field)', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['missing order', { order: undefined }, 'order'],
      ['missing redirectUrl', { redirectUrl: undefined }, 'redirectUrl'],
      ['missing notificationUrl', { notificationUrl: undefined }, 'notificationUrl'],
      ['missing amount', { order: { currency: 'XPF' } }, 'order.amount'],
      ['zero amount', { order: { amount: 0, currency: 'XPF' } }, 'order.amount'],
      ['negative amount', { order: { amount: -5, currency: 'XPF' } }, 'order.amount'],
      ['fractional amount', { order: { amount: 10.5, currency: 'EUR' } }, 'order.amount'],
      ['amount as text', { order: { amount: '1000', currency: 'EUR' } }, 'order.amount'],
      ['amount above the maximum', { order: { amount: 1_000_000_000, currency: 'XPF' } }, 'order.amount'],
      ['unknown currency', { order: { amount: 100, currency: 'USD' } }, 'order.currency'],
      ['missing currency', { order: { amount: 100 } }, 'order.currency'],
      ['order reference too long', { order: { amount: 100, currency: 'EUR', reference: 'r'.repeat(256) } }, 'order.reference'],
      ['item without product', { order: { amount: 100, currency: 'EUR', items: [{ unitPrice: 100, quantity: 1 }] } }, 'order.items[0].product'],
      ['item quantity zero', { order: { amount: 100, currency: 'EUR', items: [{ product: 'a', unitPrice: 100, quantity: 0 }] } }, 'order.items[0].quantity'],
      ['item discount above its line', { order: { amount: 0 + 1, currency: 'EUR', items: [{ product: 'a', unitPrice: 100, quantity: 1, discount: 101 }] } }, 'order.items[0].discount'],
      ['country not alpha-2', { order: { amount: 100, currency: 'EUR', buyer: { billingAddress: { country: 'France' } } } }, 'order.buyer.billingAddress.country'],
      ['languageCode too short', { languageCode: 'f' }, 'languageCode'],
      ['languageCode too long', { languageCode: 'fr-FRA' }, 'languageCode'],
      ['externalId too long', { externalId: 'x'.repeat(256) }, 'externalId'],
      ['externalId empty', { externalId: '' }, 'externalId'],
      ['expiresIn too short', { expiresIn: 59 }, 'expiresIn'],
      ['expiresIn too long', { expiresIn: 2_592_001 }, 'expiresIn'],
      ['expiresIn not an integer', { expiresIn: 90.5 }, 'expiresIn'],
      ['captureMode unknown', { captureMode: 'LATER' }, 'captureMode'],
      ['successPageMode unknown', { successPageMode: 'never' }, 'successPageMode'],
      ['failurePageMode auto is not a failure mode', { failurePageMode: 'auto' }, 'failurePageMode'],
      ['email malformed', { email: 'not-an-email' }, 'email'],
      ['privateData not an object', { privateData: ['a'] }, 'privateData'],
      ['saveCustomer not a boolean', { saveCustomer: 'yes' }, 'saveCustomer'],
      ['isInclTaxAmount not a boolean', { isInclTaxAmount: 0 }, 'isInclTaxAmount'],
      ['unknown top-level field', { amountCents: 100 }, 'amountCents'],
      ['plain http redirectUrl', { redirectUrl: 'http://shop.example/return' }, 'redirectUrl'],
      ['javascript: redirectUrl', { redirectUrl: 'javascript:alert(1)' }, 'redirectUrl'],
      ['data: redirectUrl', { redirectUrl: 'data:text/html,<script>alert(1)</script>' }, 'redirectUrl'],
      ['file: redirectUrl', { redirectUrl: 'file:///etc/passwd' }, 'redirectUrl'],
      ['relative redirectUrl', { redirectUrl: '/return' }, 'redirectUrl'],
      ['javascript: failureRedirectUrl', { failureRedirectUrl: 'JavaScript:alert(1)' }, 'failureRedirectUrl'],
      ['app scheme notificationUrl', { notificationUrl: 'myapp://hook' }, 'notificationUrl'],
      ['plain http notificationUrl', { notificationUrl: 'http://shop.example/hook' }, 'notificationUrl'],
      ['credentials in notificationUrl', { notificationUrl: 'https://user:pw@shop.example/hook' }, 'notificationUrl'],
      ['tax excluded without rate or taxAmount', { isInclTaxAmount: false }, 'order.taxDetail.rate'],
    ];
    for (const [title, over, field] of cases) {
      it(`${title} → ${field}`, async () => {
        assertValidation(await post(body(over)), field);
      });
    }

    it('lists every invalid field, schema and business checks alike', async () => {
      const schema = await post(body({ languageCode: 'x', expiresIn: 1, order: { amount: 0, currency: 'USD' } }));
      assert.equal(schema.status, 400);
      const schemaFields = schema.body.fields.map((f: { field: string }) => f.field).sort();
      assert.deepEqual(schemaFields, ['expiresIn', 'languageCode', 'order.amount', 'order.currency']);
      const business = await post(body({
        redirectUrl: 'javascript:alert(1)', notificationUrl: 'http://evil.example', allowCustomerToSavePaymentMethod: true,
      }));
      assert.equal(business.status, 400);
      assert.deepEqual(
        business.body.fields.map((f: { field: string }) => f.field).sort(),
        ['allowCustomerToSavePaymentMethod', 'notificationUrl', 'redirectUrl'],
      );
    });

    it('accepts an app scheme as return URL, and http://localhost in test mode', async () => {
      const app = await post(body({ redirectUrl: 'myapp://payment-return?x=1', failureRedirectUrl: 'com.example.shop:/failed' }));
      assert.equal(app.status, 201, JSON.stringify(app.body));
      const loop = await post(body({ redirectUrl: 'http://localhost:8069/payment/return', notificationUrl: 'http://127.0.0.1:8069/hook' }));
      assert.equal(loop.status, 201, JSON.stringify(loop.body));
      const live = await post(body({ notificationUrl: 'http://127.0.0.1:8069/hook' }), m.liveKey);
      assertValidation(live, 'notificationUrl');
    });

    it('drops unknown keys inside order, its items and addresses, silently', async () => {
      const res = await post(body({
        order: {
          reference: 'CMD-2', amount: 1000, currency: 'XPF', merchantConfigId: 'mcf_x', storeId: 'x', colour: 'red',
          items: [{ product: 'Monoï', unitPrice: 500, quantity: 2, sku: 'M-1' }],
          buyer: { firstName: 'Hina', billingAddress: { street: 'Rue 1', street2: 'Bât B', country: 'PF' } },
          delivery: { mode: 'Courrier', method: 'post' },
        },
      }));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const p = (await t.api(m.testKey, 'GET', `/api/v1/payments/${res.body.paymentId}`)).body;
      assert.deepEqual(p.order, {
        reference: 'CMD-2', amount: 1000, currency: 'XPF',
        items: [{ product: 'Monoï', unitPrice: 500, quantity: 2 }],
        buyer: { firstName: 'Hina', billingAddress: { street: 'Rue 1', country: 'PF' } },
        delivery: { mode: 'Courrier' },
      });
      // Dropped inside order means ignored: the default contract applies, no store.
      assert.equal(p.store, null);
      const s = (await t.api(m.testKey, 'GET', `/api/v1/payments/sessions/${res.body.sessionId}`)).body;
      assert.equal(s.merchantConfigId, m.defaultContractId);
    });
  });

  describe('order amounts', () => {
    it('accepts items that add up: Σ(unitPrice × quantity − item discount) − discount = amount', async () => {
      // 2 × 500 + 1 × 300 − 100 (item discount) − 200 (order discount) = 1000
      const res = await post(body({
        order: {
          amount: 1000, currency: 'XPF', discount: 200,
          items: [
            { product: 'Monoï', unitPrice: 500, quantity: 2, taxDetail: [{ id: 'TGC', type: 'PERCENTAGE', value: 1100 }] },
            { product: 'Vanille', unitPrice: 300, quantity: 1, discount: 100, description: 'gousses' },
          ],
        },
      }));
      assert.equal(res.status, 201, JSON.stringify(res.body));
    });

    it('ORDER_AMOUNT_MISMATCH when they do not, by a single unit', async () => {
      const res = await post(body({
        order: { amount: 1001, currency: 'XPF', items: [{ product: 'Monoï', unitPrice: 500, quantity: 2 }] },
      }));
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'ORDER_AMOUNT_MISMATCH');
      assert.equal(res.body.details.field, 'order.amount');
      assert.equal(res.body.details.itemsTotal, 1000);
    });

    it('isInclTaxAmount false adds taxDetail.rate on top, rounded half up, and converts the total', async () => {
      // 1000 XPF + 16 % = 1160 XPF; 1160 × 838 / 1000 = 972.08 → 972 cents
      const xpf = await post(body({ isInclTaxAmount: false, order: { amount: 1000, currency: 'XPF', taxDetail: { rate: 1600 } } }));
      assert.equal(xpf.status, 201, JSON.stringify(xpf.body));
      const p = (await t.api(m.testKey, 'GET', `/api/v1/payments/${xpf.body.paymentId}`)).body;
      assert.equal(p.amount, 1160);
      assert.equal(p.taxAmount, 160);
      assert.equal(p.amountCents, 972);
      assert.equal(p.isInclTaxAmount, false);
      assert.equal(p.order.amount, 1000);
      // 19.99 EUR + 5.5 % = 109.945 → 110 cents of tax → 21.09 EUR
      const eur = await post(body({ isInclTaxAmount: false, order: { amount: 1999, currency: 'EUR', taxDetail: { rate: 550 } } }));
      assert.equal((await t.api(m.testKey, 'GET', `/api/v1/payments/${eur.body.paymentId}`)).body.amount, 2109);
    });

    it('isInclTaxAmount false without a rate takes order.taxAmount; a taxAmount contradicting the rate is refused', async () => {
      const res = await post(body({ isInclTaxAmount: false, order: { amount: 1000, currency: 'XPF', taxAmount: 50 } }));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal((await t.api(m.testKey, 'GET', `/api/v1/payments/${res.body.paymentId}`)).body.amount, 1050);
      assertValidation(
        await post(body({ isInclTaxAmount: false, order: { amount: 1000, currency: 'XPF', taxAmount: 50, taxDetail: { rate: 1600 } } })),
        'order.taxAmount',
      );
    });

    it('isInclTaxAmount true (the default) charges order.amount as given', async () => {
      const res = await post(body({ order: { amount: 1000, currency: 'XPF', taxAmount: 138, taxDetail: { rate: 1600 } } }));
      const p = (await t.api(m.testKey, 'GET', `/api/v1/payments/${res.body.paymentId}`)).body;
      assert.equal(p.amount, 1000);
      assert.equal(p.taxAmount, 0);
    });
  });

  describe('idempotency', () => {
    it('20 simultaneous identical POSTs with one key create exactly one session and replay its paymentId', async () => {
      const fresh = await createMerchant(t, 'Concurrent');
      const b = body({ externalId: 'concurrent-1' });
      const results = await Promise.all(
        Array.from({ length: 20 }, () => post(b, fresh.testKey, { 'idempotency-key': 'order-42' })),
      );
      for (const r of results) assert.equal(r.status, 201, JSON.stringify(r.body));
      const ids = new Set(results.map((r) => r.body.paymentId));
      assert.equal(ids.size, 1);
      const sessions = await t.db.kysely.selectFrom('payment_sessions').select('id').where('merchant_id', '=', fresh.id).execute();
      const payments = await t.db.kysely.selectFrom('payments').select('id').where('merchant_id', '=', fresh.id).execute();
      assert.equal(sessions.length, 1);
      assert.equal(payments.length, 1);
      assert.equal(payments[0].id, [...ids][0]);
    });

    it('the same key with another body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
      const first = await post(body(), m.testKey, { 'idempotency-key': 'reuse-1' });
      assert.equal(first.status, 201);
      const again = await post(body(), m.testKey, { 'idempotency-key': 'reuse-1' });
      assert.equal(again.body.paymentId, first.body.paymentId);
      const other = await post(body({ order: { amount: 2000, currency: 'XPF' } }), m.testKey, { 'idempotency-key': 'reuse-1' });
      assert.equal(other.status, 409);
      assert.equal(other.body.code, 'IDEMPOTENCY_KEY_REUSED');
    });
  });

  describe('separation and permissions', () => {
    it('the other mode and other merchants get 404 on sessions and payments', async () => {
      const created = await post(body());
      const other = await createMerchant(t, 'Stranger');
      for (const key of [m.liveKey, other.testKey]) {
        assert.equal((await t.api(key, 'GET', `/api/v1/payments/${created.body.paymentId}`)).status, 404);
        assert.equal((await t.api(key, 'GET', `/api/v1/payments/sessions/${created.body.sessionId}`)).status, 404);
        const list = await t.api(key, 'GET', '/api/v1/payments?limit=100');
        assert.ok(!list.body.data.some((p: { id: string }) => p.id === created.body.paymentId));
      }
      assert.equal((await t.api(m.testKey, 'GET', '/api/v1/payments/pay_0000000000000000000000')).body.code, 'NOT_FOUND');
    });

    it('a read key reads but cannot create (403), and no key is 401', async () => {
      const created = await post(body());
      const read = await createKey(t, m.id, { mode: 'test', permission: 'read' });
      assert.equal((await t.api(read.secretKey, 'GET', `/api/v1/payments/${created.body.paymentId}`)).status, 200);
      const denied = await post(body(), read.secretKey);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.code, 'PERMISSION_DENIED');
      assert.equal((await post(body(), '')).status, 401);
    });
  });

  describe('listing payments', () => {
    it('filters by status, storeId (id or code), customerId and reference, with cursor pagination', async () => {
      const lm = await createMerchant(t, 'Lister');
      const store = await createStore(t, lm.id, { code: 'list-store' });
      const cus = (await t.api(lm.testKey, 'POST', '/api/v1/customers', { email: 'l@example.pf' })).body;
      const mk = (over: Record<string, unknown>) => post(body(over), lm.testKey);
      const a = await mk({ storeId: 'list-store', order: { reference: 'A-1', amount: 100, currency: 'EUR' } });
      const b = await mk({ customerId: cus.id, order: { reference: 'B-1', amount: 100, currency: 'EUR' } });
      const c = await mk({ order: { reference: 'C-1', amount: 100, currency: 'EUR' } });
      const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((p) => p.id);
      const get = (q: string) => t.api(lm.testKey, 'GET', `/api/v1/payments${q}`);
      assert.deepEqual(ids(await get(`?storeId=${store.id}`)), [a.body.paymentId]);
      assert.deepEqual(ids(await get('?storeId=list-store')), [a.body.paymentId]);
      assert.deepEqual(ids(await get(`?customerId=${cus.id}`)), [b.body.paymentId]);
      assert.deepEqual(ids(await get('?reference=C-1')), [c.body.paymentId]);
      const spr = (await t.api(lm.testKey, 'GET', `/api/v1/payments/${c.body.paymentId}`)).body.reference;
      assert.deepEqual(ids(await get(`?reference=${spr}`)), [c.body.paymentId]);
      assert.equal((await get('?status=pending')).body.data.length, 3);
      assert.equal((await get('?status=captured')).body.data.length, 0);
      assertValidation(await get('?status=paid'), 'status');
      const page1 = await get('?limit=2');
      assert.equal(page1.body.data.length, 2);
      assert.equal(page1.body.hasMore, true);
      const page2 = await get(`?limit=2&startingAfter=${page1.body.data[1].id}`);
      assert.equal(page2.body.hasMore, false);
      assert.deepEqual(
        [...ids(page1), ...ids(page2)].sort(),
        [a.body.paymentId, b.body.paymentId, c.body.paymentId].sort(),
      );
    });
  });

  describe('requests of the existing integrations (docs/compatibility.md)', () => {
    it('Medusa: order {reference, amount, currency}, redirectUrl, notificationUrl, externalId = its session id', async () => {
      const res = await post({
        order: { reference: 'payses_01J', amount: 2500, currency: 'EUR' },
        redirectUrl: 'https://store.example/checkout/return',
        notificationUrl: 'https://medusa.example/hooks/payment/mobupay_mobupay',
        externalId: 'payses_01J',
      }, m.testKey, { 'idempotency-key': 'payses_01J' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.ok(res.body.paymentId && res.body.checkoutUrl);
      const p = (await t.api(m.testKey, 'GET', `/api/v1/payments/${res.body.paymentId}`)).body;
      assert.equal(p.status, 'pending');
    });

    it('n8n and Flutter: email of an unknown buyer and externalId as a correlation id', async () => {
      const res = await post({
        order: { reference: 'ORDER-1042', amount: 5000, currency: 'XPF' },
        redirectUrl: 'monapp://paiement-retour',
        notificationUrl: 'https://n8n.example/webhook/motu',
        externalId: 'ORDER-1042',
        email: 'buyer@example.pf',
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.externalId, 'ORDER-1042');
      assert.equal(res.body.status, 'pending');
      assert.ok(!Number.isNaN(Date.parse(res.body.expiresAt)));
      const p = (await t.api(m.testKey, 'GET', `/api/v1/payments/${res.body.paymentId}`)).body;
      assert.equal(typeof p.amount, 'number');
      assert.equal(p.amount, 5000);
      assert.equal(p.currency, 'XPF');
      assert.equal(p.amountCents, 4190);
      assert.equal(p.externalId, 'ORDER-1042');
    });

    it('Odoo: full order with items, taxes, buyer, delivery, invoicing and a store code', async () => {
      await createStore(t, m.id, { code: 'odoo-shop', name: 'Odoo shop' });
      const res = await post({
        order: {
          reference: 'S00042-1', amount: 11_988, currency: 'XPF', discount: 2,
          items: [
            { product: 'Chaise', unitPrice: 5_995, quantity: 2, discount: 0, taxDetail: [{ id: 'TGC 11%', type: 'PERCENTAGE', value: 1100 }] },
            { product: 'Vente au poids', unitPrice: 0, quantity: 1, description: 'Quantité : 1.35' },
          ],
          buyer: {
            id: '7', email: 'client@example.nc', phone: '+687 00 00 00', firstName: 'Marie', lastName: 'Dupont',
            billingAddress: { street: '1 rue de Sébastopol', complement: 'BP 12', city: 'Nouméa', postalCode: '98800', country: 'NC', label: 'SARL Dupont' },
          },
          delivery: { mode: 'Livraison', address: { street: '2 rue Anatole France', city: 'Nouméa', postalCode: '98800', country: 'NC' } },
          invoicing: { enabled: true, send: true, operationType: 'GOODS' },
        },
        redirectUrl: 'https://odoo.example/payment/mobupay/return?reference=S00042-1',
        notificationUrl: 'https://odoo.example/payment/mobupay/webhook',
        externalId: 'S00042-1',
        email: 'client@example.nc',
        storeId: 'odoo-shop',
      }, m.testKey, { 'idempotency-key': 'odoo-S00042-1' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.store.code, 'odoo-shop');
      const p = (await t.api(m.testKey, 'GET', `/api/v1/payments/${res.body.paymentId}`)).body;
      // What Odoo's poll reads: id, status, externalId, originalAmount, amountCents, originalCurrency, currency.
      assert.equal(p.id, res.body.paymentId);
      assert.equal(p.externalId, 'S00042-1');
      assert.equal(p.originalAmount, 11_988);
      assert.equal(p.originalCurrency, 'XPF');
      assert.equal(p.amountCents, 10_046); // 11,988 × 0.838 = 10,045.944 → 10,046
      assert.equal(p.order.invoicing.operationType, 'GOODS');
    });
  });

  describe('with MOTU_ALLOW_LOOPBACK_URLS false', () => {
    const { t: strict, m: sm } = withMerchantApp(dialect, { checkAnswers: true, env: { MOTU_ALLOW_LOOPBACK_URLS: 'false' } });

    it('refuses http loopback URLs when MOTU_ALLOW_LOOPBACK_URLS is false', async () => {
      const res = await strict.api(sm.testKey, 'POST', '/api/v1/payments/sessions', body({ notificationUrl: 'http://localhost:9000/hook' }));
      assertValidation(res, 'notificationUrl');
    });
  });
});
