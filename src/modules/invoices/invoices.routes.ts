// Invoices and credit notes through the merchant API, under /api/v1/billing. Thin: the rules live in
// invoices.service.ts. Refusals of the invoicing rules have codes starting INVOICING_.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { emptyBody } from '../../http/empty-body.js';
import { fileAnswer, IdParams, ListOf, ListQuery, Nullable } from '../../http/schemas.js';
import { MAX_AMOUNT } from '../sessions/sessions.schemas.js';
import type { DocumentPdfs } from '../../pages/pdf/documents.js';
import { creditNoteJob, invoiceJob } from '../../pages/pdf/jobs.js';
import type { InvoicesService } from './invoices.service.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });
const Status = Type.Union(['draft', 'open', 'partially_paid', 'paid', 'disputed', 'credited', 'uncollectible'].map((s) => Type.Literal(s)));
const Line = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 500 }),
    quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    unitPrice: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: 'minor units, before tax' }),
    taxRate: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: 'basis points (1600 = 16 %), default 0' })),
  },
  { additionalProperties: false },
);
const Lines = Type.Array(Line, { minItems: 1, maxItems: 200 });
const DueDate = Type.String({ format: 'date-time', maxLength: 40 });

export const InvoiceBody = Type.Object(
  {
    customerId: Id,
    currency: Type.Union([Type.Literal('EUR'), Type.Literal('XPF')]),
    lines: Lines,
    dueDate: Type.Optional(DueDate),
    daysUntilDue: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, description: 'counted from finalization, default 30' })),
    memo: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
