// `npm run bench`: runs the benchmarks and writes docs/performance.md.
//
// - bench/sessions.ts (session creation vs a bare Fastify route) is run on SQLite, and on PostgreSQL when
//   DATABASE_URL is set; its figures replace the "Machine" and "Sessions" sections.
// - Any other benchmark is a file bench/<name>.bench.ts whose default export resolves to
//   `{ section: string, markdown: string }`: its markdown replaces the section `## <section>`.
// - Every other section of docs/performance.md (written by hand, or by a benchmark not run now) is kept.
//
// BENCH_SECONDS (default 10) sets the measured duration of each load run; BENCH_ONLY=sessions,webhooks runs only
// the benchmarks named (sessions, or a .bench.ts file's name), leaving the other sections as they are.
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runSessionsBench, type Figures, type SessionsResult } from './sessions.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DOC = path.join(ROOT, 'docs', 'performance.md');
const seconds = Number(process.env.BENCH_SECONDS ?? '10');
if (!Number.isInteger(seconds) || seconds < 1) throw new Error('BENCH_SECONDS must be a whole number of seconds ≥ 1');
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : undefined;
const selected = (name: string) => !only || only.has(name);

function machine(): string {
  const cpus = os.cpus();
  return [
    `- CPU: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'}`,
    `- Memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- OS: ${os.type()} ${os.release()}; Node ${process.version}`,
    `- Load average when the run started: ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')} (the machine may be shared)`,
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
  ].join('\n');
}

function row(f: Figures, bare: Figures): string {
  const ratio = bare.requestsPerSecond ? (100 * f.requestsPerSecond) / bare.requestsPerSecond : 0;
  const cpu = f.cpuMicrosPerRequest === undefined ? 'n/a' : String(f.cpuMicrosPerRequest);
  return `| ${f.label} | ${f.requestsPerSecond} | ${f.p50} | ${f.p99} | ${f === bare ? '100 %' : `${ratio.toFixed(0)} %`} | ${cpu} | ${f.non2xx + f.errors} |`;
}

function sessionsMarkdown(results: SessionsResult[]): string {
  const out: string[] = [];
  out.push(
    'Method: `npm run bench` starts the real `motu serve` as a child process on a fresh database (the demo seed gives the',
    `key), then autocannon sends POST ${results[0]?.route ?? ''} with a unique body per request over ${results[0]?.connections ?? 32}`,
    `connections for ${seconds} s, after a 2 s warm-up. The ceiling is a bare Fastify route (bench/bare.ts) in its own process`,
    'on the same database, doing the same key lookup (SHA-256, one indexed SELECT) and answering the same JSON, without',
    'validation, hooks, transaction or commit. Logs at `warn` for both. SQLite runs with `synchronous=FULL` throughout:',
    '"naive" is one transaction and one fsync per request (`MOTU_SQLITE_GROUP_COMMIT=false`), "group commit" the default.',
    '"Server CPU" is the server process\'s user + system time per request during the measured run (from /proc): it',
    'depends much less than throughput on what else the machine is doing, and bounds throughput on a quiet machine.',
    '',
  );
  if (results[0]?.route === '/api/v1/customers') {
    out.push('POST /api/v1/payments/sessions did not exist when this was measured: POST /api/v1/customers stood in.', '');
  }
  for (const r of results) {
    out.push(`### ${r.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: POST ${r.route}`, '');
    out.push(
      '| Server | Requests/s | p50 (ms) | p99 (ms) | of the ceiling | server CPU µs/request | non-2xx + errors |',
      '|---|---|---|---|---|---|---|',
    );
    out.push(row(r.bare, r.bare));
    for (const f of r.runs) out.push(row(f, r.bare));
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/** Splits a markdown document into its preamble and `## ` sections, in order. */
function sections(text: string): { preamble: string; parts: { title: string; body: string }[] } {
  const lines = text.split('\n');
  const parts: { title: string; body: string }[] = [];
  const preamble: string[] = [];
  for (const line of lines) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) parts.push({ title: heading[1]!.trim(), body: '' });
    else if (parts.length) parts[parts.length - 1]!.body += `${line}\n`;
    else preamble.push(line);
  }
  return { preamble: preamble.join('\n'), parts };
}

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const results: SessionsResult[] = [];
  const replaced = new Map<string, string>([['Machine', machine()]]);
  if (selected('sessions')) results.push(
    await runSessionsBench({
      dialect: 'sqlite',
      seconds,
      log,
      variants: [
        { label: 'naive commits', env: { MOTU_SQLITE_GROUP_COMMIT: 'false' } },
        { label: 'group commit', env: { MOTU_SQLITE_GROUP_COMMIT: 'true' } },
      ],
    }),
  );
  if (selected('sessions') && process.env.DATABASE_URL) {
    results.push(await runSessionsBench({ dialect: 'postgres', seconds, log, variants: [{ label: 'PostgreSQL', env: {} }] }));
  }
  for (const r of results) {
    for (const f of [r.bare, ...r.runs]) {
      const ratio = ((100 * f.requestsPerSecond) / r.bare.requestsPerSecond).toFixed(0);
      console.log(
        `${r.dialect.padEnd(8)} ${f.label.padEnd(20)} ${String(f.requestsPerSecond).padStart(6)} req/s  p50 ${f.p50} ms  p99 ${f.p99} ms  ${ratio} % of bare  CPU ${f.cpuMicrosPerRequest ?? 'n/a'} µs/req`,
      );
    }
  }

  if (results.length) replaced.set('Sessions', sessionsMarkdown(results));
  for (const file of readdirSync(import.meta.dirname).filter((f) => f.endsWith('.bench.ts') && selected(f.replace(/\.bench\.ts$/, ''))).sort()) {
    const mod = (await import(pathToFileURL(path.join(import.meta.dirname, file)).href)) as {
      default: () => Promise<{ section: string; markdown: string }>;
    };
    log(`running bench/${file}…`);
    const { section, markdown } = await mod.default();
    replaced.set(section, markdown.trimEnd());
  }

  const current = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
  const { preamble, parts } = sections(current);
  const head = preamble.trim() || '# Performance\n\nFigures written by `npm run bench` (bench/run.ts). Sections not produced by a benchmark are kept as written.';
  const out: string[] = [head, ''];
  const done = new Set<string>();
  for (const part of parts) {
    if (replaced.has(part.title)) {
      out.push(`## ${part.title}`, '', replaced.get(part.title)!, '');
      done.add(part.title);
    } else {
      out.push(`## ${part.title}`, part.body.trimEnd(), '');
    }
  }
  for (const [title, body] of replaced) if (!done.has(title)) out.push(`## ${title}`, '', body, '');
  writeFileSync(DOC, `${out.join('\n').trimEnd()}\n`);
  log(`wrote ${path.relative(ROOT, DOC)}`);
}

await main();
