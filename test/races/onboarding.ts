// The onboarding rows of the race table (test/races.test.ts, docs/reliability.md "Races"): a platform's onboarding
// session is used once and cancelled once, and an onboarding case is decided once, whatever the concurrency: one
// seller created, each event recorded once.
import assert from 'node:assert/strict';
import { race, assertTally, countEvents, succeeded, type RaceApp, type RaceRow } from '../support/races.js';
import { createOnboardingSession, makePlatform, postOnboardingForm, sellerForm } from '../support/platforms.js';

const PARALLEL = 20;

/** A platform of its own and an open onboarding session of it in `mode`. */
async function openSession({ t }: RaceApp, mode: 'test' | 'live') {
  const p = await makePlatform(t, `Races ${mode}`);
  const key = mode === 'test' ? p.testKey : p.liveKey;
  return { p, key, session: await createOnboardingSession(t, key) };
}

/** The case of a used session. */
async function caseOf({ t }: RaceApp, key: string, sessionId: string): Promise<string | null> {
  return (await t.api(key, 'GET', `/api/v1/platform/onboarding-sessions/${sessionId}`)).body.caseId;
}

export const onboardingRaces: RaceRow[] = [
  race({
    name: `onboarding: ${PARALLEL} submissions of one session's form at once: one case, one seller, the other ${PARALLEL - 1} refused ONBOARDING_SESSION_NOT_OPEN`,
    setup: (app) => openSession(app, 'test'),
    // A program posting the form as JSON gets the API's answers (a browser's form gets pages with the same outcome).
    fire: ({ t }, s, i) => t.api(undefined, 'POST', `/onboarding/${s.session.token}`, sellerForm({ legalName: `Course ${i} SARL` })),
    invariant: async (app, s, answers) => {
      assertTally(answers, { 201: 1, '409 ONBOARDING_SESSION_NOT_OPEN': PARALLEL - 1 });
      const cases = await app.t.db.kysely.selectFrom('onboarding_cases').selectAll().where('platform_id', '=', s.p.id).execute();
      assert.equal(cases.length, 1, 'one case');
      assert.equal(await caseOf(app, s.key, s.session.id), cases[0]!.id);
      assert.equal(cases[0]!.enrollment_status, 'APPROVED');
      assert.equal(await countEvents(app.t, 'merchant.created', { data: { caseId: cases[0]!.id } }), 1);
      assert.equal(await countEvents(app.t, 'merchant.onboarding.updated', { data: { caseId: cases[0]!.id, enrollmentStatus: 'SUBMITTED' } }), 1);
      const sellers = (await app.t.api(s.key, 'GET', '/api/v1/platform/merchants')).body.data;
      assert.equal(sellers.length, 1, 'one seller linked');
      // The page, after: the link is used.
      assert.equal((await postOnboardingForm(app.t, s.session.token, sellerForm({ legalName: 'Late' }))).status, 410);
    },
  }),
  race({
    name: `onboarding: ${PARALLEL} operator decisions on one live case at once (approve, refuse, ask corrections): exactly one wins, at most one seller, each event once`,
    setup: async (app) => {
      const s = await openSession(app, 'live');
      const posted = await postOnboardingForm(app.t, s.session.token, sellerForm({ legalName: 'Decision SARL' }));
      assert.equal(posted.status, 303, posted.body);
      const caseId = (await caseOf(app, s.key, s.session.id))!;
      return { ...s, caseId };
    },
    fire: ({ t }, s, i) => t.admin('POST', `/admin/v1/onboarding-cases/${s.caseId}/decision`,
      i % 3 === 0 ? { enrollmentStatus: 'APPROVED' } : i % 3 === 1 ? { enrollmentStatus: 'REFUSED', reasons: ['race'] } : { enrollmentStatus: 'CORRECTION_REQUESTED', reasons: ['race'] }),
    invariant: async (app, s, answers) => {
      assertTally(answers, { 200: 1, '409 ONBOARDING_CASE_DECIDED': PARALLEL - 1 });
      const winner = succeeded(answers)[0]!.body;
      const kase = (await app.t.api(s.key, 'GET', `/api/v1/platform/onboarding-cases/${s.caseId}`)).body;
      assert.equal(kase.enrollmentStatus, winner.enrollmentStatus);
      const approved = winner.enrollmentStatus === 'APPROVED';
      assert.equal(await countEvents(app.t, 'merchant.onboarding.updated', { data: { caseId: s.caseId, previousStatus: 'IN_REVIEW' } }), 1);
      assert.equal(await countEvents(app.t, 'merchant.created', { data: { caseId: s.caseId } }), approved ? 1 : 0);
      assert.equal(await countEvents(app.t, 'merchant.linked', { data: { caseId: s.caseId } }), approved ? 1 : 0);
      assert.equal(await countEvents(app.t, 'merchant.rejected', { data: { caseId: s.caseId } }), approved ? 0 : 1);
      const sellers = await app.t.db.kysely.selectFrom('merchants').select('id').where('legal_name', '=', 'Decision SARL').execute();
      assert.equal(sellers.length, approved ? 1 : 0);
    },
  }),
  race({
    name: `onboarding: ${PARALLEL} cancels of one session at once: one cancels it, ${PARALLEL - 1} refused ONBOARDING_SESSION_NOT_OPEN, merchant.session.cancelled once`,
    setup: (app) => openSession(app, 'test'),
    fire: ({ t }, s) => t.api(s.key, 'POST', `/api/v1/platform/onboarding-sessions/${s.session.id}/cancel`),
    invariant: async (app, s, answers) => {
      assertTally(answers, { 200: 1, '409 ONBOARDING_SESSION_NOT_OPEN': PARALLEL - 1 });
      assert.equal(await countEvents(app.t, 'merchant.session.cancelled', { data: { sessionId: s.session.id } }), 1);
      assert.equal((await app.t.api(s.key, 'GET', `/api/v1/platform/onboarding-sessions/${s.session.id}`)).body.status, 'cancelled');
    },
  }),
];