const InvoicePatch = Type.Object(
  {
    currency: Type.Optional(Type.Union([Type.Literal('EUR'), Type.Literal('XPF')])),
    lines: Type.Optional(Lines),
    dueDate: Type.Optional(DueDate),
    daysUntilDue: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    memo: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export const Invoice = Type.Object({
  id: Type.String({ description: 'inv_…' }),
  number: Nullable(Type.String({ description: 'F-YYYY-NNNNNN, from finalization' })),
  status: Status,
  customerId: Type.String(),
  subscriptionId: Nullable(Type.String()),
  currency: Type.String(),
  lines: Type.Array(Type.Object({ description: Type.String(), quantity: Type.Integer(), unitPrice: Type.Integer(), taxRate: Type.Integer(), amount: Type.Integer() })),
  memo: Nullable(Type.String()),
  subtotal: Type.Integer(),
  taxes: Type.Array(Type.Object({ rate: Type.Integer(), base: Type.Integer(), amount: Type.Integer() })),
  total: Type.Integer(),
  amountPaid: Type.Integer(),
  amountCredited: Type.Integer(),
  amountRemaining: Type.Integer(),
  dueDate: Nullable(Type.String()),
  overdue: Type.Boolean(),
  contentHash: Nullable(Type.String({ description: 'hex SHA-256 of the content frozen at finalization' })),
  finalizedAt: Nullable(Type.String()),
  sentAt: Nullable(Type.String()),
  paidAt: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

const CreditNote = Type.Object({
  id: Type.String({ description: 'cn_…' }), invoiceId: Type.String(), number: Type.String({ description: 'A-YYYY-NNNNNN' }), amount: Type.Integer(),
  reason: Type.String(), refund: Type.Boolean(), createdAt: Type.String(),
});
const PaymentBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT }),
    method: Type.Union(['bank_transfer', 'cash', 'other'].map((s) => Type.Literal(s))),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
const CreditNoteBody = Type.Object(
  {
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AMOUNT })),
    reason: Type.Union(['duplicate', 'order_change', 'product_unsatisfactory', 'fraudulent', 'other'].map((s) => Type.Literal(s))),
    refund: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const List = Type.Object({ ...ListQuery, customerId: Type.Optional(Id), status: Type.Optional(Status), subscriptionId: Type.Optional(Id) }, { additionalProperties: false });
const CreditNoteList = Type.Object({ ...ListQuery, invoiceId: Type.Optional(Id) }, { additionalProperties: false });
const Empty = Type.Object({}, { additionalProperties: false });
const PdfQuery = Type.Object({ lang: Type.Optional(Type.Union([Type.Literal('fr'), Type.Literal('en')])) }, { additionalProperties: false });
const tags = ['billing'];

const Settings = Type.Object({
  enabled: Type.Boolean(),
  moduleState: Type.Union([Type.Literal('ouverte'), Type.Literal('a_activer')]),
  issuable: Type.Boolean(),
  completeness: Type.Object({ missing: Type.Array(Type.Object({ field: Type.String(), label: Type.String() })) }),
  activationUrl: Type.String(),
});

export function invoicesRoutes(service: InvoicesService, pdfs: DocumentPdfs) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get(
      '/billing/settings',
      { schema: { tags, summary: "Whether invoicing is open (the merchant's legal identity complete), and what is missing", response: { 200: Settings } } },
      async (request) => service.settings(merchantOf(request)),
    );
    app.post<{ Body: Static<typeof InvoiceBody> }>(
      '/billing/invoices',
      { schema: { tags, summary: 'Create a draft invoice', body: InvoiceBody, response: { 201: Invoice } } },
      async (request, reply) => reply.code(201).send(await service.create(merchantOf(request), request.body as never)),
    );
    app.get<{ Querystring: Static<typeof List> }>(
      '/billing/invoices',
      { schema: { tags, summary: 'List invoices, newest first', querystring: List, response: { 200: ListOf(Invoice) } } },
      async (request) => service.list(merchantOf(request), request.query as never),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/billing/invoices/:id',
      { schema: { tags, summary: 'Read an invoice (always its current state)', params: IdParams, response: { 200: Invoice } } },
      async (request) => service.get(merchantOf(request), request.params.id),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof InvoicePatch> }>(
      '/billing/invoices/:id',
      { schema: { tags, summary: 'Change a draft invoice', params: IdParams, body: InvoicePatch, response: { 200: Invoice } } },
      async (request) => service.update(merchantOf(request), request.params.id, request.body as never),
    );
    app.delete<{ Params: Static<typeof IdParams> }>(
      '/billing/invoices/:id',
      { schema: { tags, summary: 'Delete a draft invoice', params: IdParams, response: { 200: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) } } },
      async (request) => service.remove(merchantOf(request), request.params.id),
    );
    app.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof PdfQuery> }>(
      '/billing/invoices/:id/pdf',
      { schema: { tags, summary: 'The invoice as a PDF, with the merchant\'s legal identity (French, or English with lang=en)', params: IdParams, querystring: PdfQuery, response: { 200: fileAnswer('application/pdf', 'The invoice as a PDF', true) } } },
      async (request, reply) => {
        const { invoice, party } = await service.document(merchantOf(request), request.params.id);
        // Drawn on a worker thread; a finalized invoice's PDF is kept once drawn (a draft's is drawn each time).
        const pdf = await pdfs.pdf(invoiceJob(invoice, party, request.query.lang ?? 'fr'), invoice.status === 'draft' ? null : invoice.id);
        return reply.type('application/pdf').header('content-disposition', `inline; filename="${invoice.number ?? invoice.id}.pdf"`).send(pdf);
      },
    );
    app.get<{ Querystring: Static<typeof CreditNoteList> }>(
      '/billing/credit-notes',
      { schema: { tags, summary: "List credit notes, newest first (invoiceId: an invoice's)", querystring: CreditNoteList, response: { 200: ListOf(CreditNote) } } },
      async (request) => service.listCreditNotes(merchantOf(request), request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/billing/credit-notes/:id',
      { schema: { tags, summary: 'Read a credit note', params: IdParams, response: { 200: CreditNote } } },
      async (request) => service.getCreditNote(merchantOf(request), request.params.id),
    );
    app.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof PdfQuery> }>(
      '/billing/credit-notes/:id/pdf',
      { schema: { tags, summary: 'A credit note as a PDF', params: IdParams, querystring: PdfQuery, response: { 200: fileAnswer('application/pdf', 'The credit note as a PDF', true) } } },
      async (request, reply) => {
        const { note, invoice, party } = await service.creditNoteDocument(merchantOf(request), request.params.id);
        const pdf = await pdfs.pdf(creditNoteJob(note, invoice, party, request.query.lang ?? 'fr'), note.id);
        return reply.type('application/pdf').header('content-disposition', `inline; filename="${note.number}.pdf"`).send(pdf);
      },
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/billing/invoices/:id/finalize',
      { preValidation: emptyBody, schema: { tags, summary: 'Finalize: the legal number, the content frozen (invoice.issued)', params: IdParams, body: Empty, response: { 200: Invoice } } },
      async (request) => service.finalize(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof PaymentBody> }>(
      '/billing/invoices/:id/payments',
      { schema: { tags, summary: 'Record a payment received outside Motu', params: IdParams, body: PaymentBody, response: { 200: Invoice } } },
      async (request) => service.recordPayment(merchantOf(request), request.params.id, request.body),
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/billing/invoices/:id/send',
      {
        preValidation: emptyBody,
        schema: { tags, summary: 'Send the invoice: its hosted page (the invoice, its PDF, a card payment of what is due), invoice.sent', params: IdParams, body: Empty, response: { 200: Type.Object({ ...Invoice.properties, url: Type.String() }) } },
      },
      async (request) => service.send(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/billing/invoices/:id/mark-uncollectible',
      { preValidation: emptyBody, schema: { tags, summary: 'Mark an open invoice uncollectible (it can still be paid)', params: IdParams, body: Empty, response: { 200: Invoice } } },
      async (request) => service.markUncollectible(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof CreditNoteBody> }>(
      '/billing/invoices/:id/credit-notes',
      { schema: { tags, summary: 'Credit an invoice (its own number series)', params: IdParams, body: CreditNoteBody, response: { 201: CreditNote } } },
      async (request, reply) => reply.code(201).send(await service.creditNote(merchantOf(request), request.params.id, request.body)),
    );
  };
}
