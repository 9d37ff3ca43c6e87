// Disputes through the merchant API (list, read, evidence, accept, and the test helper that opens one) and the
// operator's live routes (admin API). Thin: the rules live in disputes.service.ts.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { emptyBody } from '../../http/empty-body.js';
import { IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { csvStream, wantsCsv } from '../../shared/csv.js';
import { MAX_AMOUNT } from '../sessions/sessions.schemas.js';
import { disputeView, type DisputesService } from './disputes.service.js';
import { DISPUTE_REASONS } from './disputes.table.js';

const Status = Type.Union(['needs_response', 'under_review', 'won', 'lost', 'warning_needs_response', 'warning_under_review', 'warning_closed'].map((s) => Type.Literal(s)));
const Kind = Type.Union([Type.Literal('chargeback'), Type.Literal('inquiry')]);
const Reason = Type.Union(DISPUTE_REASONS.map((r) => Type.Literal(r)));
const Text = Type.Optional(Type.String({ maxLength: 20_000 }));
const EvidenceFields = {
  productDescription: Text, customerCommunication: Text, refundPolicy: Text, shippingTracking: Text, uncategorizedText: Text,
};

export const Dispute = Type.Object({
  id: Type.String({ description: 'dp_…' }),
  paymentId: Type.String(),
  kind: Kind,
  reason: Type.String(),
  amount: Type.Integer({ description: "minor units of the payment's currency" }),
  currency: Type.String(),
  amountEur: Type.Integer({ description: 'exact EUR cents' }),
  status: Status,
  evidenceDueBy: Type.String(),
  evidence: Type.Object(EvidenceFields),
  evidenceSubmittedAt: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  closedAt: Type.Union([Type.String(), Type.Null()]),
});

const List = Type.Object(
  { ...ListQuery, status: Type.Optional(Status), paymentId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);
const EvidenceBody = Type.Object({ ...EvidenceFields, submit: Type.Boolean({ description: 'false: save a draft; true: send it (once)' }) }, { additionalProperties: false });
const OpenBody = Type.Object(
  {
    kind: Type.Optional(Kind),
    reason: Type.Optional(Reason),
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'absent: what is left of the captured amount' })),
  },
  { additionalProperties: false },
);
export const AdminOpenBody = Type.Object({ ...OpenBody.properties, kind: Kind, reason: Reason }, { additionalProperties: false });
export const CloseBody = Type.Object({ outcome: Type.Union([Type.Literal('won'), Type.Literal('lost')]) }, { additionalProperties: false });
const Empty = Type.Object({}, { additionalProperties: false });

const CSV_HEADER = ['id', 'paymentId', 'kind', 'reason', 'amount', 'currency', 'amountEur', 'status', 'evidenceDueBy', 'evidenceSubmittedAt', 'createdAt', 'closedAt'];
const tags = ['disputes'];

export function disputesRoutes(service: DisputesService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: Static<typeof List> }>(
      '/disputes',
      { schema: { tags, summary: 'List disputes, newest first; with Accept: text/csv, every matching one as CSV', querystring: List, response: { 200: ListOf(Dispute) } } },
      async (request, reply) => {
        const { limit, startingAfter, ...filters } = request.query;
        if (!wantsCsv(request.headers.accept)) return service.list(merchantOf(request), request.query as never);
        return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="disputes.csv"')
          .send(csvStream(CSV_HEADER, service.batches(merchantOf(request), filters as never), (row) => {
            const d = disputeView(row);
            return [d.id, d.paymentId, d.kind, d.reason, d.amount, d.currency, d.amountEur, d.status, d.evidenceDueBy, d.evidenceSubmittedAt, d.createdAt, d.closedAt];
          }));
      },
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/disputes/:id',
      { schema: { tags, summary: 'Read a dispute', params: IdParams, response: { 200: Dispute } } },
      async (request) => service.get(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof EvidenceBody> }>(
      '/disputes/:id/evidence',
      { schema: { tags, summary: 'Save evidence as a draft, or submit it (once): the dispute goes under review', params: IdParams, body: EvidenceBody, response: { 200: Dispute } } },
      async (request) => service.submitEvidence(merchantOf(request), request.params.id, request.body),
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/disputes/:id/accept',
      { preValidation: emptyBody, schema: { tags, summary: 'Accept a dispute: a chargeback is lost, an inquiry closed', params: IdParams, body: Empty, response: { 200: Dispute } } },
      async (request) => service.accept(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof OpenBody> }>(
      '/test-helpers/payments/:id/dispute',
      { preValidation: emptyBody, schema: { tags: ['test helpers'], summary: 'Test mode: the cardholder disputes a captured payment', params: IdParams, body: OpenBody, response: { 201: Dispute } } },
      async (request, reply) => reply.code(201).send(await service.openForTest(merchantOf(request), request.params.id, request.body ?? {})),
    );
  };
}

export function disputesAdminRoutes(service: DisputesService) {
  const doc = { tags: ['admin'], security: [{ adminToken: [] }] };
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof AdminOpenBody> }>(
      '/payments/:id/disputes',
      { schema: { ...doc, summary: 'Open a dispute the bank reported on a payment', params: IdParams, body: AdminOpenBody, response: { 201: Dispute } } },
      async (request, reply) => reply.code(201).send(await service.openByOperator(request.params.id, request.body)),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof CloseBody> }>(
      '/disputes/:id/close',
      { schema: { ...doc, summary: "Record the bank's decision on a dispute (an inquiry is closed either way)", params: IdParams, body: CloseBody, response: { 200: Dispute } } },
      async (request) => service.closeByOperator(request.params.id, request.body.outcome),
    );
  };
}
