// Onboarding a platform's sellers, through HTTP on each database: sessions (create, read, cancel, expire), the hosted
// form, cases and their review (test mode by the legal name, live mode by the operator, the correction loop), the
// seller an approval creates, the platform's sellers and unlinking, and who sees what.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildServices } from '../src/compose.js';
import { main } from '../src/start/cli.js';
import { eachDatabase, ManualClock } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createMerchant } from './support/factories.js';
import {
  createOnboardingSession, makePlatform, onboardSeller, postOnboardingForm, SELLER_IBAN, sellerForm,
} from './support/platforms.js';

const clock = new ManualClock(new Date('2026-05-04T08:00:00.000Z'));

/** The platform's events in the order they were recorded, oldest first, of the types asked (all merchant.* by default). */
async function eventsOf(t: { api: (...a: any[]) => Promise<any> }, key: string, prefix = 'merchant.') {
  const res = await t.api(key, 'GET', '/api/v1/events?limit=100');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.data as Array<{ type: string; data: any }>).filter((e) => e.type.startsWith(prefix)).reverse();
}

async function motu(env: Record<string, string | undefined>, ...argv: string[]): Promise<{ code: number; out: any }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  if (env.DATABASE_URL === undefined) delete process.env.DATABASE_URL;
  const lines: string[] = [];
  try {
    const code = await main(argv, (line) => lines.push(line));
    return { code, out: JSON.parse(lines.join('\n')) };
  } finally {
    process.env = saved;
  }
}

