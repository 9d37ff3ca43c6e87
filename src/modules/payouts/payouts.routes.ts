// Payouts through the merchant API, and the operator's record of the bank's answer (admin API). Thin: the rules live
// in payouts.service.ts.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { emptyBody } from '../../http/empty-body.js';
import { fileAnswer, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { BalanceTransaction, sendTransactionsCsv } from '../ledger/balance.routes.js';
import { csvStream, wantsCsv } from '../../shared/csv.js';
import type { BankFilesService } from './bank-files/bank-files.service.js';
import type { PayoutScheduleService } from './payout-schedule.js';
import { payoutView, type PayoutsService } from './payouts.service.js';
import { WEEKDAYS } from './payouts.table.js';

export const PayoutBody = Type.Object(
  {
    currency: Type.Union([Type.Literal('EUR'), Type.Literal('XPF')]),
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000_000, description: 'minor units; absent: the whole available balance' })),
    bankAccountId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'absent: the default account of the currency' })),
    description: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const Payout = Type.Object({
  id: Type.String({ description: 'po_…' }),
  amount: Type.Integer(),
  currency: Type.String(),
  status: Type.Union(['pending', 'in_transit', 'paid', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
  automatic: Type.Boolean(),
  bankAccountId: Type.String(),
  recipientId: Type.String({ description: 'the bank account' }),
  arrivalDate: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  failureReason: Type.Union([Type.String(), Type.Null()]),
  failureMessage: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});

const List = Type.Object({ ...ListQuery }, { additionalProperties: false });
const Interval = Type.Union(['daily', 'weekly', 'monthly', 'manual'].map((s) => Type.Literal(s)));
const Weekday = Type.Union(WEEKDAYS.map((d) => Type.Literal(d)));
export const PayoutSchedule = Type.Object({
  interval: Interval,
  weeklyAnchor: Weekday,
  monthlyAnchor: Type.Integer({ description: '1–31; 31: the last day of the month' }),
  delayDays: Type.Integer({ description: 'days funds stay available before an automatic payout carries them' }),
  nextRunOn: Type.Union([Type.String({ description: 'YYYY-MM-DD (UTC)' }), Type.Null()]),
});
export const PayoutSchedulePatch = Type.Object(
  {
    interval: Type.Optional(Interval),
    weeklyAnchor: Type.Optional(Weekday),
    monthlyAnchor: Type.Optional(Type.Integer({ minimum: 1, maximum: 31 })),
    delayDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 })),
  },
  { additionalProperties: false },
);
const FailedBody = Type.Object(
  {
    failureReason: Type.Union(['no_account', 'account_closed', 'declined', 'could_not_process'].map((s) => Type.Literal(s))),
    failureMessage: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
const tags = ['payouts'];

export function payoutsRoutes(service: PayoutsService, schedule: PayoutScheduleService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get(
      '/payout-schedule',
      { schema: { tags, summary: 'When automatic payouts run', response: { 200: PayoutSchedule } } },
      async (request) => schedule.get(merchantOf(request)),
    );
    app.patch<{ Body: Static<typeof PayoutSchedulePatch> }>(
      '/payout-schedule',
      { schema: { tags, summary: 'Change when automatic payouts run (manual: never)', body: PayoutSchedulePatch, response: { 200: PayoutSchedule } } },
      async (request) => schedule.update(merchantOf(request), request.body as never),
    );
    app.post<{ Body: Static<typeof PayoutBody> }>(
      '/payouts',
      { schema: { tags, summary: 'Pay out the available balance (all of it, or an amount) to a bank account', body: PayoutBody, response: { 201: Payout } } },
      async (request, reply) => reply.code(201).send(await service.create(merchantOf(request), request.body)),
    );
    app.get<{ Querystring: Static<typeof List> }>(
      '/payouts',
      { schema: { tags, summary: 'List payouts, newest first; with Accept: text/csv, every one as CSV', querystring: List, response: { 200: ListOf(Payout) } } },
      async (request, reply) => {
        if (!wantsCsv(request.headers.accept)) return service.list(merchantOf(request), request.query);
        return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="payouts.csv"')
          .send(csvStream(PAYOUTS_CSV_HEADER, service.batches(merchantOf(request)), (row) => {
            const p = payoutView(row);
            return [p.id, p.amount, p.currency, p.status, p.automatic, p.bankAccountId, p.arrivalDate, p.description, p.failureReason, p.createdAt];
          }));
      },
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/payouts/:id',
      { schema: { tags, summary: 'Read a payout', params: IdParams, response: { 200: Payout } } },
      async (request) => service.get(merchantOf(request), request.params.id),
    );
    app.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof List> }>(
      '/payouts/:id/transactions',
      {
        schema: {
          tags, summary: 'The balance transactions a payout carries; with Accept: text/csv, all of them as CSV', params: IdParams, querystring: List,
          response: { 200: ListOf(BalanceTransaction) },
        },
      },
      async (request, reply) => {
        if (!wantsCsv(request.headers.accept)) return service.transactions(merchantOf(request), request.params.id, request.query);
        return sendTransactionsCsv(reply, `${request.params.id}-transactions.csv`, await service.transactionBatches(merchantOf(request), request.params.id));
      },
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/payouts/:id/cancel',
      {
        preValidation: emptyBody,
        schema: { tags, summary: 'Cancel a pending payout (its amount is credited back)', params: IdParams, body: Type.Object({}, { additionalProperties: false }), response: { 200: Payout } },
      },
      async (request) => service.cancel(merchantOf(request), request.params.id),
    );
  };
}

