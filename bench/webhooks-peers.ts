// The two peers of bench/webhooks.bench.ts, each run in a process of its own (`node --import tsx
// bench/webhooks-peers.ts receiver|producer`, forked by the bench with an IPC channel) so that neither takes the
// delivery worker's CPU:
// - receiver: the loopback HTTP endpoint, answering 204; it notes when each event id arrived (and how many ids
//   arrived twice);
// - producer: commits `customer.created` events at a steady rate through a pool of its own, each event in its own
//   transaction unless told to put several in one, as the API's requests would; it notes when each commit returned.
// Times are process.hrtime (the machine's monotonic clock, the same in every process), in milliseconds.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Database } from '../src/db/database.js';
import { openDatabase } from '../src/db/database.js';
import { keepEndpointsCached } from '../src/events/endpoint-cache.js';
import { recordEvent } from '../src/events/outbox.js';
import { payloads } from '../src/events/payloads.js';
import { customerData } from '../test/support/factories.js';

export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

export interface ProduceOptions {
  merchantId: string;
  rate: number;
  seconds: number;
  /** Events per transaction (1: each its own, as a state change would). */
  perTransaction: number;
}

export interface Produced {
  /** Event id → when its commit returned. */
  committedAt: Array<[string, number]>;
  startedAt: number;
  lastCommitAt: number;
  failures: number;
}

/** Commits rate × seconds events at the offered rate, every 5 ms the ones due by then; concurrency is the pool's. */
export async function produce(db: Database, o: ProduceOptions): Promise<Produced> {
  const total = Math.round(o.rate * o.seconds);
  const committedAt: Array<[string, number]> = [];
  let failures = 0;
  let lastCommitAt = 0;
  let sent = 0;
  const start = nowMs();
  const inFlight = new Set<Promise<void>>();
  const commit = (from: number, to: number) => {
    const p = db
      .transaction(async (trx) => {
        const ids: string[] = [];
        for (let n = from; n < to; n++) {
          const e = await recordEvent(trx, { merchantId: o.merchantId, mode: 'test', ...payloads.customerCreated(customerData(`cus_${n}`, 'bench')) });
          ids.push(e.id);
        }
        return ids;
      })
      .then(
        (ids) => {
          lastCommitAt = nowMs();
          for (const id of ids) committedAt.push([id, lastCommitAt]);
        },
        () => void (failures += to - from),
      );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  while (sent < total) {
    const due = Math.min(total, Math.floor(((nowMs() - start) / 1000) * o.rate));
    for (; sent < due; sent = Math.min(due, sent + o.perTransaction)) commit(sent, Math.min(due, sent + o.perTransaction));
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all([...inFlight]);
  return { committedAt, startedAt: start, lastCommitAt, failures };
}

type Message = { type: 'produce'; databaseUrl: string; dataDir: string; poolSize: number; options: ProduceOptions } | { type: 'report' } | { type: 'exit' };

function send(message: unknown): Promise<void> {
  return new Promise((resolve, reject) => process.send!(message, undefined, {}, (err) => (err ? reject(err) : resolve())));
}

async function receiver(): Promise<void> {
  const receivedAt = new Map<string, number>();
  let duplicates = 0;
  const server = http.createServer((req, res) => {
    const id = String(req.headers['x-service-event-id']);
    req.resume();
    req.on('end', () => {
      if (receivedAt.has(id)) duplicates++;
      else receivedAt.set(id, nowMs());
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // How many have arrived, every 20 ms, so the bench knows when to stop waiting.
  let told = -1;
  const progress = setInterval(() => {
    if (receivedAt.size !== told) void send({ type: 'progress', received: (told = receivedAt.size) });
  }, 20);
  process.on('message', (m: Message) => {
    if (m.type === 'report') void send({ type: 'report', receivedAt: [...receivedAt], duplicates });
    if (m.type === 'exit') {
      clearInterval(progress);
      server.closeAllConnections();
      server.close(() => process.disconnect());
    }
  });
  await send({ type: 'ready', port: (server.address() as AddressInfo).port });
}

async function producer(): Promise<void> {
  process.once('message', (m: Message) => {
    if (m.type !== 'produce') return;
    void (async () => {
      const db = openDatabase({ databaseUrl: m.databaseUrl, dataDir: m.dataDir, poolSize: m.poolSize });
      keepEndpointsCached(db); // as the application's composition does
      // Every connection of the pool open before the clock starts (as a running API's would be).
      await Promise.all(Array.from({ length: m.poolSize }, () => db.transaction(async () => {})));
      await send({ type: 'started' });
      const produced = await produce(db, m.options);
      await send({ type: 'produced', ...produced });
      // The pool stays open (its backends' CPU is read) until the bench is done reading.
      process.once('message', () => void db.close().then(() => process.disconnect()));
    })();
  });
  await send({ type: 'ready' });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const role = process.argv[2];
  if (role === 'receiver') await receiver();
  else if (role === 'producer') await producer();
  else throw new Error('usage: webhooks-peers.ts receiver|producer');
}
