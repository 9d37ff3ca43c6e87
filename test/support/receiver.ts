// The fake merchant: a real HTTP server on 127.0.0.1 that records every webhook it receives (raw bytes and
// headers) and answers as each test tells it to (status, delay, hang).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './wait.js';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: { id: string; type: string; createdAt: string; data: Record<string, any> };
  at: number;
}

export type Answer = { status: number; delayMs?: number; hang?: boolean; body?: string };

export interface Receiver {
  url(path?: string): string;
  received: Received[];
  on(path: string, answer: (nth: number, r: Received) => Answer): void;
  for(path: string): Received[];
  waitFor(predicate: (all: Received[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers = new Map<string, (nth: number, r: Received) => Answer>();
  const counts = new Map<string, number>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = (req.url ?? '/').split('?')[0]!;
      let body: Received['body'];
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = { id: '', type: '', createdAt: '', data: {} };
      }
      const r: Received = { path, headers: req.headers, raw, body, at: Date.now() };
      received.push(r);
      const nth = (counts.get(path) ?? 0) + 1;
      counts.set(path, nth);
      const answer = answers.get(path)?.(nth, r) ?? { status: 200 };
      if (answer.hang) {
        hanging.add(res);
        return;
      }
      const send = () => res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? 'ok');
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    on: (path, answer) => void answers.set(path, answer),
    for: (path) => received.filter((r) => r.path === path),
    async waitFor(predicate, timeoutMs = 10_000, what = 'webhooks') {
      await eventually(() => `${what} (received ${received.length})`, () => predicate(received), timeoutMs, 10);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
