// Refunds through HTTP on every database: partial, beyond what is left, final by default, in XPF, concurrent (never
// beyond the captured amount, exactly one final), and retried under one Idempotency-Key; each with its one event.
// Payments are authorized through the checkout's own server-side path (token endpoint, then the pay call).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { paymentEvents } from './support/events.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';

eachDatabase('refunds', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now' });
  const get = async (id: string) => (await t.api(m.key, 'GET', `/api/v1/payments/${id}`)).body;
  const post = (url: string, body?: unknown) => t.api(m.key, 'POST', url, body);

  it('XPF refunds: partial, beyond, final by default; each emits one event with the refund fields', async () => {
    const id = await paidPayment(t, m.key, { amount: 1000, currency: 'XPF' });
    const captured = (await paymentEvents(t, id)).find((e) => e.type === 'payment.captured')!;
    // 1000 XPF = 838 c; commission 21 c + 3 c → 29 XPF; fixed 29 c → 35 XPF; Σ 53 c → 63 XPF (lines: 64)
    assert.equal(captured.data.amount, 838);
    assert.equal(captured.data.currency, 'EUR');
    assert.equal(captured.data.grossAmount, 1000);
    assert.equal(captured.data.originalCurrency, 'XPF');
    assert.equal(captured.data.settlement.currency, 'XPF');
    assert.equal(captured.data.settlement.mobupayCommission, 63);
    assert.equal(captured.data.settlement.netAmount, 937);
    assert.equal(captured.data.settlement.detailedFees.reduce((s: number, l: any) => s + l.totalAmount, 0), 64);
    assert.equal(captured.data.settlement.detailedFees.reduce((s: number, l: any) => s + l.totalAmountEur, 0), 53);

    const conflict = await post(`/api/v1/payments/${id}/refund`, { amountCents: 400, amount: 300 });
    assert.equal(conflict.status, 400);
    assert.equal(conflict.body.code, 'VALIDATION_ERROR');
    const unknownField = await post(`/api/v1/payments/${id}/refund`, { amountEur: 400 });
    assert.equal(unknownField.status, 400);

    const first = await post(`/api/v1/payments/${id}/refund`, { amountCents: 400, amount: 400, reason: 'damaged' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.match(first.body.id, /^re_/);
    assert.equal(first.body.originalAmount, 400);
    assert.equal(first.body.originalCurrency, 'XPF');
    assert.equal(first.body.amountCents, 335); // 400 × 0.838 = 335.2 → 335
    const beyond = await post(`/api/v1/payments/${id}/refund`, { amount: 601 });
    assert.equal(beyond.status, 422);
    assert.equal(beyond.body.code, 'REFUND_EXCEEDS_CAPTURED');
    assert.equal(beyond.body.details.refundable, 600);
    clock.advance(1000); // refunds list oldest first: give the second one a later instant
    const rest = await post(`/api/v1/payments/${id}/refund`, {});
    assert.equal(rest.status, 201);
    assert.equal(rest.body.originalAmount, 600);
    const none = await post(`/api/v1/payments/${id}/refund`);
    assert.equal(none.status, 422);
    assert.equal(none.body.code, 'REFUND_EXCEEDS_CAPTURED');

    const refundEvents = (await paymentEvents(t, id)).filter((e) => e.type.includes('refunded'));
    assert.deepEqual(refundEvents.map((e) => e.type), ['payment.partially_refunded', 'payment.refunded']);
    const [partial, final] = refundEvents.map((e) => e.data);
    assert.deepEqual(
      [partial.refundId, partial.refundOriginalAmount, partial.totalRefundedOriginalAmount, partial.remainingOriginalAmount, partial.status],
      [first.body.id, 400, 400, 600, 'partially_refunded'],
    );
    assert.deepEqual(
      [final.refundId, final.refundOriginalAmount, final.totalRefundedOriginalAmount, final.remainingOriginalAmount, final.status],
      [rest.body.id, 600, 1000, 0, 'refunded'],
    );
    assert.equal(final.originalCurrency, 'XPF');
    assert.equal(final.amount, 838);
    // Fees already taken stay; each refund adds its own line.
    assert.equal(final.settlement.mobupayCommission, 63);
    assert.deepEqual(final.settlement.detailedFees.map((l: any) => l.id), ['spirit_commission', 'spirit_fixed_fee', 'authorization_result', 'refund', 'refund']);
    assert.equal(partial.settlement.detailedFees.length, 4);

    const list = await t.api(m.key, 'GET', `/api/v1/payments/${id}/refunds`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((r: any) => [r.id, r.amount, r.status, r.reason]), [[first.body.id, 400, 'succeeded', 'damaged'], [rest.body.id, 600, 'succeeded', null]]);
    const detail = await get(id);
    assert.equal(detail.status, 'refunded');
    assert.equal(detail.refundedAmount, 1000);
    assert.equal(detail.refunds.length, 2);
    assert.equal(detail.settlement.mobupayCommission, 63);
    assert.equal(detail.attempts.length, 1);
  });

  it('20 concurrent refunds never exceed the captured amount, and exactly one says refunded', async () => {
    const id = await paidPayment(t, m.key, { amount: 1000 });
    const results = await Promise.all(Array.from({ length: 20 }, () => post(`/api/v1/payments/${id}/refund`, { amountCents: 50 })));
    assert.deepEqual(results.map((r) => r.status), Array(20).fill(201));
    const types = (await paymentEvents(t, id)).map((e) => e.type).filter((type) => type.includes('refunded'));
    assert.equal(types.filter((type) => type === 'payment.refunded').length, 1);
    assert.equal(types.filter((type) => type === 'payment.partially_refunded').length, 19);

    const other = await paidPayment(t, m.key, { amount: 1000 });
    const tries = await Promise.all(Array.from({ length: 20 }, () => post(`/api/v1/payments/${other}/refund`, { amountCents: 70 })));
    assert.equal(tries.filter((r) => r.status === 201).length, 14);
    assert.ok(tries.filter((r) => r.status !== 201).every((r) => r.status === 422 && r.body.code === 'REFUND_EXCEEDS_CAPTURED'));
    const detail = await get(other);
    assert.equal(detail.refundedAmount, 980);
    assert.equal(detail.status, 'partially_refunded');
    const remaining = (await paymentEvents(t, other)).filter((e) => e.type === 'payment.partially_refunded').map((e) => e.data.remainingOriginalAmount).sort((a, b) => a - b);
    assert.deepEqual(remaining, Array.from({ length: 14 }, (_, i) => 20 + 70 * i));
  });

  it('a refund retried with the same Idempotency-Key is one refund', async () => {
    const id = await paidPayment(t, m.key, { amount: 1000 });
    const headers = { 'idempotency-key': `refund-${id}` };
    const [a, b] = await Promise.all([
      t.api(m.key, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 300 }, headers),
      t.api(m.key, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 300 }, headers),
    ]);
    const c = await t.api(m.key, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 300 }, headers);
    assert.ok([a, b].some((r) => r.status === 201));
    assert.equal(c.status, 201);
    assert.equal(c.body.id, (a.status === 201 ? a : b).body.id);
    assert.equal((await get(id)).refundedAmount, 300);
    assert.equal((await t.api(m.key, 'GET', `/api/v1/payments/${id}/refunds`)).body.data.length, 1);
  });
});
