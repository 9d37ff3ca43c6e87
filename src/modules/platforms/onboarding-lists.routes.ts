// A platform's onboarding sessions and cases as lists, newest first (what the back-office's Onboarding page shows):
// the same views as reading one (platforms.routes.ts), in the key's mode, to the platform only.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Database } from '../../db/database.js';
import { merchantOf } from '../../http/auth.js';
import { ListOf, ListQuery } from '../../http/schemas.js';
import { invalidField } from '../../shared/errors.js';
import type { OnboardingService } from './onboarding.service.js';
import { requirePlatform } from './platform-links.js';
import { OnboardingCase, OnboardingSession } from './platforms.routes.js';

const SessionsQuery = Type.Object({
  ...ListQuery,
  status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('completed'), Type.Literal('expired'), Type.Literal('cancelled')], { description: 'only the sessions stored with this status (an open one past its expiry reads expired)' })),
}, { additionalProperties: false });
const CasesQuery = Type.Object({
  ...ListQuery,
  enrollmentStatus: Type.Optional(Type.Union(['SUBMITTED', 'IN_REVIEW', 'APPROVED', 'CORRECTION_REQUESTED', 'REFUSED'].map((s) => Type.Literal(s)))),
}, { additionalProperties: false });

type Table = 'onboarding_sessions' | 'onboarding_cases';

/** A page of the platform's rows of `table` in its mode, newest first, after the cursor (an id of this list). */
async function pageOf(db: Database, table: Table, owner: { merchantId: string; mode: string }, query: { limit?: number; startingAfter?: string }, filter?: [string, string]) {
  const limit = query.limit ?? 20;
  const k = db.kysely as unknown as import('kysely').Kysely<Record<Table, { id: string; platform_id: string; mode: string; created_at: string; [column: string]: unknown }>>;
  let q = k.selectFrom(table).selectAll().where('platform_id', '=', owner.merchantId).where('mode', '=', owner.mode)
    .where('invitation_id', 'is', null); // an agency's new clients are not the platform's
  if (filter) q = q.where(filter[0] as 'id', '=', filter[1]);
  if (query.startingAfter) {
    const cursor = await k.selectFrom(table).select(['id', 'created_at']).where('id', '=', query.startingAfter)
      .where('platform_id', '=', owner.merchantId).where('mode', '=', owner.mode).where('invitation_id', 'is', null).executeTakeFirst();
    if (!cursor) throw invalidField('startingAfter', 'is not an id from this list');
    q = q.where((eb) => eb.or([eb('created_at', '<', cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)])]));
  }
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

export function onboardingListRoutes(db: Database, service: OnboardingService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    const tags = ['platforms'];
    app.get<{ Querystring: Static<typeof SessionsQuery> }>(
      '/platform/onboarding-sessions',
      { schema: { tags, summary: 'List your onboarding sessions, newest first', querystring: SessionsQuery, response: { 200: ListOf(OnboardingSession) } } },
      async (request) => {
        const principal = merchantOf(request);
        await requirePlatform(db.kysely, principal);
        const page = await pageOf(db, 'onboarding_sessions', principal, request.query, request.query.status ? ['status', request.query.status] : undefined);
        return { data: page.rows.map((r) => service.sessionView(r as never)), hasMore: page.hasMore };
      },
    );
    app.get<{ Querystring: Static<typeof CasesQuery> }>(
      '/platform/onboarding-cases',
      { schema: { tags, summary: 'List your onboarding cases, newest first, with their enrollment status', querystring: CasesQuery, response: { 200: ListOf(OnboardingCase) } } },
      async (request) => {
        const principal = merchantOf(request);
        await requirePlatform(db.kysely, principal);
        const page = await pageOf(db, 'onboarding_cases', principal, request.query, request.query.enrollmentStatus ? ['enrollment_status', request.query.enrollmentStatus] : undefined);
        return { data: page.rows.map((r) => service.caseView(r as never)), hasMore: page.hasMore };
      },
    );
  };
}
