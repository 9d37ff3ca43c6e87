// Reading payments through the merchant API: the list (JSON pages, or every matching payment as CSV) and one by id.
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams, ListOf } from '../../http/schemas.js';
import { csvStream, wantsCsv } from '../../shared/csv.js';
import type { PaymentsService } from './payments.service.js';
import { PaymentListQuery, PaymentView } from '../sessions/sessions.schemas.js';

const tags = ['payments'];

/** The columns of the payments CSV (docs/payments.md, "Listing and searching"). */
export const PAYMENTS_CSV_HEADER = [
  'id', 'reference', 'orderReference', 'createdAt', 'status', 'amount', 'currency', 'amountEur', 'capturedAmount', 'refundedAmount',
  'fees', 'net', 'customerEmail', 'cardBrand', 'cardLast4', 'storeCode',
] as const;

export function paymentsRoutes(payments: PaymentsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: Static<typeof PaymentListQuery> }>(
      '/payments',
      {
        schema: {
          tags,
          summary: 'List payments, newest first; with Accept: text/csv, every matching one as CSV',
          description: 'Filters (all combined): status, createdFrom/createdTo, amountMin/amountMax (inclusive, minor units of the payment\'s own currency), '
            + 'currency, customerEmail (exact, case-insensitive), cardLast4, reference (SPR or order reference), storeId (id or code), customerId, '
            + 'and q, an exact search of a payment id, SPR reference, order reference or customer email. With Accept: text/csv the answer is every '
            + `matching payment (limit and startingAfter ignored), streamed, columns ${PAYMENTS_CSV_HEADER.join(', ')}.`,
          querystring: PaymentListQuery,
          response: { 200: ListOf(PaymentView) },
        },
      },
      async (request, reply) => {
        const { limit, startingAfter, ...filters } = request.query;
        if (!wantsCsv(request.headers.accept)) return payments.list(merchantOf(request), request.query);
        const batches = payments.exportBatches(merchantOf(request), filters);
        // The first batch is read before answering, so a refused filter (amountMin > amountMax) is still a 400.
        const first = await batches.next();
        async function* all() {
          if (!first.done) yield first.value;
          yield* batches;
        }
        return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="payments.csv"')
          .send(csvStream(PAYMENTS_CSV_HEADER, all(), (p) => [
            p.id, p.reference, p.orderReference, p.createdAt, p.status, p.amount, p.currency, p.amountEur, p.capturedAmount, p.refundedAmount,
            p.fees, p.net, p.customerEmail, p.cardBrand, p.cardLast4, p.storeCode,
          ]));
      },
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/payments/:id',
      { schema: { tags, summary: 'Read a payment, including its refusal code', params: IdParams, response: { 200: PaymentView } } },
      async (request) => payments.get(merchantOf(request), request.params.id),
    );
  };
}
