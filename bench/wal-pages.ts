// What a payment writes to SQLite's WAL, page by page: `node --import tsx bench/wal-pages.ts`. The app and its delivery
// worker run in this process (SQLite, a fresh database), a loopback receiver takes the webhooks, and BENCH_PAYMENTS
// (default 2000) payments are paid through HTTP, BENCH_CONCURRENCY (default 16) at a time as bench/checkout.bench.ts
// does (session, token, pay, capture; both events delivered); then BENCH_SPLIT_PAYMENTS (default 500) split between 10
// sellers. Every frame appended to the WAL is read back (its page number; a frame whose commit field is set ends a
// transaction) before and after each statement the connection runs, so that none is missed when a checkpoint lets the
// WAL start over. At the end each page number is named by the dbstat table (the table or index whose B-tree holds
// it). Reports, per payment: frames written, COMMITs (and their time), this process's CPU, and the frames of each
// table and index, most first.
// Every WAL frame is a whole page (2 KiB here) written, fsynced, then copied to the database file by the checkpoint.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import pino from 'pino';

// BENCH_ROOT: the tree whose app is measured (default: this one).
const root = path.resolve(process.env.BENCH_ROOT ?? path.join(import.meta.dirname, '..'));
const from = (file: string) => import(pathToFileURL(path.join(root, file)).href);
const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? '2000');
const SPLIT_PAYMENTS = Number(process.env.BENCH_SPLIT_PAYMENTS ?? '500');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? '16');
const SELLERS = 10;
// BENCH_SCAN=0: the WAL is read only at the end of each phase (frames lost to a checkpoint's restart are not counted),
// so that the process's CPU and the COMMITs' times are those of the app alone.
const SCAN = process.env.BENCH_SCAN !== '0';

/** Reads the frames appended to one WAL file since the last call. */
class WalReader {
  private fd = -1;
  private salt = '';
  private next = 0; // index of the next frame to read
  private pageSize = 0;
  frames = 0;
  commits = 0;
  readonly pages = new Map<number, number>();
  private readonly header = Buffer.alloc(32);
  private readonly frameHeader = Buffer.alloc(24);

  constructor(private readonly file: string) {}

  scan(): void {
    if (this.fd < 0) {
      try {
        this.fd = openSync(this.file, 'r');
      } catch {
        return;
      }
    }
    const size = fstatSync(this.fd).size;
    if (size < 32) return;
    readSync(this.fd, this.header, 0, 32, 0);
    this.pageSize = this.header.readUInt32BE(8);
    const salt = this.header.subarray(16, 24).toString('hex');
    if (salt !== this.salt) {
      this.salt = salt;
      this.next = 0; // the WAL started over
    }
    for (;;) {
      const at = 32 + this.next * (24 + this.pageSize);
      if (at + 24 + this.pageSize > size) return;
      readSync(this.fd, this.frameHeader, 0, 24, at);
      if (this.frameHeader.subarray(8, 16).toString('hex') !== salt) return; // a frame of an earlier round
      const page = this.frameHeader.readUInt32BE(0);
      this.pages.set(page, (this.pages.get(page) ?? 0) + 1);
      this.frames += 1;
      if (this.frameHeader.readUInt32BE(4) !== 0) this.commits += 1;
      this.next += 1;
    }
  }

  reset(): void {
    this.frames = 0;
    this.commits = 0;
    this.pages.clear();
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
  }
}

let reader: WalReader | undefined;
/** The time of each COMMIT the app's connection ran (µs, on the event loop: SQLite writing the frames to the WAL). */
const commitMicros: number[] = [];
const statementProto = (SQLite as unknown as { prototype: { prepare: (...a: unknown[]) => unknown } }).prototype;
const prepare = statementProto.prepare;
statementProto.prepare = function (this: { name: string }, ...args: unknown[]) {
  const statement = prepare.apply(this, args) as Record<string, (...a: unknown[]) => unknown>;
  const connection = this;
  const isCommit = /^\s*(commit|end)\b/i.test(String(args[0]));
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statement[method]!;
    statement[method] = function (this: unknown, ...a: unknown[]) {
      const app = reader !== undefined && connection.name.endsWith('motu.sqlite');
      if (app && SCAN) reader!.scan();
      const start = process.hrtime.bigint();
      const out = original.apply(this, a);
      if (app && isCommit) commitMicros.push(Number(process.hrtime.bigint() - start) / 1000);
      if (app && SCAN) reader!.scan();
      return out;
    };
  }
  return statement;
};

const { buildApp } = await from('src/app.ts');
const { parseConfig } = await from('src/config.ts');
const { MerchantsService } = await from('src/modules/merchants/merchants.service.ts');
const { linkSeller } = await from('src/modules/platforms/platform-links.ts');
const { startDeliveryWorker } = await from('src/events/worker.ts');
const { systemClock } = await from('src/shared/clock.ts');
const { sha256Hex } = await from('src/shared/hash.ts');
const { secretBoxFor } = await from('src/shared/secret-box.ts');
const { freshDatabase } = await from('test/support/harness.ts');
const { SQLITE_FILE } = await from('src/db/sqlite/sqlite.ts');
const { payThrough, poster } = await import('./checkout.bench.js');

