// Wallet API (docs/wallet.md): wallet sessions, card links, payment methods, dedup by fingerprint, removal events.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onlyOn } from './support/profile.js';
import { eachDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createMerchant, createCustomer } from './support/factories.js';
import { saveCard, walletSession } from './support/wallet.js';
import { tokenize } from './support/payments.js';
import { CARDS } from './support/cards.js';
import { eventsOfType } from './support/events.js';

eachDatabase('wallet', (dialect) => {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
  const { t, m } = withMerchantApp(dialect, { checkAnswers: true, clock });

  test('a wallet session: 201 with redirectUrl, sessionId, expiresAt 14 minutes later', async () => {
    const customerId = await createCustomer(t, m.key);
    const res = await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/back', locale: 'en' });
    assert.equal(res.status, 201);
    assert.match(res.body.sessionId, /^ses_[0-9A-Za-z]{22}$/);
    assert.equal(res.body.redirectUrl, `http://localhost:3000/wallet/${res.body.sessionId}`);
    assert.equal(Date.parse(res.body.expiresAt) - clock.now().getTime(), 14 * 60 * 1000);
  });

  test('the customer by email or externalId in the body; 404 when nobody matches', async () => {
    const customerId = await createCustomer(t, m.key, { email: 'hina@example.pf', externalId: 'crm-77' });
    const byEmail = await t.api(m.key, 'POST', '/api/v1/customers/unknown/sessions', { returnUrl: 'https://shop.example/b', email: 'HINA@example.pf' });
    assert.equal(byEmail.status, 201);
    assert.equal(byEmail.body.customerId, customerId);
    const byExternal = await t.api(m.key, 'POST', '/api/v1/customers/unknown/sessions', { returnUrl: 'https://shop.example/b', externalId: 'crm-77' });
    assert.equal(byExternal.body.customerId, customerId);
    const none = await t.api(m.key, 'POST', '/api/v1/customers/cus_nobody/sessions', { returnUrl: 'https://shop.example/b' });
    assert.equal(none.status, 404);
    assert.equal(none.body.code, 'NOT_FOUND');
    // the other mode's key never sees the customer
    const live = await t.api(m.otherModeKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/b' });
    assert.equal(live.status, 404);
  });

  test('validation: returnUrl HTTPS (loopback allowed in test mode), locale 2 to 5 characters, no unknown field', { skip: onlyOn('simulator', 'loopback return URLs are a test-mode allowance') }, async () => {
    const customerId = await createCustomer(t, m.key);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ returnUrl: 'http://shop.example/back' }, 'returnUrl'],
      [{ returnUrl: 'javascript:alert(1)' }, 'returnUrl'],
      [{}, 'returnUrl'],
      [{ returnUrl: 'https://shop.example/back', locale: 'f' }, 'locale'],
      [{ returnUrl: 'https://shop.example/back', locale: 'fr-FR-x' }, 'locale'],
      [{ returnUrl: 'https://shop.example/back', amount: 100 }, 'amount'],
    ];
    for (const [body, field] of cases) {
      const res = await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/sessions`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.equal(res.body.details.field, field, JSON.stringify(res.body));
    }
    const loop = await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'http://127.0.0.1:8080/back', locale: 'fr-FR' });
    assert.equal(loop.status, 201);
  });

  test('wallet sessions and card links take an HTTPS returnUrl only: an app scheme is 400 and creates nothing', async () => {
    const customerId = await createCustomer(t, m.key);
    const before = await t.db.kysely.selectFrom('payment_sessions').select('id').execute();
    for (const returnUrl of ['myapp://cards', 'com.example.app:/callback']) {
      const session = await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl });
      assert.equal(session.status, 400, returnUrl);
      assert.equal(session.body.code, 'VALIDATION_ERROR');
      assert.equal(session.body.details.field, 'returnUrl');
      const link = await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/card-links`, { returnUrl });
      assert.equal(link.status, 400, returnUrl);
      assert.equal(link.body.code, 'VALIDATION_ERROR');
      assert.equal(link.body.details.field, 'returnUrl');
    }
    assert.equal((await t.db.kysely.selectFrom('payment_sessions').select('id').execute()).length, before.length);
    // A payment session's redirectUrl keeps its app schemes (mobile apps).
    const pay = await t.api(m.key, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 1000, currency: 'EUR' }, redirectUrl: 'myapp://paid', notificationUrl: 'https://shop.example/hook',
    });
    assert.equal(pay.status, 201, JSON.stringify(pay.body));
  });

  test('registering a card: zero-amount verification, a pm_ with brand, network, last4, expiry, fingerprint, never the number', { skip: onlyOn('simulator', "Motu's own card fields and their tokens; the registration in Monext's widget: test/monext.test.ts") }, async () => {
    const customerId = await createCustomer(t, m.key);
    const { session, result } = await saveCard(t, m.key, customerId, CARDS.cbVisa);
    assert.equal(result.status, 'succeeded');
    assert.match(result.paymentMethodId, /^pm_/);
    const back = new URL(result.redirectUrl);
    assert.equal(back.origin + back.pathname, 'https://shop.example/wallet');
    assert.equal(back.searchParams.get('x'), '1');
    assert.equal(back.searchParams.get('status'), 'success');
    assert.equal(back.searchParams.get('paymentMethodId'), result.paymentMethodId);

    const pm = await t.api(m.key, 'GET', `/api/v1/payment-methods/${result.paymentMethodId}`);
    assert.equal(pm.status, 200);
    assert.equal(pm.body.customerId, customerId);
    assert.equal(pm.body.brand, 'VISA');
    assert.equal(pm.body.network, 'CB');
    assert.equal(pm.body.last4, '0006');
    assert.equal(pm.body.expMonth, 12);
    assert.ok(pm.body.expYear > 2026);
    assert.ok(pm.body.fingerprint.length >= 16);
    assert.equal(pm.body.status, 'active');
    assert.ok(!JSON.stringify(pm.body).includes(CARDS.cbVisa));
    assert.ok(!('acquirerCardRef' in pm.body));

    // no authorization was made (nothing to refund)
    const auths = await t.db.kysely.selectFrom('acquirer_authorizations').select('id').execute();
    assert.equal(auths.length, 0);

    const added = (await eventsOfType(t, 'payment_method.added')).filter((e) => e.data.id === result.paymentMethodId);
    assert.equal(added.length, 1);
    assert.equal(added[0].data.customerId, customerId);
    assert.equal(added[0].data.cardLast4, '0006');

    // the session is complete: the browser is refused from now on
    const again = await t.api(undefined, 'GET', `/api/v1/sdk/sessions/${session.sessionId}`);
    assert.equal(again.status, 410);
    const fields = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.visa, expMonth: 12, expYear: 2040, cvc: '123', session: session.sessionId });
    assert.equal(fields.status, 410, 'its card fields get no more tokens');
    const elsewhere = await walletSession(t, m.key, customerId);
    const resubmit = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${session.sessionId}/submit`, { token: await tokenize(t, elsewhere.sessionId, CARDS.visa) });
    assert.equal(resubmit.status, 410);
  });

  test('a card saved twice keeps one pm_ (same fingerprint), one payment_method.added', async () => {
    const customerId = await createCustomer(t, m.key);
    const first = await saveCard(t, m.key, customerId, CARDS.mastercard);
    const second = await saveCard(t, m.key, customerId, CARDS.mastercard);
    assert.equal(second.result.paymentMethodId, first.result.paymentMethodId);
    const list = await t.api(m.key, 'GET', `/api/v1/customers/${customerId}/payment-methods`);
    assert.equal(list.body.data.length, 1);
    const added = (await eventsOfType(t, 'payment_method.added')).filter((e) => e.data.customerId === customerId);
    assert.equal(added.length, 1);
    // another customer saving the same card gets their own pm_
    const other = await createCustomer(t, m.key);
    const third = await saveCard(t, m.key, other, CARDS.mastercard);
    assert.notEqual(third.result.paymentMethodId, first.result.paymentMethodId);
  });

  test('the same card saved concurrently in two sessions: one pm_, one event', async () => {
    const customerId = await createCustomer(t, m.key);
    const sessions = await Promise.all([walletSession(t, m.key, customerId), walletSession(t, m.key, customerId), walletSession(t, m.key, customerId)]);
    const tokens = await Promise.all(sessions.map((s) => tokenize(t, s.sessionId, CARDS.cbVisa)));
    const results = await Promise.all(sessions.map((s, i) => t.api(undefined, 'POST', `/api/v1/sdk/sessions/${s.sessionId}/submit`, { token: tokens[i] })));
    for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(new Set(results.map((r) => r.body.paymentMethodId)).size, 1);
    const added = (await eventsOfType(t, 'payment_method.added')).filter((e) => e.data.customerId === customerId);
    assert.equal(added.length, 1);
  });

  test('a refused verification: status=failed, nothing saved; an unfit browser: status=error', { skip: onlyOn('simulator', "the unfit browser is a simulator card (Monext's widget checks the browser itself)") }, async () => {
    const customerId = await createCustomer(t, m.key);
    const { result } = await saveCard(t, m.key, customerId, CARDS.declined);
    assert.equal(result.status, 'failed');
    assert.equal(new URL(result.redirectUrl).searchParams.get('status'), 'failed');
    assert.equal(new URL(result.redirectUrl).searchParams.get('paymentMethodId'), null);
    const unfit = await saveCard(t, m.key, customerId, CARDS.browserUnfit);
    assert.equal(unfit.result.status, 'error');
    assert.equal(unfit.result.code, 'NAVIGATEUR_INCOMPATIBLE');
    assert.equal(new URL(unfit.result.redirectUrl).searchParams.get('status'), 'error');
    const list = await t.api(m.key, 'GET', `/api/v1/customers/${customerId}/payment-methods`);
    assert.equal(list.body.data.length, 0);
  });

  test('list newest first with pagination; delete → payment_method.removed reason deleted', async () => {
    const customerId = await createCustomer(t, m.key);
    const a = await saveCard(t, m.key, customerId, CARDS.visa);
    clock.advance(1000);
    const b = await saveCard(t, m.key, customerId, CARDS.mastercard);
    const page1 = await t.api(m.key, 'GET', `/api/v1/customers/${customerId}/payment-methods?limit=1`);
    assert.deepEqual(page1.body.data.map((p: any) => p.id), [b.result.paymentMethodId]);
    assert.equal(page1.body.hasMore, true);
    const page2 = await t.api(m.key, 'GET', `/api/v1/customers/${customerId}/payment-methods?limit=1&startingAfter=${b.result.paymentMethodId}`);
    assert.deepEqual(page2.body.data.map((p: any) => p.id), [a.result.paymentMethodId]);
    assert.equal(page2.body.hasMore, false);

    const del = await t.api(m.key, 'DELETE', `/api/v1/payment-methods/${a.result.paymentMethodId}`);
    assert.equal(del.status, 200);
    assert.equal(del.body.status, 'removed');
    assert.equal(del.body.removedReason, 'deleted');
    const removed = (await eventsOfType(t, 'payment_method.removed')).filter((e) => e.data.id === a.result.paymentMethodId);
    assert.equal(removed.length, 1);
    assert.equal(removed[0].data.reason, 'deleted');
    const twice = await t.api(m.key, 'DELETE', `/api/v1/payment-methods/${a.result.paymentMethodId}`);
    assert.equal(twice.status, 422);
    const active = await t.api(m.key, 'GET', `/api/v1/customers/${customerId}/payment-methods`);
    assert.deepEqual(active.body.data.map((p: any) => p.id), [b.result.paymentMethodId]);
    const all = await t.api(m.key, 'GET', `/api/v1/customers/${customerId}/payment-methods?status=all`);
    assert.equal(all.body.data.length, 2);
    // a deleted card saved again is a new payment method
    const c = await saveCard(t, m.key, customerId, CARDS.visa);
    assert.notEqual(c.result.paymentMethodId, a.result.paymentMethodId);
    // other merchants and the live key see nothing
    const other = await createMerchant(t, 'Other');
    assert.equal((await t.api(other.testKey, 'GET', `/api/v1/payment-methods/${b.result.paymentMethodId}`)).status, 404);
    assert.equal((await t.api(m.otherModeKey, 'GET', `/api/v1/payment-methods/${b.result.paymentMethodId}`)).status, 404);
    assert.equal((await t.api(other.testKey, 'DELETE', `/api/v1/payment-methods/${b.result.paymentMethodId}`)).status, 404);
  });

  test('test helper: disabled and unknown_at_acquirer removals; test keys only', { skip: onlyOn('simulator', 'a test-mode helper') }, async () => {
    const customerId = await createCustomer(t, m.key);
    const a = await saveCard(t, m.key, customerId, CARDS.visa);
    const b = await saveCard(t, m.key, customerId, CARDS.mastercard);
    for (const [pm, reason] of [[a.result.paymentMethodId, 'disabled'], [b.result.paymentMethodId, 'unknown_at_acquirer']] as const) {
      const res = await t.api(m.key, 'POST', `/api/v1/test-helpers/payment-methods/${pm}/invalidate`, { reason });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.removedReason, reason);
      const ev = (await eventsOfType(t, 'payment_method.removed')).filter((e) => e.data.id === pm);
      assert.equal(ev.length, 1);
      assert.equal(ev[0].data.reason, reason);
    }
    const bad = await t.api(m.key, 'POST', `/api/v1/test-helpers/payment-methods/${a.result.paymentMethodId}/invalidate`, { reason: 'deleted' });
    assert.equal(bad.status, 400);
    const live = await t.api(m.liveKey, 'POST', `/api/v1/test-helpers/payment-methods/${a.result.paymentMethodId}/invalidate`, { reason: 'disabled' });
    assert.equal(live.status, 403);
  });

  test('an expired wallet session is refused to the browser', async () => {
    const customerId = await createCustomer(t, m.key);
    const session = await walletSession(t, m.key, customerId);
    clock.advance(14 * 60 * 1000 + 1);
    const res = await t.api(undefined, 'GET', `/api/v1/sdk/sessions/${session.sessionId}`);
    assert.equal(res.status, 410);
    assert.equal(res.body.code, 'SESSION_EXPIRED');
    const page = await t.api(undefined, 'GET', `/wallet/${session.sessionId}`);
    assert.equal(page.status, 302);
  });

  test('card links: 7 days by default, GET, cancel, completed by a registration', async () => {
    const customerId = await createCustomer(t, m.key);
    const res = await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/card-links`, { locale: 'en', sendEmail: true });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.id, /^cl_/);
    assert.equal(res.body.status, 'open');
    assert.equal(res.body.url, `http://localhost:3000/wallet/${res.body.sessionId}`);
    assert.equal(Date.parse(res.body.expiresAt) - clock.now().getTime(), 7 * 24 * 3600 * 1000);
    assert.equal(res.body.sendEmail, true);

    const custom = await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/card-links`, { expiresIn: 3600, returnUrl: 'https://shop.example/cards' });
    assert.equal(Date.parse(custom.body.expiresAt) - clock.now().getTime(), 3600 * 1000);
    const token = await tokenize(t, custom.body.sessionId, CARDS.visa);
    const submitted = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${custom.body.sessionId}/submit`, { token });
    assert.equal(submitted.body.status, 'succeeded');
    const done = await t.api(m.key, 'GET', `/api/v1/card-links/${custom.body.id}`);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.outcome, 'success');
    assert.equal(done.body.paymentMethodId, submitted.body.paymentMethodId);
    assert.equal((await t.api(m.key, 'POST', `/api/v1/card-links/${custom.body.id}/cancel`)).status, 422);

    // a link without returnUrl ends on our own result page
    const token2 = await tokenize(t, res.body.sessionId, CARDS.mastercard);
    const noReturn = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${res.body.sessionId}/submit`, { token: token2 });
    assert.equal(noReturn.body.redirectUrl, `http://localhost:3000/wallet/${res.body.sessionId}/done`);

    const third = await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/card-links`, {});
    const cancelled = await t.api(m.key, 'POST', `/api/v1/card-links/${third.body.id}/cancel`);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal((await t.api(undefined, 'GET', `/api/v1/sdk/sessions/${third.body.sessionId}`)).status, 410);

    const fourth = await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/card-links`, { expiresIn: 60 });
    clock.advance(61_000);
    assert.equal((await t.api(m.key, 'GET', `/api/v1/card-links/${fourth.body.id}`)).body.status, 'expired');
    assert.equal((await t.api(m.key, 'POST', '/api/v1/customers/cus_none/card-links', {})).status, 404);
    assert.equal((await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/card-links`, { expiresIn: 10 })).status, 400);
  });
});