eachDatabase('platforms: onboarding sellers', (dialect) => {
  const { t } = withApp(dialect, { clock });

  it('a key of a merchant that is not a platform gets 403 PERMISSION_DENIED on every platform route, and nothing is written', async () => {
    const m = await createMerchant(t, 'Not a platform');
    const calls: Array<[string, string, unknown?]> = [
      ['POST', '/api/v1/platform/onboarding-sessions', { email: 'a@example.pf', returnUrl: 'https://example.pf/r' }],
      ['GET', '/api/v1/platform/onboarding-sessions/obs_x'], ['POST', '/api/v1/platform/onboarding-sessions/obs_x/cancel'],
      ['GET', '/api/v1/platform/onboarding-cases/obc_x'], ['GET', '/api/v1/platform/merchants'],
      ['GET', '/api/v1/platform/merchants/mer_x'], ['POST', '/api/v1/platform/merchants/mer_x/unlink'],
    ];
    for (const [method, url, body] of calls) {
      const res = await t.api(m.testKey, method, url, body);
      assert.equal(res.status, 403, `${method} ${url}`);
      assert.equal(res.body.code, 'PERMISSION_DENIED');
    }
    const rows = await t.db.kysely.selectFrom('onboarding_sessions').select('id').where('platform_id', '=', m.id).execute();
    assert.equal(rows.length, 0);
    // The flag is read on every call: a key made before the merchant became a platform works once it is one, and stops when it is not.
    await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { platform: true });
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/platform/merchants')).status, 200);
    await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { platform: false });
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/platform/merchants')).status, 403);
  });

  it('creates a session (201, 7 days by default, merchant.session.created), reads it, and refuses bad input without writing', async () => {
    const p = await makePlatform(t, 'Sessions');
    const res = await t.api(p.testKey, 'POST', '/api/v1/platform/onboarding-sessions', {
      email: 'Vendeur@Example.pf', businessName: 'Vanille Tahaa', returnUrl: 'https://marketplace.example/back', refreshUrl: 'https://marketplace.example/refresh',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const s = res.body;
    assert.match(s.id, /^obs_[0-9A-Za-z]{22}$/);
    assert.equal(s.status, 'open');
    assert.equal(s.email, 'vendeur@example.pf');
    assert.equal(s.expiresAt, new Date(clock.now().getTime() + 7 * 86_400_000).toISOString());
    assert.match(s.url, new RegExp(`^http://localhost:3000/onboarding/${s.id}\\.[A-Za-z0-9_-]{43}$`));
    assert.deepEqual((await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-sessions/${s.id}`)).body, s);
    const [created] = await eventsOf(t, p.testKey);
    assert.deepEqual(created, { ...created, type: 'merchant.session.created', data: { sessionId: s.id, email: 'vendeur@example.pf', status: 'open', expiresAt: s.expiresAt } });

    const short = await t.api(p.testKey, 'POST', '/api/v1/platform/onboarding-sessions', { email: 'a@example.pf', returnUrl: 'https://example.pf/r', expiresIn: 3600 });
    assert.equal(short.body.expiresAt, new Date(clock.now().getTime() + 3_600_000).toISOString());

    const bad: Array<[Record<string, unknown>, string]> = [
      [{ email: 'not-an-email', returnUrl: 'https://example.pf/r' }, 'email'],
      [{ email: 'a@example.pf', returnUrl: 'http://example.pf/r' }, 'returnUrl'],
      [{ email: 'a@example.pf', returnUrl: 'https://example.pf/r', refreshUrl: 'javascript:alert(1)' }, 'refreshUrl'],
      [{ email: 'a@example.pf' }, 'returnUrl'],
      [{ email: 'a@example.pf', returnUrl: 'https://example.pf/r', expiresIn: 10 }, 'expiresIn'],
      [{ email: 'a@example.pf', returnUrl: 'https://example.pf/r', expiresIn: 31 * 86_400 }, 'expiresIn'],
      [{ email: 'a@example.pf', returnUrl: 'https://example.pf/r', iban: SELLER_IBAN }, 'iban'],
    ];
    const before = await t.db.kysely.selectFrom('onboarding_sessions').select('id').execute();
    for (const [body, field] of bad) {
      const r = await t.api(p.testKey, 'POST', '/api/v1/platform/onboarding-sessions', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.equal(r.body.details.field, field, JSON.stringify(r.body));
    }
    assert.equal((await t.db.kysely.selectFrom('onboarding_sessions').select('id').execute()).length, before.length);
    const unknownCase = await t.api(p.testKey, 'POST', '/api/v1/platform/onboarding-sessions', { email: 'a@example.pf', returnUrl: 'https://example.pf/r', caseId: 'obc_nosuch' });
    assert.equal(unknownCase.status, 404);
  });

  it('cancels an open session once (merchant.session.cancelled); its link then shows the refresh link (410)', async () => {
    const p = await makePlatform(t, 'Cancels');
    const s = await createOnboardingSession(t, p.testKey, { refreshUrl: 'https://marketplace.example/again' });
    const cancelled = await t.api(p.testKey, 'POST', `/api/v1/platform/onboarding-sessions/${s.id}/cancel`);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.ok(cancelled.body.cancelledAt);
    const again = await t.api(p.testKey, 'POST', `/api/v1/platform/onboarding-sessions/${s.id}/cancel`);
    assert.equal(again.status, 409);
    assert.deepEqual([again.body.code, again.body.details.status], ['ONBOARDING_SESSION_NOT_OPEN', 'cancelled']);
    const events = (await eventsOf(t, p.testKey)).map((e) => [e.type, e.data.status]);
    assert.deepEqual(events, [['merchant.session.created', 'open'], ['merchant.session.cancelled', 'cancelled']]);
    const page = await t.app.inject({ method: 'GET', url: `/onboarding/${s.token}?lang=en` });
    assert.equal(page.statusCode, 410);
    assert.match(page.body, /This onboarding link is no longer valid/);
    assert.match(page.body, /It was cancelled\./);
    assert.match(page.body, /href="https:\/\/marketplace\.example\/again"/);
    const posted = await postOnboardingForm(t, s.token, sellerForm({ legalName: 'Trop tard' }));
    assert.equal(posted.status, 410);
    assert.equal((await t.db.kysely.selectFrom('onboarding_cases').select('id').where('platform_id', '=', p.id).execute()).length, 0);
  });

  it('expires unused sessions: read as expired at once, merchant.session.expired once by the job, the page says so in French', async () => {
    const p = await makePlatform(t, 'Expiries');
    const s = await createOnboardingSession(t, p.testKey, { expiresIn: 600 });
    const used = await createOnboardingSession(t, p.testKey, { expiresIn: 600 });
    assert.equal((await postOnboardingForm(t, used.token, sellerForm({ legalName: 'Utilisée' }))).status, 303);
    clock.advance(601_000);
    try {
      assert.equal((await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-sessions/${s.id}`)).body.status, 'expired');
      assert.equal((await t.api(p.testKey, 'POST', `/api/v1/platform/onboarding-sessions/${s.id}/cancel`)).body.details.status, 'expired');
      const services = buildServices(t.config, t.db, t.clock);
      assert.ok(await services.onboarding.expireSessions() >= 1);
      assert.equal(await services.onboarding.expireSessions(), 0, 'once');
      const expired = (await eventsOf(t, p.testKey, 'merchant.session.expired'));
      assert.deepEqual(expired.map((e) => e.data), [{ sessionId: s.id, email: 'vendeur@example.pf', status: 'expired', expiresAt: s.expiresAt }]);
      const page = await t.app.inject({ method: 'GET', url: `/onboarding/${s.token}`, headers: { 'accept-language': 'fr-PF,fr;q=0.9' } });
      assert.equal(page.statusCode, 410);
      assert.match(page.body, /Il a expiré\./);
      assert.match(page.body, /Demandez un nouveau lien à Expiries/);
    } finally {
      clock.advance(-601_000);
    }
  });

  it('test mode: the form submitted approves the case; the seller is created, opened, given the IBAN and linked, in that order of events', async () => {
    const p = await makePlatform(t, 'Approvals');
    const s = await createOnboardingSession(t, p.testKey, { businessName: 'Perles de Rikitea' });
    const form = await t.app.inject({ method: 'GET', url: `/onboarding/${s.token}?lang=en` });
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /Become a seller on Approvals/);
    assert.match(form.body, /value="Perles de Rikitea"/);
    assert.match(String(form.headers['content-security-policy']), /form-action 'self'/);

    const posted = await postOnboardingForm(t, s.token, sellerForm({ legalName: 'Perles de Rikitea SARL', currency: 'XPF' }, { lang: 'en' }));
    assert.equal(posted.status, 303);
    assert.equal(posted.headers.location, `/onboarding/${s.token}/done?lang=en`);
    const done = await t.app.inject({ method: 'GET', url: String(posted.headers.location) });
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /Your seller account is open\./);
    assert.match(done.body, /href="https:\/\/marketplace\.example\/onboarded"/);

    const session = (await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-sessions/${s.id}`)).body;
    assert.equal(session.status, 'completed');
    assert.match(session.caseId, /^obc_[0-9A-Za-z]{22}$/);
    const kase = (await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-cases/${session.caseId}`)).body;
    assert.deepEqual({ ...kase, merchantId: undefined, createdAt: undefined, updatedAt: undefined, decidedAt: undefined }, {
      id: session.caseId, enrollmentStatus: 'APPROVED', email: 'vendeur@example.pf', legalName: 'Perles de Rikitea SARL', registrationNumber: 'TAHITI A12345',
      address: { line1: '12 rue du Général de Gaulle', postalCode: '98714', city: 'Papeete', country: 'PF' },
      representative: { firstName: 'Hina', lastName: 'Teriitahi' }, bankAccount: { country: 'FR', last4: SELLER_IBAN.slice(-4), currency: 'XPF' },
      reasons: null, submissions: 1, mode: 'test', merchantId: undefined, createdAt: undefined, updatedAt: undefined, decidedAt: undefined,
    });
    const sellerId = kase.merchantId as string;
    assert.match(sellerId, /^mer_/);

    const events = await eventsOf(t, p.testKey);
    const base = { platformId: p.id, caseId: kase.id };
    assert.deepEqual(events.map((e) => [e.type, e.data]), [
      ['merchant.session.created', { sessionId: s.id, email: 'vendeur@example.pf', status: 'open', expiresAt: s.expiresAt }],
      ['merchant.onboarding.updated', { caseId: kase.id, enrollmentStatus: 'SUBMITTED', previousStatus: null }],
      ['merchant.onboarding.updated', { caseId: kase.id, enrollmentStatus: 'IN_REVIEW', previousStatus: 'SUBMITTED' }],
      ['merchant.onboarding.updated', { caseId: kase.id, enrollmentStatus: 'APPROVED', previousStatus: 'IN_REVIEW' }],
      ['merchant.created', { merchantId: sellerId, ...base }],
      ['merchant.opened', { merchantId: sellerId, ...base }],
      ['merchant.linked', { merchantId: sellerId, ...base }],
    ]);
    // The seller: its legal identity, open, its default contract, and the case's IBAN as its default XPF account.
    const merchant = (await t.admin('GET', `/admin/v1/merchants/${sellerId}`)).body;
    assert.deepEqual([merchant.legalName, merchant.registrationNumber, merchant.address.city, merchant.platform], ['Perles de Rikitea SARL', 'TAHITI A12345', 'Papeete', false]);
    assert.ok(merchant.openedAt);
    assert.equal(merchant.contracts.filter((c: { isDefault: boolean }) => c.isDefault).length, 1);
    const key = (await t.admin('POST', `/admin/v1/merchants/${sellerId}/keys`, { mode: 'test' })).body.secretKey;
    const accounts = (await t.api(key, 'GET', '/api/v1/bank-accounts')).body.data;
    assert.deepEqual(accounts.map((a: any) => [a.country, a.last4, a.currency, a.default, a.holderName]), [['FR', SELLER_IBAN.slice(-4), 'XPF', true, 'Perles de Rikitea SARL']]);
    // The IBAN is sealed at rest and never answered.
    const row = await t.db.kysely.selectFrom('onboarding_cases').select('iban_sealed').where('id', '=', kase.id).executeTakeFirstOrThrow();
    assert.ok(!row.iban_sealed.includes(SELLER_IBAN.slice(4)));
    assert.ok(!JSON.stringify(kase).includes(SELLER_IBAN));

    // The platform's sellers.
    const list = (await t.api(p.testKey, 'GET', '/api/v1/platform/merchants')).body;
    assert.deepEqual(list.data.map((x: any) => [x.id, x.state, x.caseId, x.legalName]), [[sellerId, 'open', kase.id, 'Perles de Rikitea SARL']]);
    assert.deepEqual(list.data[0].balance, { available: [], pending: [] });
    assert.equal(list.hasMore, false);
    assert.deepEqual((await t.api(p.testKey, 'GET', `/api/v1/platform/merchants/${sellerId}`)).body, list.data[0]);
    assert.equal((await t.api(p.liveKey, 'GET', `/api/v1/platform/merchants/${sellerId}`)).status, 404, 'linked in test mode only');

    // The link is used: the form is closed and a second post changes nothing.
    const reopened = await t.app.inject({ method: 'GET', url: `/onboarding/${s.token}?lang=en` });
    assert.equal(reopened.statusCode, 410);
    assert.match(reopened.body, /already used/);
    assert.equal((await postOnboardingForm(t, s.token, sellerForm({ legalName: 'Encore' }))).status, 410);
    assert.equal((await eventsOf(t, p.testKey)).length, 7);
  });

  it('the form refuses bad fields with every error listed, the IBAN never echoed, nothing written', async () => {
    const p = await makePlatform(t, 'Form errors');
    const s = await createOnboardingSession(t, p.testKey);
    const bad = await postOnboardingForm(t, s.token, sellerForm({ legalName: '' }, { iban: 'FR7630006000011234567890188', country: 'France', birthDate: '2999-01-01', lang: 'en' }));
    assert.equal(bad.status, 400);
    assert.match(bad.body, /The form has 4 error\(s\)/);
    assert.match(bad.body, /id="legalName"[^>]*aria-invalid="true"/);
    assert.match(bad.body, /This IBAN is not valid/);
    assert.match(bad.body, /Enter a two-letter country code/);
    assert.match(bad.body, /Enter a date in the past/);
    assert.ok(!bad.body.includes('FR7630006000011234567890188'), 'the IBAN is not written back');
    assert.match(bad.body, /value="Papeete"/, 'the other answers are kept');
    assert.equal((await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-sessions/${s.id}`)).body.status, 'open');
    assert.equal((await t.db.kysely.selectFrom('onboarding_cases').select('id').where('platform_id', '=', p.id).execute()).length, 0);
    assert.equal((await eventsOf(t, p.testKey)).length, 1);
    const unknown = await t.app.inject({ method: 'GET', url: `/onboarding/${s.id}.${'A'.repeat(43)}` });
    assert.equal(unknown.statusCode, 404, 'a forged token opens nothing');
  });

  it('correction loop: "correction" asks for corrections (merchant.rejected); a session on the case corrects it, pre-filled but the IBAN, and it is approved', async () => {
    const p = await makePlatform(t, 'Corrections');
    const first = await createOnboardingSession(t, p.testKey);
    assert.equal((await postOnboardingForm(t, first.token, sellerForm({ legalName: 'Correction Motu SARL' }))).status, 303);
    const caseId = (await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-sessions/${first.id}`)).body.caseId;
    const kase = (await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-cases/${caseId}`)).body;
    assert.equal(kase.enrollmentStatus, 'CORRECTION_REQUESTED');
    assert.equal(kase.merchantId, null);
    assert.equal(kase.reasons.length, 1);
    const rejected = (await eventsOf(t, p.testKey)).filter((e) => e.type === 'merchant.rejected' || e.data.enrollmentStatus === 'CORRECTION_REQUESTED');
    assert.deepEqual(rejected.map((e) => [e.type, e.data]), [
      ['merchant.onboarding.updated', { caseId, enrollmentStatus: 'CORRECTION_REQUESTED', previousStatus: 'IN_REVIEW', reasons: kase.reasons }],
      ['merchant.rejected', { caseId, enrollmentStatus: 'CORRECTION_REQUESTED', reasons: kase.reasons }],
    ]);
    assert.equal((await t.api(p.testKey, 'GET', '/api/v1/platform/merchants')).body.data.length, 0);

    const second = await createOnboardingSession(t, p.testKey, { caseId });
    assert.equal((await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-sessions/${second.id}`)).body.caseId, caseId);
    const page = await t.app.inject({ method: 'GET', url: `/onboarding/${second.token}` });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Des corrections sont demandées/);
    assert.match(page.body, /value="Correction Motu SARL"/);
    assert.match(page.body, /id="iban" name="iban" value=""/);
    assert.equal((await postOnboardingForm(t, second.token, sellerForm({ legalName: 'Correction Motu SARL' }, { city: 'Faaa' }))).status, 303);
    const approved = (await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-cases/${caseId}`)).body;
    assert.deepEqual([approved.enrollmentStatus, approved.submissions, approved.address.city, approved.reasons], ['APPROVED', 2, 'Faaa', null]);
    const statuses = (await eventsOf(t, p.testKey, 'merchant.onboarding.updated')).map((e) => `${e.data.previousStatus}→${e.data.enrollmentStatus}`);
    assert.deepEqual(statuses, ['null→SUBMITTED', 'SUBMITTED→IN_REVIEW', 'IN_REVIEW→CORRECTION_REQUESTED', 'CORRECTION_REQUESTED→SUBMITTED', 'SUBMITTED→IN_REVIEW', 'IN_REVIEW→APPROVED']);
    // An approved case is no longer corrected.
    const late = await t.api(p.testKey, 'POST', '/api/v1/platform/onboarding-sessions', { email: 'a@example.pf', returnUrl: 'https://example.pf/r', caseId });
    assert.deepEqual([late.status, late.body.code, late.body.details.enrollmentStatus], [409, 'ONBOARDING_CASE_NOT_CORRECTABLE', 'APPROVED']);
  });

  it('"refuse" refuses the case for good: merchant.rejected, no seller, and a new session on it is 409 ONBOARDING_CASE_REFUSED', async () => {
    const p = await makePlatform(t, 'Refusals');
    const s = await createOnboardingSession(t, p.testKey);
    await postOnboardingForm(t, s.token, sellerForm({ legalName: 'Refuse Moi SAS' }, { lang: 'en' }));
    const done = await t.app.inject({ method: 'GET', url: `/onboarding/${s.token}/done?lang=en` });
    assert.match(done.body, /Your application was not accepted\./);
    const caseId = (await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-sessions/${s.id}`)).body.caseId;
    const kase = (await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-cases/${caseId}`)).body;
    assert.deepEqual([kase.enrollmentStatus, kase.merchantId], ['REFUSED', null]);
    const rejected = await eventsOf(t, p.testKey, 'merchant.rejected');
    assert.deepEqual(rejected.map((e) => e.data), [{ caseId, enrollmentStatus: 'REFUSED', reasons: kase.reasons }]);
    const again = await t.api(p.testKey, 'POST', '/api/v1/platform/onboarding-sessions', { email: 'a@example.pf', returnUrl: 'https://example.pf/r', caseId });
    assert.deepEqual([again.status, again.body.code], [409, 'ONBOARDING_CASE_REFUSED']);
    assert.equal((await eventsOf(t, p.testKey, 'merchant.created')).length, 0);
  });

  it('live mode: the case waits in review; the operator lists it and decides (API and CLI); a second decision is 409', async () => {
    const p = await makePlatform(t, 'Live platform');
    const s = await createOnboardingSession(t, p.liveKey);
    assert.equal((await postOnboardingForm(t, s.token, sellerForm({ legalName: 'Refuse pas en live' }))).status, 303);
    const caseId = (await t.api(p.liveKey, 'GET', `/api/v1/platform/onboarding-sessions/${s.id}`)).body.caseId;
    assert.equal((await t.api(p.liveKey, 'GET', `/api/v1/platform/onboarding-cases/${caseId}`)).body.enrollmentStatus, 'IN_REVIEW', 'no automatic decision in live mode');
    assert.equal((await t.app.inject({ method: 'GET', url: `/onboarding/${s.token}/done?lang=en` })).body.includes('is being reviewed'), true);
    const listed = await t.admin('GET', '/admin/v1/onboarding-cases');
    assert.equal(listed.status, 200);
    assert.ok(listed.body.data.some((c: any) => c.id === caseId && c.platformId === p.id && c.enrollmentStatus === 'IN_REVIEW'));

    const noReason = await t.admin('POST', `/admin/v1/onboarding-cases/${caseId}/decision`, { enrollmentStatus: 'CORRECTION_REQUESTED' });
    assert.deepEqual([noReason.status, noReason.body.details.field], [400, 'reasons']);
    const badStatus = await t.admin('POST', `/admin/v1/onboarding-cases/${caseId}/decision`, { enrollmentStatus: 'IN_REVIEW' });
    assert.equal(badStatus.status, 400);
    assert.equal((await t.admin('POST', '/admin/v1/onboarding-cases/obc_nosuch/decision', { enrollmentStatus: 'APPROVED' })).status, 404);

    const env = { MOTU_DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl, MOTU_PUBLIC_URL: 'http://localhost:3000', MOTU_SEED_DEMO: 'false', LOG_LEVEL: 'silent' };
    const cliList = await motu(env, 'onboarding-cases', 'list');
    assert.equal(cliList.code, 0);
    assert.ok(cliList.out.data.some((c: any) => c.id === caseId));
    const decided = await motu(env, 'onboarding-cases', 'decide', caseId, '--status', 'CORRECTION_REQUESTED', '--reason', 'The registration number is unreadable', '--reason', 'Give the address of the head office');
    assert.equal(decided.code, 0, JSON.stringify(decided.out));
    assert.deepEqual([decided.out.enrollmentStatus, decided.out.reasons], ['CORRECTION_REQUESTED', ['The registration number is unreadable', 'Give the address of the head office']]);
    const twice = await t.admin('POST', `/admin/v1/onboarding-cases/${caseId}/decision`, { enrollmentStatus: 'APPROVED' });
    assert.deepEqual([twice.status, twice.body.code, twice.body.details.enrollmentStatus], [409, 'ONBOARDING_CASE_DECIDED', 'CORRECTION_REQUESTED']);

    // Corrected in live mode: back in review, then approved by the operator.
    const fix = await createOnboardingSession(t, p.liveKey, { caseId });
    assert.equal((await postOnboardingForm(t, fix.token, sellerForm({ legalName: 'Refuse pas en live' }, { registrationNumber: 'TAHITI B99' }))).status, 303);
    const approved = await t.admin('POST', `/admin/v1/onboarding-cases/${caseId}/decision`, { enrollmentStatus: 'APPROVED' });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.match(approved.body.merchantId, /^mer_/);
    // (The CLI's decision ran on the system clock, the app on the suite's manual one: compare the seller's events among themselves.)
    const types = (await eventsOf(t, p.liveKey)).map((e) => e.type).filter((type) => ['merchant.created', 'merchant.opened', 'merchant.linked'].includes(type));
    assert.deepEqual(types, ['merchant.created', 'merchant.opened', 'merchant.linked']);
    assert.equal((await eventsOf(t, p.testKey)).length, 0, 'nothing in test mode');
    assert.equal((await t.api(p.liveKey, 'GET', `/api/v1/platform/merchants/${approved.body.merchantId}`)).body.state, 'open');
  });

  it('unlinks a seller (merchant.unlinked): gone from the list and 404 after, its own account still open and working', async () => {
    const p = await makePlatform(t, 'Unlinks');
    const seller = await onboardSeller(t, p.testKey, { legalName: 'Unlink SARL' });
    const res = await t.api(p.testKey, 'POST', `/api/v1/platform/merchants/${seller.merchantId}/unlink`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'open');
    assert.ok(res.body.unlinkedAt);
    const [unlinked] = await eventsOf(t, p.testKey, 'merchant.unlinked');
    assert.deepEqual(unlinked!.data, { merchantId: seller.merchantId, platformId: p.id, caseId: seller.caseId });
    assert.equal((await t.api(p.testKey, 'GET', `/api/v1/platform/merchants/${seller.merchantId}`)).status, 404);
    assert.equal((await t.api(p.testKey, 'POST', `/api/v1/platform/merchants/${seller.merchantId}/unlink`)).status, 404);
    assert.equal((await t.api(p.testKey, 'GET', '/api/v1/platform/merchants')).body.data.length, 0);
    assert.equal((await t.api(seller.secretKey, 'GET', '/api/v1/customers')).status, 200);
    assert.ok((await t.admin('GET', `/admin/v1/merchants/${seller.merchantId}`)).body.openedAt);
  });

  it('isolation: another platform, the other mode and the seller itself see none of a platform\'s sessions, cases and sellers', async () => {
    const p = await makePlatform(t, 'Owner platform');
    const other = await makePlatform(t, 'Other platform');
    const seller = await onboardSeller(t, p.testKey, { legalName: 'Isolée SARL' });
    const s = await createOnboardingSession(t, p.testKey);
    const urls = [
      `/api/v1/platform/onboarding-sessions/${s.id}`, `/api/v1/platform/onboarding-cases/${seller.caseId}`, `/api/v1/platform/merchants/${seller.merchantId}`,
    ];
    for (const url of urls) {
      assert.equal((await t.api(other.testKey, 'GET', url)).status, 404, url);
      assert.equal((await t.api(p.liveKey, 'GET', url)).status, 404, `live: ${url}`);
      assert.equal((await t.api(seller.secretKey, 'GET', url)).status, 403, `seller: ${url}`);
    }
    assert.equal((await t.api(other.testKey, 'POST', `/api/v1/platform/onboarding-sessions/${s.id}/cancel`)).status, 404);
    assert.equal((await t.api(other.testKey, 'POST', `/api/v1/platform/merchants/${seller.merchantId}/unlink`)).status, 404);
    assert.equal((await t.api(other.testKey, 'POST', '/api/v1/platform/onboarding-sessions', { email: 'a@example.pf', returnUrl: 'https://example.pf/r', caseId: seller.caseId })).status, 404);
    assert.equal((await t.api(other.testKey, 'GET', '/api/v1/platform/merchants')).body.data.length, 0);
    assert.equal((await eventsOf(t, other.testKey)).length, 0);
    assert.equal((await eventsOf(t, seller.secretKey)).length, 0, 'the seller hears none of the platform\'s events');
    assert.equal((await t.api(p.testKey, 'GET', `/api/v1/platform/onboarding-sessions/${s.id}`)).status, 200);
  });

  it('lists sellers a page at a time, newest link first', async () => {
    const p = await makePlatform(t, 'Pages');
    const ids: string[] = [];
    for (const name of ['Un', 'Deux', 'Trois']) {
      ids.push((await onboardSeller(t, p.testKey, { legalName: `${name} SARL` })).merchantId);
      clock.advance(1000);
    }
    const first = (await t.api(p.testKey, 'GET', '/api/v1/platform/merchants?limit=2')).body;
    assert.deepEqual([first.data.map((x: any) => x.id), first.hasMore], [[ids[2], ids[1]], true]);
    const next = (await t.api(p.testKey, 'GET', `/api/v1/platform/merchants?limit=2&startingAfter=${ids[1]}`)).body;
    assert.deepEqual([next.data.map((x: any) => x.id), next.hasMore], [[ids[0]], false]);
    assert.equal((await t.api(p.testKey, 'GET', '/api/v1/platform/merchants?startingAfter=mer_nosuch')).status, 400);
  });
});
