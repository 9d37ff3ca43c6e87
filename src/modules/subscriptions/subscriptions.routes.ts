// Subscriptions through the merchant API. Thin: the rules live in subscriptions.service.ts, the charging in
// subscriptions.engine.ts.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { emptyBody } from '../../http/empty-body.js';
import { FreeJson } from '../../http/json-limits.js';
import { IdParams, ListOf, ListQuery, Nullable } from '../../http/schemas.js';
import { MAX_AMOUNT } from '../sessions/sessions.schemas.js';
import type { SubscriptionsService } from './subscriptions.service.js';

const Interval = Type.Union(['day', 'week', 'month', 'year'].map((s) => Type.Literal(s)));
const Status = Type.Union(['waiting_mandate', 'active', 'past_due', 'cancelled', 'ended'].map((s) => Type.Literal(s)));
const RetrySchedule = Type.Array(Type.Integer({ minimum: 1, maximum: 30 }), { maxItems: 8, description: 'days after the previous attempt' });
const Id = Type.String({ minLength: 1, maxLength: 64 });

export const SubscriptionBody = Type.Object(
  {
    customerId: Id,
    paymentMethodId: Type.Optional(Id),
    amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'minor units' }),
    currency: Type.Union([Type.Literal('EUR'), Type.Literal('XPF')]),
    interval: Interval,
    intervalCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
    startDate: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'the first due date (default: now)' })),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    storeId: Type.Optional(Id),
    retrySchedule: Type.Optional(RetrySchedule),
    endAfter: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'number of due dates' })),
    invoicing: Type.Optional(Type.Object({ enabled: Type.Boolean(), daysUntilDue: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })) }, { additionalProperties: false })),
    privateData: Type.Optional(FreeJson({ keyMaxLength: 40, maxProperties: 50 })),
  },
  { additionalProperties: false },
);

const Patch = Type.Object(
  {
    paymentMethodId: Type.Optional(Id),
    collectMissed: Type.Optional(Type.Boolean()),
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AMOUNT })),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    retrySchedule: Type.Optional(RetrySchedule),
    privateData: Type.Optional(FreeJson({ keyMaxLength: 40, maxProperties: 50 })),
  },
  { additionalProperties: false },
);

export const Subscription = Type.Object({
  id: Type.String({ description: 'sub_…' }),
  customerId: Type.String(),
  paymentMethodId: Nullable(Type.String()),
  status: Status,
  amount: Type.Integer(),
  currency: Type.String(),
  interval: Interval,
  intervalCount: Type.Integer(),
  startDate: Type.String(),
  nextDueDate: Nullable(Type.String()),
  cancelAt: Nullable(Type.String()),
  cancelledAt: Nullable(Type.String()),
  endAfter: Nullable(Type.Integer()),
  dueDatesOpened: Type.Integer(),
  retrySchedule: Type.Array(Type.Integer()),
  description: Nullable(Type.String()),
  storeId: Nullable(Type.String()),
  invoicing: Nullable(Type.Record(Type.String(), Type.Unknown())),
  privateData: Nullable(Type.Record(Type.String(), Type.Unknown())),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

const DueDate = Type.Object({
  dueDate: Type.String(),
  status: Type.Union(['scheduled', 'paid', 'retrying', 'unpaid', 'skipped'].map((s) => Type.Literal(s))),
  attempts: Type.Array(Type.Object({ at: Type.String(), paymentId: Type.String(), outcome: Type.String(), refusalCode: Nullable(Type.String()) })),
  nextAttemptAt: Nullable(Type.String()),
  invoiceId: Nullable(Type.String()),
});

const List = Type.Object({ ...ListQuery, customerId: Type.Optional(Id), status: Type.Optional(Status) }, { additionalProperties: false });
const DueDatesQuery = Type.Object({ limit: ListQuery.limit, startingAfter: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })) }, { additionalProperties: false });
const CancelBody = Type.Object({ atPeriodEnd: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
const Empty = Type.Object({}, { additionalProperties: false });
const tags = ['subscriptions'];

export function subscriptionsRoutes(service: SubscriptionsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Static<typeof SubscriptionBody> }>(
      '/subscriptions',
      { schema: { tags, summary: "Charge a customer's card on due dates", body: SubscriptionBody, response: { 201: Subscription } } },
      async (request, reply) => reply.code(201).send(await service.create(merchantOf(request), request.body as never)),
    );
    app.get<{ Querystring: Static<typeof List> }>(
      '/subscriptions',
      { schema: { tags, summary: 'List subscriptions, newest first', querystring: List, response: { 200: ListOf(Subscription) } } },
      async (request) => service.list(merchantOf(request), request.query as never),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/subscriptions/:id',
      { schema: { tags, summary: 'Read a subscription', params: IdParams, response: { 200: Subscription } } },
      async (request) => service.get(merchantOf(request), request.params.id),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof Patch> }>(
      '/subscriptions/:id',
      { schema: { tags, summary: 'Change a subscription (a card attached restores the mandate)', params: IdParams, body: Patch, response: { 200: Subscription } } },
      async (request) => {
        const principal = merchantOf(request);
        return service.update(principal, request.params.id, request.body as never, principal.user ? 'merchant' : 'integration');
      },
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof CancelBody> }>(
      '/subscriptions/:id/cancel',
      { preValidation: emptyBody, schema: { tags, summary: 'Cancel now, or at the end of the period', params: IdParams, body: CancelBody, response: { 200: Subscription } } },
      async (request) => service.cancel(merchantOf(request), request.params.id, request.body.atPeriodEnd ?? false),
    );
    app.post<{ Params: Static<typeof IdParams> }>(
      '/subscriptions/:id/retry',
      { preValidation: emptyBody, schema: { tags, summary: "Charge a past-due subscription's unpaid due date again now", params: IdParams, body: Empty, response: { 200: Subscription } } },
      async (request) => service.retry(merchantOf(request), request.params.id),
    );
    app.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof DueDatesQuery> }>(
      '/subscriptions/:id/due-dates',
      { schema: { tags, summary: 'The due dates opened, newest first, with their attempts', params: IdParams, querystring: DueDatesQuery, response: { 200: ListOf(DueDate) } } },
      async (request) => service.dueDates(merchantOf(request), request.params.id, request.query),
    );
  };
}
