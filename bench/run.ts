// `npm run bench`: runs the benchmarks and writes docs/performance.md.
//
// - bench/sessions.ts (session creation vs a bare Fastify route) is run on SQLite, and on PostgreSQL when
//   DATABASE_URL is set; its figures replace the "Machine" and "Sessions" sections.
// - Any other benchmark is a file bench/<name>.bench.ts whose default export resolves to
//   `{ section: string, markdown: string }`: its markdown replaces the section `## <section>`.
// - Every other section of docs/performance.md (written by hand, or by a benchmark not run now) is kept.
//
// BENCH_SECONDS (default 10) sets the measured duration of each load run, BENCH_ROUNDS (default 3) how many times the
// sessions benchmark measures every variant and the bare route (the ratio reported is the median); BENCH_ONLY=sessions,webhooks runs only
// the benchmarks named (sessions, or a .bench.ts file's name), leaving the other sections as they are.
//
// BENCH_SMOKE=1 (`npm run bench:smoke`, run by CI) is a smoke pass: every benchmark once, for about a second each on
// small data, to prove none has rotted. Its figures mean nothing: they are printed, and the document is written to a
// temporary file, never to docs/performance.md. Any benchmark that fails makes the run exit 1.
import { readFileSync, readdirSync, writeFileSync, existsSync, copyFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import { PAGE_CACHE_FIX_MARK } from '../src/db/sqlite/build.js';
import { motuCommand, runSessionsBench, type Figures, type SessionsResult } from './sessions.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const smoke = process.env.BENCH_SMOKE === '1';
if (smoke) {
  // Read by the benchmarks when they are imported below: one short pass each, on data small enough for seconds.
  const small: Record<string, string> = {
    BENCH_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_CHECKOUT_SECONDS: '1', BENCH_LEDGER_SIZES: '2000', BENCH_PAYMENTS: '5000',
    BENCH_SAMPLES: '5', BENCH_PAYOUT_MERCHANTS: '50', BENCH_SCALEOUT_PROCESSES: '1', BENCH_SUBSCRIPTIONS: '200',
    BENCH_WEBHOOK_SECONDS: '1', BENCH_WEBHOOK_RATES: '200', BENCH_WEBHOOK_DRAIN: '500',
    BENCH_GROWTH_PAYMENTS: '2000', BENCH_GROWTH_SAMPLES: '5',
  };
  for (const [name, value] of Object.entries(small)) process.env[name] ??= value;
}
const DOC = smoke ? path.join(mkdtempSync(path.join(os.tmpdir(), 'motu-bench-smoke-')), 'performance.md') : path.join(ROOT, 'docs', 'performance.md');
const seconds = Number(process.env.BENCH_SECONDS ?? '10');
const rounds = Number(process.env.BENCH_ROUNDS ?? '3');
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('BENCH_ROUNDS must be a whole number ≥ 1');
if (!Number.isInteger(seconds) || seconds < 1) throw new Error('BENCH_SECONDS must be a whole number of seconds ≥ 1');
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : undefined;
const selected = (name: string) => !only || only.has(name);
/** Whether motu ran from the compiled build (motuCommand) rather than through tsx. */
let compiledRun = false;

/** Which SQLite the SQLite figures ran on: better-sqlite3's own, or `npm run sqlite:patched`'s (about 13 % apart). */
function sqliteBuild(): string {
  const db = new SQLite(':memory:');
  try {
    const id = db.prepare('select sqlite_source_id()').pluck().get() as string;
    const version = db.prepare('select sqlite_version()').pluck().get() as string;
    return id.endsWith(` ${PAGE_CACHE_FIX_MARK}`)
      ? `${version} with the page cache fix (\`npm run sqlite:patched\`)`
      : `${version}, better-sqlite3's own build (without the page cache fix of \`npm run sqlite:patched\`)`;
  } finally {
    db.close();
  }
}

function machine(): string {
  const cpus = os.cpus();
  return [
    `- CPU: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'}`,
    `- Memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- OS: ${os.type()} ${os.release()}; Node ${process.version}`,
    `- SQLite: ${sqliteBuild()}`,
    `- Load average when the run started: ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')} (the machine may be shared)`,
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
  ].join('\n');
}

function bareFor(r: SessionsResult, f: Figures): Figures | undefined {
  return r.bares.find((b) => b.connections === f.connections && b.round === f.round);
}

/** Per variant and connection count: the ratio to the bare route of the same round, every round, and their median. */
function ratioSummary(r: SessionsResult): { label: string; connections: number; ratios: number[]; median: number }[] {
  const groups = new Map<string, { label: string; connections: number; ratios: number[] }>();
  for (const f of r.runs) {
    const bare = bareFor(r, f);
    if (!bare?.requestsPerSecond) continue;
    const id = `${f.label}|${f.connections}`;
    const group = groups.get(id) ?? { label: f.label, connections: f.connections, ratios: [] };
    group.ratios.push(Math.round((100 * f.requestsPerSecond) / bare.requestsPerSecond));
    groups.set(id, group);
  }
  return [...groups.values()].map((g) => {
    const sorted = [...g.ratios].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return { ...g, median: sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2) };
  });
}