const PAYOUTS_CSV_HEADER = ['id', 'amount', 'currency', 'status', 'automatic', 'bankAccountId', 'arrivalDate', 'description', 'failureReason', 'createdAt'];
const DayQuery = Type.Object({ date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the UTC day the payouts were made, YYYY-MM-DD' }) }, { additionalProperties: false });
export const XPF_CSV_HEADER = ['payoutId', 'merchantId', 'amount', 'currency', 'holderName', 'iban', 'bic', 'description'];
/** One row of the XPF transfer list, in XPF_CSV_HEADER's order (the admin route's and `motu payouts transfers-csv`'s). */
export function xpfCsvValues(r: Awaited<ReturnType<BankFilesService['xpfList']>>['rows'][number]) {
  return [r.id, r.merchant_id, Number(r.amount), r.currency, r.holder_name, r.iban, r.bic, r.description];
}
const CamtResult = Type.Object({
  paid: Type.Array(Type.String()),
  failed: Type.Array(Type.Object({ payoutId: Type.String(), failureReason: Type.String(), code: Type.String() })),
  skipped: Type.Array(Type.Object({ payoutId: Type.String(), status: Type.String() })),
  mismatched: Type.Array(Type.Object({ payoutId: Type.String(), amount: Type.String(), currency: Type.String() })),
  unknown: Type.Array(Type.Object({ endToEndId: Type.Union([Type.String(), Type.Null()]), amount: Type.String(), currency: Type.String() })),
});

export function payoutsAdminRoutes(service: PayoutsService, bankFiles: BankFilesService) {
  const doc = { tags: ['admin'], security: [{ adminToken: [] }] };
  return async function routes(app: FastifyInstance): Promise<void> {
    // The bank's camt.054 files come as XML text (up to 10 MiB).
    app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string', bodyLimit: 10 * 1024 * 1024 }, (_request, body, done) => done(null, body));
    app.get<{ Querystring: Static<typeof DayQuery> }>(
      '/payouts/transfers.xml',
      {
        schema: {
          ...doc, querystring: DayQuery, response: { 200: fileAnswer('application/xml', 'The pain.001.001.03 file, as an attachment') },
          summary: "The day's live EUR payouts as a SEPA credit transfer file (ISO 20022 pain.001.001.03); they are in transit from then on",
        },
      },
      async (request, reply) => {
        const file = await bankFiles.sepaFile(request.query.date);
        return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${file.filename}"`).send(file.xml);
      },
    );
    app.get<{ Querystring: Static<typeof DayQuery> }>(
      '/payouts/transfers.csv',
      {
        schema: {
          ...doc, querystring: DayQuery, response: { 200: fileAnswer('text/csv', 'One line per payout under a header line, as an attachment') },
          summary: "The day's live XPF payouts as CSV (no SEPA in XPF); they are in transit from then on",
        },
      },
      async (request, reply) => {
        const list = await bankFiles.xpfList(request.query.date);
        return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${list.filename}"`)
          .send(csvStream(XPF_CSV_HEADER, [list.rows], xpfCsvValues));
      },
    );
    app.post<{ Body: string }>(
      '/payouts/camt054',
      {
        schema: {
          ...doc, summary: "Record the bank's answers from a camt.054 file (XML body): booked debits paid, returns failed; each payout once",
          consumes: ['application/xml', 'text/xml'], body: Type.String({ minLength: 1 }), response: { 200: CamtResult },
        },
      },
      async (request) => bankFiles.importCamt054(request.body),
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/payouts/:id/paid',
      { preValidation: emptyBody, schema: { ...doc, summary: 'Record that the bank paid a payout', params: IdParams, body: Type.Object({}, { additionalProperties: false }), response: { 200: Payout } } },
      async (request) => service.recordAnswer(request.params.id, { paid: true }),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof FailedBody> }>(
      '/payouts/:id/failed',
      { schema: { ...doc, summary: 'Record that the bank refused a payout (its amount is credited back)', params: IdParams, body: FailedBody, response: { 200: Payout } } },
      async (request) => service.recordAnswer(request.params.id, { paid: false, reason: request.body.failureReason, message: request.body.failureMessage }),
    );
  };
}
