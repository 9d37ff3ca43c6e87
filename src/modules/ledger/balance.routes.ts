// The balance and the balance transactions (merchant API), and the operator's adjustments (admin API).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { csvStream, wantsCsv } from '../../shared/csv.js';
import type { BalanceService } from './balance.service.js';
import { TRANSACTION_TYPES } from './ledger.table.js';

const Amounts = Type.Array(Type.Object({ currency: Type.String(), amount: Type.Integer() }));
const Balance = Type.Object({ available: Amounts, pending: Amounts });

const TransactionType = Type.Union(TRANSACTION_TYPES.map((t) => Type.Literal(t)));

export const BalanceTransaction = Type.Object({
  id: Type.String(),
  type: TransactionType,
  amount: Type.Integer({ description: 'signed, minor units of currency: positive credits the merchant' }),
  currency: Type.String(),
  amountEur: Type.Integer({ description: 'the same amount in exact EUR cents' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('available')]),
  availableOn: Type.String({ description: 'when it became available, or is expected to while pending' }),
  source: Type.Object({ type: Type.String(), id: Type.String() }),
  payoutId: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});

const Filters = {
  type: Type.Optional(TransactionType),
  payoutId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  sourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
  createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
};
const TransactionListQuery = Type.Object({ ...ListQuery, ...Filters }, { additionalProperties: false });

export const AdjustmentBody = Type.Object(
  {
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    currency: Type.Union([Type.Literal('EUR'), Type.Literal('XPF')]),
    amount: Type.Integer({ minimum: -1_000_000_000_000, maximum: 1_000_000_000_000, not: { const: 0 }, description: 'signed, minor units; not zero' }),
    reason: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

const CSV_HEADER = ['id', 'type', 'amount', 'currency', 'amountEur', 'status', 'availableOn', 'sourceType', 'sourceId', 'payoutId', 'description', 'createdAt'];

const tags = ['balance'];

/** Balance transactions as CSV, streamed (every list of them answers `Accept: text/csv` this way). */
export function sendTransactionsCsv(reply: FastifyReply, filename: string, batches: ReturnType<BalanceService['batches']>) {
  return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${filename}"`)
    .send(csvStream(CSV_HEADER, batches, (t) => [
      t.id, t.type, t.amount, t.currency, t.amountEur, t.status, t.availableOn, t.source.type, t.source.id, t.payoutId, t.description, t.createdAt,
    ]));
}

export function balanceRoutes(service: BalanceService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/balance', { schema: { tags, summary: 'The available and pending balance per currency', response: { 200: Balance } } },
      async (request) => service.balance(merchantOf(request)));
    app.get<{ Querystring: Static<typeof TransactionListQuery> }>(
      '/balance-transactions',
      {
        schema: {
          tags, querystring: TransactionListQuery, response: { 200: ListOf(BalanceTransaction) },
          summary: 'List balance transactions, newest first; with Accept: text/csv, every matching one as CSV',
        },
      },
      async (request, reply) => {
        const { limit, startingAfter, ...filters } = request.query;
        if (!wantsCsv(request.headers.accept)) return service.list(merchantOf(request), { ...filters, limit, startingAfter });
        return sendTransactionsCsv(reply, 'balance-transactions.csv', service.batches(merchantOf(request), filters));
      },
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/balance-transactions/:id',
      { schema: { tags, summary: 'Read a balance transaction', params: IdParams, response: { 200: BalanceTransaction } } },
      async (request) => service.get(merchantOf(request), request.params.id),
    );
  };
}

export function balanceAdminRoutes(service: BalanceService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof AdjustmentBody> }>(
      '/merchants/:id/adjustments',
      {
        schema: {
          tags: ['admin'], summary: "Adjust a merchant's balance, with the reason (an adjustment transaction, available at once)",
          security: [{ adminToken: [] }], params: IdParams, body: AdjustmentBody, response: { 201: BalanceTransaction },
        },
      },
      async (request, reply) => reply.code(201).send(await service.adjust(request.params.id, request.body)),
    );
  };
}
