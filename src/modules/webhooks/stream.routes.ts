// GET /api/v1/events/stream: the merchant's new events as server-sent events, for `motu listen`.
// Each SSE message carries the event's exact JSON body (the bytes a webhook would send), `id:` the event id.
// `?since=<ISO instant>` resumes after a reconnection; without it the stream starts now. Which events, in which order
// and each once is the events service's tail; this route only writes them out when woken.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { onOutboxSignal } from '../../events/signal.js';
import { merchantOf } from '../../http/auth.js';
import { fileAnswer } from '../../http/schemas.js';
import type { Clock } from '../../shared/clock.js';
import type { EventsService } from './events.service.js';

const StreamQuery = Type.Object({ since: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false });

const POLL_MS = 250;
const HEARTBEAT_MS = 15_000;

export function eventStreamRoutes(events: EventsService, clock: Clock) {
  return async function routes(app: FastifyInstance): Promise<void> {
    // A stream never ends by itself: on shutdown each is ended (its client reconnects to the next server), or a
    // connected `motu listen` would hold the process until its hard stop.
    const open = new Set<() => void>();
    app.addHook('preClose', (done) => {
      for (const end of open) end();
      done();
    });
    app.get<{ Querystring: Static<typeof StreamQuery> }>(
      '/events/stream',
      {
        schema: {
          tags: ['events'],
          summary: 'Stream new events (text/event-stream); used by `motu listen`',
          querystring: StreamQuery,
          response: { 200: fileAnswer('text/event-stream', 'Server-sent events: per new event its `id:`, `event:` (the type) and `data:` (the event as JSON); comment lines keep the connection alive') },
        },
      },
      async (request, reply) => {
        const tail = events.tail(merchantOf(request), request.query.since ? new Date(request.query.since) : clock.now());
        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        res.write(': motu event stream\n\n');
        let closed = false;
        let busy = false;
        const pump = async () => {
          if (busy || closed) return;
          busy = true;
          try {
            for (const event of await tail.read()) {
              if (closed) return;
              res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${event.body}\n\n`);
            }
          } catch {
            /* the next tick retries */
          } finally {
            busy = false;
          }
        };
        const unsubscribe = onOutboxSignal(() => void pump());
        const poll = setInterval(() => void pump(), POLL_MS);
        const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
        const end = () => {
          if (!closed) res.end();
        };
        open.add(end);
        request.raw.on('close', () => {
          closed = true;
          open.delete(end);
          unsubscribe();
          clearInterval(poll);
          clearInterval(heartbeat);
        });
        void pump();
      },
    );
  };
}
