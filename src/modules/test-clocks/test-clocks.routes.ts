// Test clocks through the merchant API (test keys only: a live key gets 403 on every /test-helpers route). Thin: the
// rules live in test-clocks.service.ts, the advance in advance.ts.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantOf } from '../../http/auth.js';
import { IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import type { TestClocksService } from './test-clocks.service.js';

const Instant = Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601 date-time (UTC: 2027-01-31T12:00:00.000Z)' });

export const TestClock = Type.Object({
  id: Type.String({ description: 'clk_…' }),
  name: Type.Union([Type.String(), Type.Null()]),
  frozenTime: Type.String(),
  status: Type.Union([Type.Literal('ready'), Type.Literal('advancing')]),
  advancingTo: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});

const CreateBody = Type.Object({ frozenTime: Instant, name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false });
const AdvanceBody = Type.Object({ frozenTime: Instant }, { additionalProperties: false });
const List = Type.Object({ ...ListQuery }, { additionalProperties: false });
const tags = ['test helpers'];

export function testClocksRoutes(service: TestClocksService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Static<typeof CreateBody> }>(
      '/test-helpers/test-clocks',
      { schema: { tags, summary: 'Create a test clock frozen at a time', body: CreateBody, response: { 201: TestClock } } },
      async (request, reply) => reply.code(201).send(await service.create(merchantOf(request), request.body)),
    );
    app.get<{ Querystring: Static<typeof List> }>(
      '/test-helpers/test-clocks',
      { schema: { tags, summary: 'List test clocks, newest first', querystring: List, response: { 200: ListOf(TestClock) } } },
      async (request) => service.list(merchantOf(request), request.query),
    );
    app.get<{ Params: Static<typeof IdParams> }>(
      '/test-helpers/test-clocks/:id',
      { schema: { tags, summary: 'Read a test clock', params: IdParams, response: { 200: TestClock } } },
      async (request) => service.get(merchantOf(request), request.params.id),
    );
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof AdvanceBody> }>(
      '/test-helpers/test-clocks/:id/advance',
      {
        schema: {
          tags, summary: 'Move a test clock forward: the worker runs what falls due on it, in time order, then sets it ready',
          params: IdParams, body: AdvanceBody, response: { 200: TestClock },
        },
      },
      async (request) => service.advance(merchantOf(request), request.params.id, request.body.frozenTime),
    );
  };
}
