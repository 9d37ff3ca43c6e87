// GET /api/v1/events/stream: the merchant's new events as server-sent events, for `motu listen`.
// Each SSE message carries the event's exact JSON body (the bytes a webhook would send), `id:` the event id.
// `?since=<ISO instant>` resumes after a reconnection; without it the stream starts now.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Database } from '../../db/database.js';
import { onOutboxSignal } from '../../events/signal.js';
import { merchantOf } from '../../http/auth.js';
import type { Clock } from '../../shared/clock.js';

const StreamQuery = Type.Object({ since: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false });

const POLL_MS = 250;
const HEARTBEAT_MS = 15_000;
/** Events read per query. */
const PAGE = 500;

export function eventStreamRoutes(db: Database, clock: Clock) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: Static<typeof StreamQuery> }>(
      '/events/stream',
      {
        schema: {
          tags: ['events'],
          summary: 'Stream new events (text/event-stream); used by `motu listen`',
          querystring: StreamQuery,
        },
      },
      async (request, reply) => {
        const owner = merchantOf(request);
        let since = request.query.since ? new Date(request.query.since).toISOString() : clock.now().toISOString();
        const seen = new Set<string>();
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
        // One query: the events from `since` on, or, to continue past a full page, after the last one read (created_at,
        // seq). `since` only ever moves to an instant already read, and the ids already sent at that instant are kept,
        // so an event committed late at that same instant is still sent, and none twice.
        const page = (after?: { createdAt: string; seq: number }) => {
          let q = db.kysely
            .selectFrom('webhook_events')
            .select(['id', 'type', 'body', 'created_at', 'seq'])
            .where('merchant_id', '=', owner.merchantId)
            .where('mode', '=', owner.mode)
            .where('created_at', '>=', since);
          if (after) {
            q = q.where((eb) => eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('seq', '>', after.seq)])]));
          }
          const storeId = owner.storeId;
          // A key attached to a store does not see another store's payment events (docs/reliability.md, Isolation).
          if (storeId) {
            q = q.where((eb) => eb.or([
              eb('payment_id', 'is', null),
              eb('payment_id', 'in', eb.selectFrom('payments').select('payments.id').where('payments.store_id', '=', storeId)),
            ]));
          }
          return q
            .orderBy('created_at')
            .orderBy('seq') // same-millisecond events in the order they were recorded
            .limit(PAGE)
            .execute();
        };
        const pump = async () => {
          if (busy || closed) return;
          busy = true;
          try {
            // Page after page until one is not full: more than a page of events in one millisecond must not hold the
            // stream at that instant.
            let last: { createdAt: string; seq: number } | undefined;
            const atLast = new Set<string>();
            for (;;) {
              const rows = await page(last);
              for (const row of rows) {
                if (closed) return;
                if (!seen.has(row.id)) {
                  seen.add(row.id);
                  res.write(`id: ${row.id}\nevent: ${row.type}\ndata: ${row.body}\n\n`);
                }
                if (row.created_at !== last?.createdAt) atLast.clear();
                atLast.add(row.id);
                last = { createdAt: row.created_at, seq: Number(row.seq) };
              }
              if (rows.length < PAGE) break;
            }
            if (last) {
              // Keep only the ids at the new boundary instant: older ones can no longer come back.
              since = last.createdAt;
              for (const id of seen) if (!atLast.has(id)) seen.delete(id);
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
        request.raw.on('close', () => {
          closed = true;
          unsubscribe();
          clearInterval(poll);
          clearInterval(heartbeat);
        });
        void pump();
      },
    );
  };
}
