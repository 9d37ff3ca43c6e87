// GET /api/v1/events/stream: the merchant's new events as server-sent events, for `motu listen`.
// Each SSE message carries the event's exact JSON body (the bytes a webhook would send), `id:` the event id.
// `?since=<ISO instant>` resumes after a reconnection; without it the stream starts now. Which events, in which order
// and each once is the events service's tail; this route only writes them out when woken.
// A stream lives no longer than the credential it was opened with: checked every CHECK_MS and before each write, and
// the stream ends once the key is revoked or its maker's role changed, or the session is signed out, its user removed,
// its role or mode changed (`motu listen` then reconnects, hears 401 and stops).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { onOutboxSignal } from '../../events/signal.js';
import { merchantOf } from '../../http/auth.js';
import { fileAnswer } from '../../http/schemas.js';
import type { Clock } from '../../shared/clock.js';
import type { EventsService } from './events.service.js';

const StreamQuery = Type.Object({ since: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false });

const POLL_MS = 250;
const HEARTBEAT_MS = 15_000;
const CHECK_MS = 2_000;

/** Whether the request's credential still stands as it was when the stream opened (http/auth.ts). */
export type CredentialCheck = (request: FastifyRequest) => Promise<boolean>;

export function eventStreamRoutes(events: EventsService, clock: Clock, stillValid: CredentialCheck) {
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
        const revoked = () => {
          if (closed) return;
          closed = true;
          stop();
          res.end(': the credential of this stream is no longer valid\n\n');
        };
        const pump = async () => {
          if (busy || closed) return;
          busy = true;
          try {
            const batch = await tail.read();
            if (batch.length > 0 && !(await stillValid(request))) return revoked();
            for (const event of batch) {
              if (closed) return;
              res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${event.body}\n\n`);
            }
          } catch {
            /* the next tick retries */
          } finally {
            busy = false;
          }
        };
        const check = setInterval(() => {
          stillValid(request).then((valid) => { if (!valid) revoked(); }, () => { /* the next check retries */ });
        }, CHECK_MS);
        const unsubscribe = onOutboxSignal(() => void pump());
        const poll = setInterval(() => void pump(), POLL_MS);
        const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
        const end = () => {
          if (!closed) res.end();
        };
        open.add(end);
        function stop() {
          open.delete(end);
          unsubscribe();
          clearInterval(poll);
          clearInterval(heartbeat);
          clearInterval(check);
        }
        request.raw.on('close', () => {
          closed = true;
          stop();
        });
        void pump();
      },
    );
  };
}