function ratio(f: Figures, bare: Figures | undefined): string {
  if (!bare?.requestsPerSecond) return 'n/a';
  return f === bare ? '100 %' : `${((100 * f.requestsPerSecond) / bare.requestsPerSecond).toFixed(0)} %`;
}

function row(f: Figures, bare: Figures | undefined): string {
  const cpu = f.cpuMicrosPerRequest === undefined ? 'n/a' : String(f.cpuMicrosPerRequest);
  return `| ${f.round ?? 1} | ${f.label} | ${f.connections} | ${f.requestsPerSecond} | ${f.p50} | ${f.p99} | ${ratio(f, bare)} | ${cpu} | ${f.rssLoadMiB ?? 'n/a'} | ${f.non2xx + f.errors} |`;
}

function sessionsMarkdown(results: SessionsResult[]): string {
  const out: string[] = [];
  out.push(
    'Method: `npm run bench` starts the real `motu serve` as a child process on a fresh database (the demo seed gives the',
    `key), then autocannon sends POST ${results[0]?.route ?? ''} with a unique body per request over 32, then 256,`,
    `connections for ${seconds} s each, after a 2 s warm-up. The ceiling is a bare Fastify route (bench/bare.ts) in its own process`,
    'on the same database, doing the same key lookup (SHA-256, one indexed SELECT) and answering the same JSON, without',
    `validation, hooks, transaction or commit, measured in the same run at the same connection counts. ${rounds} rounds: each`,
    'measures every Motu variant, then the bare route ("of the ceiling" compares rows of the same round and connections;',
    'the target is on the median of the rounds). Logs at `warn` for both. SQLite is durable as with `synchronous=FULL`',
    'throughout (every commit fsynced before it is answered, see "Sessions: the profile, step by step"): "naive" is one',
    'transaction and one fsync per request (`MOTU_SQLITE_GROUP_COMMIT=false`), "group commit" the default.',
    '"Server CPU" is the server process\'s user + system time (all its threads) per request during the measured run (from',
    '/proc): it depends much less than throughput on what else the machine is doing. "RSS under load" is the highest',
    'resident set size sampled every 100 ms during the run.',
    '',
  );
  if (results[0]?.route === '/api/v1/customers') {
    out.push('POST /api/v1/payments/sessions did not exist when this was measured: POST /api/v1/customers stood in.', '');
  }
  for (const r of results) {
    out.push(`### ${r.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: POST ${r.route}`, '');
    out.push(
      '| Round | Server | Connections | Requests/s | p50 (ms) | p99 (ms) | of the ceiling | server CPU µs/request | RSS under load (MiB) | non-2xx + errors |',
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const f of [...r.bares, ...r.runs].sort((a, b) => a.connections - b.connections || (a.round ?? 1) - (b.round ?? 1))) out.push(row(f, bareFor(r, f)));
    out.push('', '| Server | Connections | of the ceiling, each round | median |', '|---|---|---|---|');
    for (const g of ratioSummary(r)) out.push(`| ${g.label} | ${g.connections} | ${g.ratios.map((x) => `${x} %`).join(', ')} | **${g.median} %** |`);
    out.push('');
  }
  out.push(
    '### Memory and start-up',
    '',
    compiledRun
      ? 'Motu runs compiled, as in production (`tsc -p tsconfig.build.json` into node_modules/.cache/motu-bench/dist, then `node …/start/main.js serve`).'
      : 'Motu ran from its sources through tsx (`node --import tsx src/start/main.ts serve`; the build failed or BENCH_SOURCE=1): tsx adds about 40 MiB.',
    'Start-up is from spawning the process to the first 200 of `/readyz`; the bare route (always through tsx) has no',
    '`/readyz` (time to listening). RSS idle is read 0.5 s after that.',
    'Target: RSS under load < 200 MiB (table above).',
    '',
    '| Database | Server | Start-up to /readyz (ms) | RSS idle (MiB) | RSS under load, highest (MiB) |',
    '|---|---|---|---|---|',
  );
  for (const r of results) {
    for (const st of r.starts) {
      const loads = [...r.runs, ...r.bares].filter((f) => st.label.startsWith(f.label)).map((f) => f.rssLoadMiB ?? 0);
      out.push(`| ${r.dialect} | ${st.label} | ${st.startupMs} | ${st.rssIdleMiB ?? 'n/a'} | ${loads.length ? Math.max(...loads) : 'n/a'} |`);
    }
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
  const motu = selected('sessions') ? motuCommand(log) : undefined;
  compiledRun = motu?.compiled ?? false;
  const replaced = new Map<string, string>([['Machine', machine()]]);
  if (selected('sessions')) results.push(
    await runSessionsBench({
      dialect: 'sqlite',
      seconds,
      rounds,
      log,
      command: motu!.args,
      variants: [
        { label: 'naive commits', env: { MOTU_SQLITE_GROUP_COMMIT: 'false' }, connections: [32], firstRoundOnly: true },
        { label: 'group commit', env: { MOTU_SQLITE_GROUP_COMMIT: 'true' } },
      ],
    }),
  );
  if (selected('sessions') && process.env.DATABASE_URL) {
    results.push(await runSessionsBench({ dialect: 'postgres', seconds, rounds, log, command: motu!.args, variants: [{ label: 'PostgreSQL', env: {} }] }));
  }
  for (const r of results) {
    for (const f of [...r.bares, ...r.runs].sort((a, b) => a.connections - b.connections)) {
      console.log(
        `${r.dialect.padEnd(8)} ${f.label.padEnd(22)} ${String(f.connections).padStart(3)} conn ${String(f.requestsPerSecond).padStart(6)} req/s  p50 ${f.p50} ms  p99 ${f.p99} ms  ${ratio(f, bareFor(r, f))} of bare  CPU ${f.cpuMicrosPerRequest ?? 'n/a'} µs/req  RSS ${f.rssLoadMiB ?? 'n/a'} MiB`,
      );
    }
    for (const g of ratioSummary(r)) console.log(`${r.dialect.padEnd(8)} ${g.label.padEnd(22)} ${String(g.connections).padStart(3)} conn  rounds ${g.ratios.join(' / ')} % of bare, median ${g.median} %`);
    for (const st of r.starts) console.log(`${r.dialect.padEnd(8)} start-up ${st.startupMs} ms, RSS idle ${st.rssIdleMiB ?? 'n/a'} MiB: ${st.label}`);
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

  if (smoke) copyFileSync(path.join(ROOT, 'docs', 'performance.md'), DOC);
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
