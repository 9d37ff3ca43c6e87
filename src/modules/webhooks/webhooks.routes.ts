import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams, ListOf, ListQuery, type Expect, type Same, Nullable } from '../../http/schemas.js';
import type { EventsService } from './events.service.js';
import type { endpointView, WebhooksService } from './webhooks.service.js';


const Url = Type.String({ minLength: 1, maxLength: 2048 });
const Filters = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100 });

const EndpointBody = Type.Object(
  {
    url: Url,
    events: Filters,
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const EndpointPatch = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Filters),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const AgencyWebhookBody = Type.Object(
  {
    url: Url,
    events: Type.Optional(Filters),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  },
  { additionalProperties: false },
);

const Endpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String()),
  disabledAt: Nullable(Type.String()),
  kind: Type.Union([Type.Literal('merchant'), Type.Literal('agency')]),
  storeId: Nullable(Type.String({ description: "the store whose key registered it: only that store's payment events reach it; null: every store's" })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type EndpointFitsView = Expect<Same<Static<typeof Endpoint>, ReturnType<typeof endpointView>>>;

const Event = Type.Object({
  id: Type.String(),
  type: Type.String(),
  createdAt: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  paymentId: Nullable(Type.String()),
});

const Delivery = Type.Object({
  id: Type.String(),
  eventId: Type.String(),
  target: Type.Object({ type: Type.String(), endpointId: Nullable(Type.String()), url: Type.String() }),
  status: Type.String(),
  attemptCount: Type.Integer(),
  nextAttemptAt: Nullable(Type.String()),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  createdAt: Type.String(),
  attempts: Type.Array(
    Type.Object({
      attempt: Type.Integer(),
      at: Type.String(),
      statusCode: Nullable(Type.Integer()),
      latencyMs: Type.Integer(),
      succeeded: Type.Boolean(),
      response: Nullable(Type.String()),
      error: Nullable(Type.String()),
    }),
  ),
});

const EventListQuery = Type.Object(
  {
    ...ListQuery,
    type: Type.Optional(Type.String({ maxLength: 100 })),
    createdAfter: Type.Optional(Type.String({ format: 'date-time' })),
    createdBefore: Type.Optional(Type.String({ format: 'date-time' })),
    paymentId: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

const ResendBody = Type.Object(
  {
    endpointId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    target: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('notification_url')])),
  },
  { additionalProperties: false },
);

const EndpointListQuery = Type.Object(ListQuery, { additionalProperties: false });

export function webhooksRoutes(webhooks: WebhooksService, events: EventsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    const tags = ['webhooks'];
    app.get(
      '/webhooks/signing-secret',
      { config: { readsSecret: true }, schema: { tags, summary: 'The webhook signing secret of this environment', response: { 200: Type.Object({ webhookSecret: Type.String() }) } } },
      async (request) => webhooks.signingSecret(merchantOf(request)),
    );
    app.post(
      '/webhooks/signing-secret/rotate',
      {
        config: { readsSecret: true },
        schema: {
          tags,
          summary: 'Rotate the signing secret; for 24 h the old one also signs, in X-Service-Signature-V2-Previous',
          response: { 200: Type.Object({ webhookSecret: Type.String(), previousSecretValidUntil: Type.String() }) },
        },
      },
      async (request) => webhooks.rotateSigningSecret(merchantOf(request), request.idempotency?.retryOf),
    );

    app.post<{ Body: Static<typeof EndpointBody> }>(
      '/webhook-endpoints',
      { schema: { tags, summary: 'Register a webhook endpoint', body: EndpointBody, response: { 201: Endpoint } } },
      async (request, reply) => reply.code(201).send(await webhooks.createEndpoint(merchantOf(request), request.body, 'merchant', request.idempotency?.key)),
    );
    app.get<{ Querystring: Static<typeof EndpointListQuery> }>(
      '/webhook-endpoints',
      { schema: { tags, summary: 'List webhook endpoints, newest first', querystring: EndpointListQuery, response: { 200: ListOf(Endpoint) } } },
      async (request) => webhooks.listEndpoints(merchantOf(request), request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/webhook-endpoints/:id',
      { schema: { tags, summary: 'Read a webhook endpoint', params: IdParams, response: { 200: Endpoint } } },
      async (request) => webhooks.getEndpoint(merchantOf(request), request.params.id),
    );
    app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof EndpointPatch> }>(
      '/webhook-endpoints/:id',
      {
        schema: {
          tags,
          summary: 'Change a webhook endpoint; {enabled: true} puts an endpoint out of service back to work',
          params: IdParams,
          body: EndpointPatch,
          response: { 200: Endpoint },
        },
      },
      async (request) => webhooks.updateEndpoint(merchantOf(request), request.params.id, request.body),
    );
    app.delete<{ Params: Static<typeof IdParams> }>(
      '/webhook-endpoints/:id',
      {
        schema: { tags, summary: 'Delete a webhook endpoint', params: IdParams, response: { 200: Type.Object({ id: Type.String(), deleted: Type.Boolean() }) } },
      },
      async (request) => webhooks.deleteEndpoint(merchantOf(request), request.params.id),
    );
    app.post<{ Body: Static<typeof AgencyWebhookBody> }>(
      '/agency/webhooks',
      { schema: { tags, summary: 'An agency declares a webhook address for agency.* events', body: AgencyWebhookBody, response: { 201: Endpoint } } },
      async (request, reply) =>
        reply
          .code(201)
          .send(await webhooks.createEndpoint(merchantOf(request), { ...request.body, events: request.body.events ?? ['agency.*'] }, 'agency', request.idempotency?.key)),
    );

    const eventTags = ['events'];
    app.get<{ Querystring: Static<typeof EventListQuery> }>(
      '/events',
      { schema: { tags: eventTags, summary: 'List events, newest first', querystring: EventListQuery, response: { 200: ListOf(Event) } } },
      async (request) => events.list(merchantOf(request), request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/events/:id',
      { schema: { tags: eventTags, summary: 'Read an event', params: IdParams, response: { 200: Event } } },
      async (request) => events.get(merchantOf(request), request.params.id),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/events/:id/deliveries',
      { schema: { tags: eventTags, summary: 'Every delivery of an event and its attempts', params: IdParams, response: { 200: ListOf(Delivery) } } },
      async (request) => events.deliveries(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof ResendBody> | undefined }>(
      '/events/:id/resend',
      {
        schema: {
          tags: eventTags,
          summary: 'Deliver an event again, to one endpoint, to the notificationUrl, or to all its targets',
          params: IdParams,
          body: Type.Optional(ResendBody),
          response: { 202: Type.Object({ eventId: Type.String(), deliveries: Type.Array(Delivery) }) },
        },
      },
      async (request, reply) => reply.code(202).send(await events.resend(merchantOf(request), request.params.id, request.body ?? {}, request.idempotency?.key)),
    );
  };
}
