// bench/pdf: the largest invoice Motu prints (200 lines of 100 characters of combining and right-to-left text, the
// slowest to lay out), asked for through the API of a listening app (SQLite): how long its first PDF takes (drawn on a
// worker thread), how /healthz answers meanwhile (asked again and again, one after the other), and how long the PDF
// takes once kept. For comparison, the same drawing on the event loop, as before: the event loop is held that long.
// Run alone: `node --import tsx bench/pdf.bench.ts`, or through `npm run bench` (BENCH_ONLY=pdf), which writes the
// "PDFs" section of docs/performance.md.
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { invoiceJob, drawDocument } from '../src/pages/pdf/jobs.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/hash.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { freshDatabase } from '../test/support/harness.js';

const ROUNDS = 3;
const ADMIN = 'bench-admin-token-0123456789';
const HEAVY = Array.from('e\u0301\u0302a\u0308 שלום عالم Pāreu Tiʻare ').join('').repeat(10);

interface Round { firstMs: number; keptMs: number; healthChecks: number; healthP50Ms: number; healthMaxMs: number; onLoopMs: number }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const database = await freshDatabase('sqlite');
  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir, LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: ADMIN, MOTU_RATE_LIMIT_MAX: '10000000', PORT: '0',
  });
  const app = await buildApp(config, { db: database.db, adminTokenHash: sha256Hex(ADMIN), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const merchants = new MerchantsService(database.db, systemClock, secretBoxFor(config));
  const m = await merchants.createMerchant({ name: 'Fare Ute' });
  await merchants.updateMerchant(m.id, { legalName: 'Fare Ute SARL', address: { line1: '1 rue', postalCode: '98713', city: 'Papeete', country: 'PF' }, registrationNumber: 'T1' });
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${address}${url}`, {
      method, headers: { authorization: `Bearer ${m.testSecretKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res;
  };
  const customerId = ((await (await call('POST', '/api/v1/customers', { name: 'Hina' })).json()) as { id: string }).id;
  const lines = Array.from({ length: 200 }, (_, i) => ({ description: Array.from(`${i} ${HEAVY}`).slice(0, 100).join(''), quantity: 1, unitPrice: 100 }));

  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const created = (await (await call('POST', '/api/v1/billing/invoices', { customerId, currency: 'XPF', lines })).json()) as { id: string };
    await call('POST', `/api/v1/billing/invoices/${created.id}/finalize`);
    const started = performance.now();
    let firstMs = 0;
    const pdf = call('GET', `/api/v1/billing/invoices/${created.id}/pdf`).then(async (res) => { await res.arrayBuffer(); firstMs = performance.now() - started; });
    const health: number[] = [];
    while (firstMs === 0) {
      const t0 = performance.now();
      await (await fetch(`${address}/healthz`)).text();
      health.push(performance.now() - t0);
    }
    await pdf;
    const k0 = performance.now();
    await (await call('GET', `/api/v1/billing/invoices/${created.id}/pdf`)).arrayBuffer();
    const keptMs = performance.now() - k0;
    // As before: the same drawing on this thread, which holds the event loop all along.
    const invoice = await database.db.kysely.selectFrom('invoices').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    const merchant = await database.db.kysely.selectFrom('merchants').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
    const l0 = performance.now();
    await drawDocument(invoiceJob(invoice, { merchant, customerName: 'Hina', customerEmail: null }, 'fr'));
    const onLoopMs = performance.now() - l0;
    rounds.push({ firstMs, keptMs, healthChecks: health.length, healthP50Ms: median(health), healthMaxMs: Math.max(...health), onLoopMs });
    console.error(`pdf round ${r + 1}: ${JSON.stringify(rounds.at(-1))}`);
  }
  await app.close();
  await database.drop();

  const f = (n: number) => (n >= 100 ? String(Math.round(n)) : n.toFixed(1));
  const out = [
    'Method: `bench/pdf.bench.ts` runs the API in the process (SQLite, listening on a port) and asks it for the PDF of',
    'the largest invoice it prints: 200 lines of 100 characters of combining marks and right-to-left text (20,000',
    'characters, the bound). While it is drawn, `/healthz` is asked again and again, one request after the other. Then the',
    'same PDF again (kept), and the same drawing on the event loop, as it was before: the loop is held that long.',
    `${ROUNDS} rounds, one new invoice each; pdfkit, ${config.pdfThreads} PDF thread(s) (MOTU_PDF_THREADS).`,
    '',
    '| Round | First PDF (ms, worker thread) | /healthz answered meanwhile | /healthz p50 (ms) | /healthz max (ms) | Same PDF again, kept (ms) | Drawn on the event loop (ms) |',
    '|---|---|---|---|---|---|---|',
    ...rounds.map((r, i) => `| ${i + 1} | ${f(r.firstMs)} | ${r.healthChecks} | ${f(r.healthP50Ms)} | ${f(r.healthMaxMs)} | ${f(r.keptMs)} | ${f(r.onLoopMs)} |`),
    '',
    'Drawn on the event loop, every other request (a health check, a payment) waits for the whole drawing; on a worker',
    'thread the loop only receives the finished bytes, and a finalized document is drawn once per language.',
  ];
  return { section: 'PDFs', markdown: out.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
