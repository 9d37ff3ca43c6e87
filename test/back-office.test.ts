// The back-office's sign-in and its use of the merchant API, through HTTP on every database: set-up links, the
// session cookie and its flags, CSRF refusal, roles (each allowed and refused action), the audit log, the lockout,
// two-factor with recovery codes, idle expiry, the team, API keys, settings and a payment's timeline.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { clientFor, cookieOf, createUser, PASSWORD, signedInUser, signIn, type UserClient } from './support/back-office.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paidPayment } from './support/payments.js';

const SESSION_BODY = {
  order: { reference: 'BO-1', amount: 2500, currency: 'XPF' },
  redirectUrl: 'https://shop.example/return', notificationUrl: 'https://shop.example/hook',
};

function totpCode(secret: string, at: Date): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at.getTime() });
}

eachDatabase('back-office', (dialect) => {
  const clock = new ManualClock(new Date('2027-03-01T08:00:00.000Z'));
  const { t, m } = withMerchantApp(dialect, { clock });

  it('a set-up link sets the password once and signs in with a secure session cookie; me, sign-out', async () => {
    const { token, setupUrl } = await createUser(t, m.id, 'Owner@Shop.example', 'owner');
    assert.match(setupUrl, /^http:\/\/localhost:3000\/dashboard\/setup\/usr_[0-9A-Za-z]{22}\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual((await t.api(undefined, 'GET', `/dashboard/api/setup/${token}`)).body, { email: 'owner@shop.example', merchantName: 'Fare Ute' });
    const short = await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: 'short' });
    assert.equal(short.status, 400);
    assert.equal(short.body.fields[0].field, 'password');
    const forged = await t.api(undefined, 'POST', '/dashboard/api/setup', { token: token.slice(0, -2) + 'xx', password: PASSWORD });
    assert.equal(forged.status, 404, 'a link with a wrong signature opens nothing');
    const done = await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const setCookie = String(done.headers['set-cookie']);
    assert.match(setCookie, /^motu_dashboard=[0-9A-Za-z]{43};/);
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Lax/);
    assert.doesNotMatch(setCookie, /Secure/, 'an http public URL cannot carry a Secure cookie');
    assert.equal(done.body.user.email, 'owner@shop.example');
    assert.equal(done.body.user.role, 'owner');
    assert.equal(done.body.mode, 'test');
    assert.equal(done.body.merchant.timezone, 'Pacific/Tahiti');
    assert.equal((await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD })).status, 404, 'a link works once');

    const user = clientFor(t, done.body.user.id, 'owner@shop.example', cookieOf(done.headers), done.body.csrfToken);
    assert.equal((await user.call('GET', '/dashboard/api/me')).body.user.id, user.id);
    assert.equal((await user.call('POST', '/dashboard/api/sign-out', undefined, { csrf: false })).status, 403, 'sign-out needs the CSRF token too');
    assert.equal((await user.call('POST', '/dashboard/api/sign-out')).status, 204);
    assert.equal((await user.call('GET', '/dashboard/api/me')).status, 401);
    assert.equal((await user.call('GET', '/api/v1/payments')).status, 401, 'the ended session opens no API call');
    const again = await signIn(t, 'OWNER@shop.example ');
    assert.equal(again.status, 200, 'the email is matched whatever its case');
  });

  it('with the cookie the back-office calls the merchant API; a change without the CSRF token is refused and changes nothing; changes are audited', async () => {
    const user = await signedInUser(t, m.id, 'owner');
    const before = (await t.api(m.testKey, 'GET', '/api/v1/payments?limit=100')).body.data.length;
    const forged = await user.call('POST', '/api/v1/payments/sessions', SESSION_BODY, { csrf: false });
    assert.equal(forged.status, 403);
    assert.equal(forged.body.code, 'CSRF_TOKEN_INVALID');
    const wrong = await user.call('POST', '/api/v1/payments/sessions', SESSION_BODY, { csrf: false, headers: { 'x-csrf-token': 'x'.repeat(32) } });
    assert.equal(wrong.status, 403);
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/payments?limit=100')).body.data.length, before, 'nothing was created');

    const made = await user.call('POST', '/api/v1/payments/sessions', SESSION_BODY, { headers: { 'idempotency-key': 'bo-session-1' } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal((await t.api(m.testKey, 'GET', `/api/v1/payments/${made.body.paymentId}`)).status, 200, 'made in test mode, the key sees it');
    assert.equal((await t.api(m.liveKey, 'GET', `/api/v1/payments/${made.body.paymentId}`)).status, 404);
    const cancelled = await user.call('POST', `/api/v1/payments/${made.body.paymentId}/cancel`, {});
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));

    const audit = (await user.call('GET', `/dashboard/api/audit?objectId=${made.body.paymentId}`)).body.data;
    assert.deepEqual(audit.map((a: { action: string }) => a.action).sort(), ['POST /api/v1/payments/:id/cancel', 'POST /api/v1/payments/sessions']);
    for (const entry of audit) {
      assert.deepEqual(entry.actedBy, { userId: user.id });
      assert.equal(entry.user.id, user.id);
      assert.equal(entry.user.email, user.email);
      assert.equal(entry.outcome, 'succeeded');
    }
    clock.advance(1000);
    const refused = await user.call('POST', `/api/v1/payments/${made.body.paymentId}/capture`, {});
    assert.equal(refused.status, 422);
    const last = (await user.call('GET', '/dashboard/api/audit?limit=1')).body.data[0];
    assert.equal(last.action, 'POST /api/v1/payments/:id/capture');
    assert.equal(last.outcome, 'failed');
    assert.equal(last.statusCode, 422);

    // The mode switch: live from now on, for this session only.
    assert.equal((await user.call('POST', '/dashboard/api/mode', { mode: 'live' })).body.mode, 'live');
    assert.equal((await user.call('GET', `/api/v1/payments/${made.body.paymentId}`)).status, 404, 'a test payment is not seen in live mode');
    assert.equal((await user.call('POST', '/api/v1/test-helpers/test-clocks', { frozenTime: '2027-03-01T00:00:00.000Z' })).status, 403);
    await user.call('POST', '/dashboard/api/mode', { mode: 'test' });
  });

  it('each role may take its actions and no others', async () => {
    const other = await createMerchant(t, 'Other');
    const paymentId = await paidPayment(t, m.testKey);
    const users: Record<string, UserClient> = {};
    for (const role of ['admin', 'developer', 'support', 'analyst'] as const) users[role] = await signedInUser(t, m.id, role);
    const { admin, developer, support, analyst } = users as Record<'admin' | 'developer' | 'support' | 'analyst', UserClient>;

    for (const user of [admin!, developer!, support!, analyst!]) {
      assert.equal((await user.call('GET', `/api/v1/payments/${paymentId}`)).status, 200, 'every role reads');
    }
    // Refunds: support and up, not analyst.
    const analystRefund = await analyst!.call('POST', `/api/v1/payments/${paymentId}/refund`, { amount: 100 });
    assert.equal(analystRefund.status, 403);
    assert.equal(analystRefund.body.code, 'PERMISSION_DENIED');
    assert.equal((await support!.call('POST', `/api/v1/payments/${paymentId}/refund`, { amount: 100 })).status, 201);
    assert.equal((await developer!.call('POST', `/api/v1/payments/${paymentId}/refund`, { amount: 100 })).status, 201);
    // Support refunds and nothing else.
    assert.equal((await support!.call('POST', '/api/v1/payments/sessions', SESSION_BODY)).status, 403);
    assert.equal((await support!.call('POST', '/api/v1/webhook-endpoints', { url: 'https://shop.example/h', events: ['*'] })).status, 403);
    // Secrets: owner, admin, developer only.
    assert.equal((await developer!.call('GET', '/api/v1/webhooks/signing-secret')).status, 200);
    assert.equal((await support!.call('GET', '/api/v1/webhooks/signing-secret')).status, 403);
    assert.equal((await analyst!.call('GET', '/api/v1/webhooks/signing-secret')).status, 403);
    assert.equal((await analyst!.call('GET', '/dashboard/api/keys')).status, 403);
    // Where the money goes: not the developer.
    const iban = { iban: 'FR7630006000010000000000152', holderName: 'Fare Ute', currency: 'EUR' };
    assert.equal((await developer!.call('POST', '/api/v1/bank-accounts', iban)).status, 403);
    assert.equal((await developer!.call('PATCH', '/api/v1/payout-schedule', { interval: 'manual' })).status, 403);
    assert.equal((await admin!.call('POST', '/api/v1/bank-accounts', iban)).status, 201);
    // Settings and the team: owner and admin.
    assert.equal((await developer!.call('PATCH', '/dashboard/api/settings', { displayName: 'X' })).status, 403);
    assert.equal((await admin!.call('PATCH', '/dashboard/api/settings', { displayName: 'Fare Ute Shop' })).body.displayName, 'Fare Ute Shop');
    assert.equal((await developer!.call('POST', '/dashboard/api/users', { email: 'x@shop.example', role: 'analyst' })).status, 403);
    assert.equal((await admin!.call('POST', '/dashboard/api/users', { email: 'boss@shop.example', role: 'owner' })).status, 403, 'only an owner makes an owner');
    // Another merchant's team sees none of this merchant's activity, nor its payments.
    const stranger = await signedInUser(t, other.id, 'owner');
    assert.deepEqual((await stranger.call('GET', '/dashboard/api/audit')).body.data, []);
    assert.equal((await stranger.call('GET', `/api/v1/payments/${paymentId}`)).status, 404);
    // Another merchant's payment is not there at all.
    const foreign = await paidPayment(t, other.testKey);
    assert.equal((await admin!.call('GET', `/api/v1/payments/${foreign}`)).status, 404);
    assert.equal((await admin!.call('GET', `/dashboard/api/payments/${foreign}/timeline`)).status, 404);
  });

  it('ten failed sign-ins lock the account 15 minutes, even with the right password; then it opens again', async () => {
    const user = await signedInUser(t, m.id, 'analyst');
    for (let i = 1; i <= 9; i++) {
      const res = await signIn(t, user.email, 'wrong password!!');
      assert.equal(res.status, 401, `attempt ${i}`);
      assert.equal(res.body.code, 'INVALID_CREDENTIALS');
    }
    const tenth = await signIn(t, user.email, 'wrong password!!');
    assert.equal(tenth.status, 429);
    assert.equal(tenth.body.code, 'ACCOUNT_LOCKED');
    const locked = await signIn(t, user.email);
    assert.equal(locked.status, 429, 'the right password is refused while locked');
    assert.equal(locked.body.details.retryAfterSeconds, 900);
    const unknown = await signIn(t, 'nobody@shop.example');
    assert.equal(unknown.status, 401, 'an unknown address gets the same answer as a wrong password');
    assert.equal(unknown.body.code, 'INVALID_CREDENTIALS');
    clock.advance(15 * 60_000 + 1000);
    assert.equal((await signIn(t, user.email)).status, 200);
  });

  it('two-factor: enrolment confirmed by a code, sign-in asks for it, a code and each recovery code work once', async () => {
    const user = await signedInUser(t, m.id, 'developer');
    const setup = await user.call('POST', '/dashboard/api/two-factor/setup');
    assert.equal(setup.status, 200);
    assert.match(setup.body.otpauthUrl, /^otpauth:\/\/totp\/Motu:/);
    assert.match(setup.body.qrSvg, /^<svg/);
    assert.equal((await user.call('POST', '/dashboard/api/two-factor/enable', { code: '000000' })).status, 400);
    const enabled = await user.call('POST', '/dashboard/api/two-factor/enable', { code: totpCode(setup.body.secret, clock.now()) });
    assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
    const codes: string[] = enabled.body.recoveryCodes;
    assert.equal(new Set(codes).size, 10);

    const withoutCode = await signIn(t, user.email);
    assert.equal(withoutCode.status, 401);
    assert.equal(withoutCode.body.code, 'TWO_FACTOR_REQUIRED');
    assert.equal(withoutCode.headers['set-cookie'], undefined);
    assert.equal((await signIn(t, user.email, PASSWORD, totpCode(setup.body.secret, clock.now()))).body.code, 'INVALID_TWO_FACTOR_CODE', 'the enrolment code is used up');
    clock.advance(30_000);
    const code = totpCode(setup.body.secret, clock.now());
    assert.equal((await signIn(t, user.email, PASSWORD, code)).status, 200);
    assert.equal((await signIn(t, user.email, PASSWORD, code)).status, 401, 'a code is good once');
    assert.equal((await signIn(t, user.email, PASSWORD, codes[0]!.toUpperCase())).status, 200, 'a recovery code, however typed');
    assert.equal((await signIn(t, user.email, PASSWORD, codes[0])).status, 401, 'each recovery code once');
    assert.equal((await signIn(t, user.email, 'wrong password!!', code)).body.code, 'INVALID_CREDENTIALS');
    assert.equal((await user.call('GET', '/dashboard/api/me')).body.user.twoFactorEnabled, true);
    assert.equal((await user.call('POST', '/dashboard/api/two-factor/disable', { password: 'not my password' })).status, 400);
    assert.equal((await user.call('POST', '/dashboard/api/two-factor/disable', { password: PASSWORD })).status, 204);
    assert.equal((await signIn(t, user.email)).status, 200);
  });

  it('a session ends after 12 hours without a request', async () => {
    const user = await signedInUser(t, m.id, 'analyst');
    clock.advance(11 * 3600_000);
    assert.equal((await user.call('GET', '/dashboard/api/me')).status, 200, 'a request keeps it alive');
    clock.advance(11 * 3600_000);
    assert.equal((await user.call('GET', '/dashboard/api/me')).status, 200);
    clock.advance(12 * 3600_000 + 1000);
    assert.equal((await user.call('GET', '/dashboard/api/me')).status, 401);
    assert.equal((await user.call('GET', '/api/v1/payments')).status, 401);
  });

  it('the team: invitations show their link without a mailer, roles change, the last owner stays, removal ends sessions', async () => {
    const merchant = await createMerchant(t, 'Team Shop');
    const owner = await signedInUser(t, merchant.id, 'owner');
    clock.advance(1000);
    const invited = await owner.call('POST', '/dashboard/api/users', { email: 'new@team.example', role: 'support' });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    assert.equal(invited.body.emailSent, false);
    assert.equal(invited.body.user.status, 'invited');
    assert.match(invited.body.setupUrl, /\/dashboard\/setup\/usr_/);
    assert.equal((await owner.call('POST', '/dashboard/api/users', { email: 'new@team.example', role: 'support' })).status, 409);
    const bad = await owner.call('POST', '/dashboard/api/users', { email: 'not-an-email', role: 'support' });
    assert.equal(bad.status, 400);
    const token = String(invited.body.setupUrl).split('/').at(-1);
    const setUp = await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD });
    const newcomer = clientFor(t, setUp.body.user.id, 'new@team.example', cookieOf(setUp.headers), setUp.body.csrfToken);
    const list = (await owner.call('GET', '/dashboard/api/users')).body.data;
    assert.deepEqual(list.map((u: { email: string; role: string; status: string }) => [u.role, u.status]), [['owner', 'active'], ['support', 'active']]);

    assert.equal((await owner.call('PATCH', `/dashboard/api/users/${owner.id}`, { role: 'admin' })).body.code, 'LAST_OWNER');
    assert.equal((await owner.call('DELETE', `/dashboard/api/users/${owner.id}`)).body.code, 'LAST_OWNER');
    assert.equal((await owner.call('PATCH', `/dashboard/api/users/${newcomer.id}`, { role: 'admin' })).body.role, 'admin');
    assert.equal((await newcomer.call('GET', '/dashboard/api/me')).body.user.role, 'admin', 'the new role counts at once');
    assert.equal((await newcomer.call('DELETE', `/dashboard/api/users/${owner.id}`)).status, 403, 'an admin does not remove an owner');
    assert.equal((await owner.call('DELETE', `/dashboard/api/users/${newcomer.id}`)).status, 204);
    assert.equal((await newcomer.call('GET', '/dashboard/api/me')).status, 401, 'a removed user is signed out everywhere');
    assert.equal((await signIn(t, 'new@team.example')).status, 401);
    assert.equal((await owner.call('DELETE', `/dashboard/api/users/${user404()}`)).status, 404);
    const activity = (await owner.call('GET', `/dashboard/api/audit?userId=${owner.id}`)).body.data.map((a: { action: string }) => a.action);
    assert.ok(activity.includes('POST /dashboard/api/users') && activity.includes('DELETE /dashboard/api/users/:id'), activity.join());
  });

  it('API keys: listed without their secret, created in the current mode and shown once, revoked; another merchant’s is 404', async () => {
    const user = await signedInUser(t, m.id, 'developer');
    const created = await user.call('POST', '/dashboard/api/keys', { permission: 'read' });
    assert.equal(created.status, 201);
    assert.match(created.body.secretKey, /^sk_test_/);
    assert.equal(created.body.permission, 'read');
    assert.equal((await t.api(created.body.secretKey, 'GET', '/api/v1/payments')).status, 200);
    const listed = (await user.call('GET', '/dashboard/api/keys')).body.data;
    const row = listed.find((k: { id: string }) => k.id === created.body.id);
    assert.equal(row.last4, created.body.secretKey.slice(-4));
    assert.equal(JSON.stringify(listed).includes(created.body.secretKey), false, 'never the secret again');
    assert.ok(listed.every((k: { mode: string }) => k.mode === 'test'));
    assert.equal((await user.call('DELETE', `/dashboard/api/keys/${created.body.id}`)).body.revokedAt !== null, true);
    assert.equal((await t.api(created.body.secretKey, 'GET', '/api/v1/payments')).status, 401);
    const other = await createMerchant(t, 'Keys Other');
    const theirs = (await t.admin('POST', `/admin/v1/merchants/${other.id}/keys`, { mode: 'test' })).body.id;
    assert.equal((await user.call('DELETE', `/dashboard/api/keys/${theirs}`)).status, 404);
  });

  it('a payment’s timeline: attempts with refusal codes, capture, refund, events with deliveries, and who did what', async () => {
    const user = await signedInUser(t, m.id, 'owner');
    const session = await createSession(t, m.testKey, { captureMode: 'MANUAL', amount: 5000 });
    const { paySession } = await import('./support/payments.js');
    const { CARDS } = await import('./support/cards.js');
    const declined = await t.api(undefined, 'POST', `/checkout/${session.sessionId}/pay`, {
      token: (await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.declined, expMonth: 12, expYear: 2040, cvc: '123', session: session.sessionId })).body.token,
    });
    assert.equal(declined.status, 200);
    clock.advance(1000);
    await paySession(t, session.sessionId);
    assert.equal((await user.call('POST', `/api/v1/payments/${session.paymentId}/capture`, {})).status, 200);
    clock.advance(1000);
    assert.equal((await user.call('POST', `/api/v1/payments/${session.paymentId}/refund`, { amount: 1000 })).status, 201);
    const timeline = (await user.call('GET', `/dashboard/api/payments/${session.paymentId}/timeline`)).body;
    assert.equal(timeline.payment.id, session.paymentId);
    assert.deepEqual(timeline.attempts.map((a: { status: string; refusalCode: string | null }) => [a.status, a.refusalCode]), [['refused', 'card_declined'], ['captured', null]]);
    assert.equal(timeline.refunds.length, 1);
    const types = timeline.events.map((e: { type: string }) => e.type);
    assert.deepEqual(types, ['payment.failed', 'payment.authorized', 'payment.captured', 'payment.partially_refunded'].filter((x) => types.includes(x)));
    assert.ok(types.includes('payment.captured'), types.join());
    assert.ok(timeline.events.every((e: { deliveries: unknown[] }) => Array.isArray(e.deliveries) && e.deliveries.length >= 1), 'each event with its deliveries');
    assert.deepEqual(timeline.audit.map((a: { action: string; user: { email: string } }) => [a.action, a.user.email]), [
      ['POST /api/v1/payments/:id/capture', user.email], ['POST /api/v1/payments/:id/refund', user.email],
    ]);
    const home = (await user.call('GET', '/dashboard/api/home')).body;
    assert.equal(home.volume.length, 30);
    assert.ok(home.volume.at(-1).count >= 1, 'today counts the payment captured');
    assert.ok(home.recentPayments.length >= 1);
  });
});

function user404(): string {
  return 'usr_0000000000000000000000';
}