const ADMIN = 'bench-admin-token-0123456789';
const database = await freshDatabase('sqlite');
let delivered = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    delivered += 1;
    res.writeHead(204).end();
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
const config = parseConfig({
  MOTU_DATA_DIR: database.dataDir, LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: ADMIN, MOTU_RATE_LIMIT_MAX: '10000000',
  MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0',
});
const logger = pino({ level: 'silent' });
const app = await buildApp(config, { db: database.db, adminTokenHash: sha256Hex(ADMIN), clock: systemClock, logger });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
const worker = startDeliveryWorker(config, database.db, systemClock, logger);
const merchants = new MerchantsService(database.db, systemClock, secretBoxFor(config));
const merchant = await merchants.createMerchant({ name: 'Bench' });
const post = poster(address, CONCURRENCY);
const wal = new WalReader(path.join(database.dataDir, SQLITE_FILE) + '-wal');

async function settle(expected: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (delivered < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 300)); // the last deliveries' records
}

async function phase(count: number, pay: (i: number) => Promise<unknown>): Promise<void> {
  let n = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (n < count) await pay(n++);
  }));
}

type Tally = { frames: number; commits: number; pages: Map<number, number>; commitMicros: number[]; cpu: number };
let cpuFrom = process.cpuUsage();
const take = (): Tally => {
  wal.scan();
  const cpu = process.cpuUsage(cpuFrom);
  const out = { frames: wal.frames, commits: wal.commits, pages: new Map(wal.pages), commitMicros: commitMicros.splice(0), cpu: cpu.user + cpu.system };
  wal.reset();
  cpuFrom = process.cpuUsage();
  return out;
};

// Warm-up (not counted): caches, prepared statements, the first pages of every table.
reader = wal;
await phase(200, (i) => payThrough(post, merchant.testSecretKey, hook, 1_000_000 + i));
await settle(400);
take();
delivered = 0;
await phase(PAYMENTS, (i) => payThrough(post, merchant.testSecretKey, hook, i));
await settle(2 * PAYMENTS);
const single = take();

// Split payments: a platform and 10 sellers linked to it, as bench/checkout.bench.ts does.
const platform = await merchants.createMerchant({ name: 'Bench Market' });
await database.db.kysely.updateTable('merchants').set({ platform: 1 }).where('id', '=', platform.id).execute();
const sellers: string[] = [];
for (let i = 0; i < SELLERS; i++) sellers.push((await merchants.createMerchant({ name: `Bench Seller ${i}` })).id);
await database.db.transaction(async (trx: unknown) => {
  for (const sellerId of sellers) await linkSeller(trx, { platformId: platform.id, sellerId, mode: 'test', at: new Date() });
});
const payOne = async (i: number) => {
  const each = 100 + (i % 500);
  const session = await post('/api/v1/payments/sessions', {
    order: {
      reference: `S-${i}`, amount: each * SELLERS - 50, currency: i % 2 ? 'XPF' : 'EUR',
      platformConfig: { distribution: sellers.map((merchantId, k) => ({ merchantId, amount: each, commission: { rate: 1000, fixed: 5 }, ...(k === 0 ? { discount: 50 } : {}) })) },
    },
    captureMode: 'MANUAL', email: 'buyer@example.com', redirectUrl: 'https://shop.example/return', notificationUrl: `${hook}-split`,
  }, platform.testSecretKey);
  const token = await post('/acquirer/v1/tokens', { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: session.sessionId });
  await post(`/checkout/${session.sessionId}/pay`, { token: token.token });
  await post(`/api/v1/payments/${session.paymentId}/capture`, {}, platform.testSecretKey);
};
await phase(100, (i) => payOne(1_000_000 + i));
await settle(delivered + 200);
take();
delivered = 0;
await phase(SPLIT_PAYMENTS, payOne);
await settle(2 * SPLIT_PAYMENTS);
const split = take();
reader = undefined;

// Each page named by the B-tree that holds it now.
const names = new Map<number, string>();
const stat = new SQLite(path.join(database.dataDir, SQLITE_FILE), { readonly: true });
for (const row of stat.prepare('select name, pageno from dbstat').all() as { name: string; pageno: number }[]) names.set(row.pageno, row.name);
stat.close();

function report(title: string, t: Tally, payments: number) {
  const byName = new Map<string, number>();
  for (const [page, n] of t.pages) {
    const name = names.get(page) ?? '(free or overflow)';
    byName.set(name, (byName.get(name) ?? 0) + n);
  }
  console.log(`\n${title}: ${payments} payments, ${(t.frames / payments).toFixed(1)} WAL frames per payment, ` +
    `${(t.commits / payments).toFixed(2)} commits per payment, ${(t.frames / Math.max(t.commits, 1)).toFixed(1)} frames per commit`);
  const sorted = [...t.commitMicros].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  console.log(`COMMIT statements: ${(sorted.length / payments).toFixed(2)} per payment, median ${Math.round(sorted[sorted.length >> 1] ?? NaN)} µs, ` +
    `mean ${Math.round(sum / sorted.length)} µs, ${Math.round(sum / payments)} µs per payment; this process's CPU (app, worker, client) ` +
    `${Math.round(t.cpu / payments)} µs per payment`);
  console.log('| B-tree (table or index) | frames per payment |');
  console.log('|---|---|');
  for (const [name, n] of [...byName].sort((a, b) => b[1] - a[1])) {
    if (n / payments >= 0.05) console.log(`| ${name} | ${(n / payments).toFixed(2)} |`);
  }
}
report('Single merchant', single, PAYMENTS);
report(`Split between ${SELLERS} sellers`, split, SPLIT_PAYMENTS);

wal.close();
await post.close();
await worker.stop();
await app.close();
receiver.close();
// BENCH_KEEP=1: the database is kept for a look (its directory printed).
if (process.env.BENCH_KEEP === '1') {
  await database.db.close();
  console.log(`\nkept: ${database.dataDir}`);
} else {
  await database.drop();
}
