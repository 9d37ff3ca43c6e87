// A platform's API (/api/v1/platform): onboarding sessions and cases, and its sellers; the operator's review of cases
// (/admin/v1/onboarding-cases). Thin: the rules live in onboarding.service.ts.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams, ListOf, ListQuery, Nullable } from '../../http/schemas.js';
import { doc as adminDoc } from '../merchants/merchants.routes.js';
import { DEFAULT_SESSION_SECONDS, MAX_SESSION_SECONDS, type OnboardingService } from './onboarding.service.js';

const STATUSES = ['SUBMITTED', 'IN_REVIEW', 'APPROVED', 'CORRECTION_REQUESTED', 'REFUSED'] as const;
const EnrollmentStatus = Type.Union(STATUSES.map((s) => Type.Literal(s)));

export const SessionBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254, description: "the business's address" }),
  businessName: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'shown on the form' })),
  returnUrl: Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS URL the business returns to once it has submitted the form' }),
  refreshUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS URL of the platform that issues a new session; shown when this one is expired, cancelled or used' })),
  expiresIn: Type.Optional(Type.Integer({ minimum: 300, maximum: MAX_SESSION_SECONDS, description: `seconds; default ${DEFAULT_SESSION_SECONDS} (7 days)` })),
  caseId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'obc_… of a case in CORRECTION_REQUESTED: the form corrects it' })),
}, { additionalProperties: false });

const Time = Type.String({ format: 'date-time' });

export const OnboardingSession = Type.Object({
  id: Type.String({ description: 'obs_…' }),
  url: Type.String({ description: 'the hosted form to send the business to' }),
  status: Type.Union([Type.Literal('open'), Type.Literal('completed'), Type.Literal('expired'), Type.Literal('cancelled')]),
  email: Type.String(),
  businessName: Nullable(Type.String()),
  returnUrl: Type.String(),
  refreshUrl: Nullable(Type.String()),
  caseId: Nullable(Type.String({ description: 'the case it corrects, or the case its form submitted' })),
  expiresAt: Time,
  createdAt: Time,
  completedAt: Nullable(Time),
  cancelledAt: Nullable(Time),
});

const Address = Type.Object({
  line1: Type.String(), line2: Type.Optional(Type.String()), postalCode: Type.String(), city: Type.String(), country: Type.String(),
});

export const OnboardingCase = Type.Object({
  id: Type.String({ description: 'obc_…' }),
  enrollmentStatus: EnrollmentStatus,
  email: Type.String(),
  legalName: Type.String(),
  registrationNumber: Type.String(),
  address: Address,
  representative: Type.Object({ firstName: Type.String(), lastName: Type.String() }),
  bankAccount: Type.Object({ country: Type.String(), last4: Type.String(), currency: Type.String() }, { description: 'the IBAN is never returned' }),
  reasons: Nullable(Type.Array(Type.String(), { description: 'why corrections are asked or the case was refused' })),
  submissions: Type.Integer({ description: 'how many times the form submitted it' }),
  merchantId: Nullable(Type.String({ description: 'the seller, once approved' })),
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  createdAt: Time,
  updatedAt: Time,
  decidedAt: Nullable(Time),
});

const Amounts = Type.Array(Type.Object({ currency: Type.String(), amount: Type.Integer({ description: 'minor units' }) }));

export const Seller = Type.Object({
  id: Type.String({ description: 'mer_…' }),
  name: Type.String(),
  legalName: Nullable(Type.String()),
  registrationNumber: Nullable(Type.String()),
  state: Type.Union([Type.Literal('open'), Type.Literal('pending')], { description: 'open: its payment account can collect' }),
  openedAt: Nullable(Time),
  caseId: Nullable(Type.String()),
  linkedAt: Time,
  unlinkedAt: Nullable(Time),
  balance: Type.Object({ available: Amounts, pending: Amounts }, { description: "the seller's balance in this mode" }),
});

const List = Type.Object({ ...ListQuery }, { additionalProperties: false });
const tags = ['platforms'];

export function platformRoutes(service: OnboardingService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Static<typeof SessionBody> }>(
      '/platform/onboarding-sessions',
      { schema: { tags, summary: 'Create an onboarding session: a hosted form a business fills in to become your seller', body: SessionBody, response: { 201: OnboardingSession } } },
      async (request, reply) => reply.code(201).send(await service.createSession(merchantOf(request), request.body)),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/platform/onboarding-sessions/:id',
      { schema: { tags, summary: 'Read an onboarding session', params: IdParams, response: { 200: OnboardingSession } } },
      async (request) => service.getSession(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/platform/onboarding-sessions/:id/cancel',
      { schema: { tags, summary: 'Cancel an open onboarding session (its link stops working)', params: IdParams, response: { 200: OnboardingSession } } },
      async (request) => service.cancelSession(merchantOf(request), request.params.id),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/platform/onboarding-cases/:id',
      { schema: { tags, summary: 'Read an onboarding case and its enrollment status', params: IdParams, response: { 200: OnboardingCase } } },
      async (request) => service.getCase(merchantOf(request), request.params.id),
    );
    app.get<{ Querystring: Static<typeof List> }>(
      '/platform/merchants',
      { schema: { tags, summary: 'List your sellers, newest link first', querystring: List, response: { 200: ListOf(Seller) } } },
      async (request) => service.listSellers(merchantOf(request), request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/platform/merchants/:id',
      { schema: { tags, summary: 'Read one of your sellers', params: IdParams, response: { 200: Seller } } },
      async (request) => service.getSeller(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/platform/merchants/:id/unlink',
      { schema: { tags, summary: 'Unlink a seller: it can no longer be paid through you; its account stays open', params: IdParams, response: { 200: Seller } } },
      async (request) => service.unlink(merchantOf(request), request.params.id),
    );
  };
}

export const DecisionBody = Type.Object({
  enrollmentStatus: Type.Union([Type.Literal('APPROVED'), Type.Literal('CORRECTION_REQUESTED'), Type.Literal('REFUSED')]),
  reasons: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: 10, description: 'required for CORRECTION_REQUESTED and REFUSED' })),
}, { additionalProperties: false });

const AdminCase = Type.Object({ ...OnboardingCase.properties, platformId: Type.String() });

export function onboardingAdminRoutes(service: OnboardingService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: Static<typeof List> }>(
      '/onboarding-cases',
      { schema: { ...adminDoc, summary: 'Onboarding cases awaiting a decision (IN_REVIEW), oldest first', querystring: List, response: { 200: ListOf(AdminCase) } } },
      async (request) => service.casesInReview(request.query),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof DecisionBody> }>(
      '/onboarding-cases/:id/decision',
      { schema: { ...adminDoc, summary: 'Decide an onboarding case in review: APPROVED creates the seller', params: IdParams, body: DecisionBody, response: { 200: AdminCase } } },
      async (request) => service.decide(request.params.id, request.body),
    );
  };
}
