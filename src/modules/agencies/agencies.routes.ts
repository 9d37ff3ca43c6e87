// The agency API: an agency's invitations and portfolio (/agency/…), the client's acceptance (/agency-invitations/…)
// and the mandates as the client sees and changes them (/agency-mandates/…). Thin: each handler calls one service method.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { emptyBody } from '../../http/empty-body.js';
import { IdParams, ListOf, ListQuery, Nullable, type Expect, type Same } from '../../http/schemas.js';
import type { invitationView, mandateView } from './agencies.repository.js';
import { MAX_INVITATION_SECONDS, type AgencyInvitationsService } from './invitations.service.js';
import type { AgencyMandatesService } from './mandates.service.js';
import { SCOPES } from './scopes.js';

const ScopeList = Type.Array(Type.String({ minLength: 1, maxLength: 64, description: `one of ${SCOPES.join(', ')}` }), { minItems: 1, maxItems: SCOPES.length * 2 });
const Modes = Type.Union([Type.Literal('test'), Type.Literal('live')]);

const InvitationBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  scopes: ScopeList,
  expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: MAX_INVITATION_SECONDS, description: 'seconds until the invitation expires (default 7 days)' })),
}, { additionalProperties: false });

const Invitation = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'the hosted page the client opens to accept' }),
  email: Type.String(),
  scopes: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('cancelled'), Type.Literal('expired')]),
  mode: Modes,
  expiresAt: Type.String(),
  merchantId: Nullable(Type.String({ description: 'the client that accepted it' })),
  mandateId: Nullable(Type.String()),
  createdAt: Type.String(),
});
export type InvitationFitsView = Expect<Same<Static<typeof Invitation>, ReturnType<typeof invitationView>>>;

const Mandate = Type.Object({
  id: Type.String(),
  agencyId: Type.String(),
  agencyName: Nullable(Type.String()),
  merchantId: Type.String({ description: 'the client' }),
  merchantName: Nullable(Type.String({ description: "the client's name" })),
  mode: Modes,
  scopes: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  revokedBy: Nullable(Type.Union([Type.Literal('client'), Type.Literal('agency')])),
  revokedAt: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type MandateFitsView = Expect<Same<Static<typeof Mandate>, ReturnType<typeof mandateView>>>;
export { Mandate as MandateSchema };

const InvitationListQuery = Type.Object({
  ...ListQuery,
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('cancelled'), Type.Literal('expired')])),
}, { additionalProperties: false });
const PortfolioQuery = Type.Object({ ...ListQuery, status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('revoked')])) }, { additionalProperties: false });
const MandateListQuery = Type.Object(ListQuery, { additionalProperties: false });
const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 64 }) });
const ScopesBody = Type.Object({ scopes: ScopeList }, { additionalProperties: false });
const TransferBody = Type.Object({ agencyId: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
const EmptyBody = Type.Object({}, { additionalProperties: false });

/** Runs a change of a mandate apart from the agency's changes under it (the transport's gate; as it is without one). */
export type MandateChange = <T>(mandateId: string, change: () => Promise<T>) => Promise<T>;

export function agenciesRoutes(invitations: AgencyInvitationsService, mandates: AgencyMandatesService, apart: MandateChange = (_id, change) => change()) {
  return async function routes(app: FastifyInstance): Promise<void> {
    const tags = ['agencies'];
    app.post<{ Body: Static<typeof InvitationBody> }>(
      '/agency/invitations',
      { schema: { tags, summary: 'Invite a client to give this agency a mandate', body: InvitationBody, response: { 201: Invitation } } },
      async (request, reply) => reply.code(201).send(await invitations.create(merchantOf(request), request.body)),
    );
    app.get<{ Querystring: Static<typeof InvitationListQuery> }>(
      '/agency/invitations',
      { schema: { tags, summary: "The agency's invitations, newest first", querystring: InvitationListQuery, response: { 200: ListOf(Invitation) } } },
      async (request) => invitations.list(merchantOf(request), request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/agency/invitations/:id',
      { schema: { tags, summary: 'Read an invitation', params: IdParams, response: { 200: Invitation } } },
      async (request) => invitations.get(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/agency/invitations/:id/cancel',
      { preValidation: emptyBody, schema: { tags, summary: 'Cancel a pending invitation', params: IdParams, body: EmptyBody, response: { 200: Invitation } } },
      async (request) => invitations.cancel(merchantOf(request), request.params.id),
    );
    app.get<{ Querystring: Static<typeof PortfolioQuery> }>(
      '/agency/mandates',
      { schema: { tags, summary: "The agency's portfolio: its mandates, with each client's name", querystring: PortfolioQuery, response: { 200: ListOf(Mandate) } } },
      async (request) => mandates.listForAgency(merchantOf(request), request.query),
    );
    app.post<{ Params: Static<typeof TokenParams> }>(
      '/agency-invitations/:token/accept',
      { preValidation: emptyBody, schema: { tags, summary: 'The client accepts an invitation with its own key: the agency gets a mandate', params: TokenParams, body: EmptyBody, response: { 201: Mandate } } },
      async (request, reply) => reply.code(201).send(await invitations.accept(request.params.token, merchantOf(request))),
    );
    app.get<{ Querystring: Static<typeof MandateListQuery> }>(
      '/agency-mandates',
      { schema: { tags, summary: 'The mandates this account gave to agencies', querystring: MandateListQuery, response: { 200: ListOf(Mandate) } } },
      async (request) => mandates.listForClient(merchantOf(request), request.query),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof ScopesBody> }>(
      '/agency-mandates/:id',
      { schema: { tags, summary: "Change what the agency may do (the mandate's scopes)", params: IdParams, body: ScopesBody, response: { 200: Mandate } } },
      async (request) => apart(request.params.id, () => mandates.updateScopes(merchantOf(request), request.params.id, request.body.scopes)),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof TransferBody> }>(
      '/agency-mandates/:id/transfer',
      { schema: { tags, summary: 'Move the mandate to another agency', params: IdParams, body: TransferBody, response: { 200: Mandate } } },
      async (request) => apart(request.params.id, () => mandates.transfer(merchantOf(request), request.params.id, request.body.agencyId)),
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/agency-mandates/:id/revoke',
      { preValidation: emptyBody, schema: { tags, summary: "Revoke the mandate (the client or the agency): the agency's calls on the account are refused from now on", params: IdParams, body: EmptyBody, response: { 200: Mandate } } },
      async (request) => apart(request.params.id, () => mandates.revoke(merchantOf(request), request.params.id)),
    );
  };
}
