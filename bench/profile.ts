// Profiles `motu serve` under the sessions load: `node --import tsx bench/profile.ts` starts the server (compiled as the
// benchmarks run it, bench/sessions.ts's motuCommand; BENCH_SOURCE=1 for the sources through tsx) with
// `--cpu-prof` on a fresh SQLite database (group commit, synchronous=FULL), sends POST /api/v1/payments/sessions over
// 32 connections for PROFILE_SECONDS (default 8), stops it and prints the summary of bench/cpuprofile.ts.
// PROFILE_DIR keeps the .cpuprofile (default a temporary directory); extra env (MOTU_*) passes through.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load, startMeasuredMotu, stop } from './sessions.js';
import { summarise } from './cpuprofile.js';

const seconds = Number(process.env.PROFILE_SECONDS ?? '8');
const dataDir = mkdtempSync(path.join(tmpdir(), 'motu-profile-'));
const profDir = process.env.PROFILE_DIR ?? mkdtempSync(path.join(tmpdir(), 'motu-cpuprof-'));
const route = process.env.PROFILE_ROUTE ?? '/api/v1/payments/sessions';
try {
  const motu = await startMeasuredMotu(dataDir, ['--cpu-prof', `--cpu-prof-dir=${profDir}`], (line) => console.log(line));
  try {
    const f = await load('profile', motu.url, route, motu.key, seconds, motu.child.pid);
    console.log(`${f.requestsPerSecond} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms, CPU ${f.cpuMicrosPerRequest} µs/request, non-2xx ${f.non2xx}, errors ${f.errors}`);
  } finally {
    await stop(motu.child);
  }
  // One profile per thread (tsx's loader runs in a worker): the main thread's is the largest.
  const file = readdirSync(profDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort((a, b) => statSync(path.join(profDir, b)).size - statSync(path.join(profDir, a)).size)[0];
  if (!file) throw new Error('no profile written');
  console.log(`profile: ${path.join(profDir, file)}`);
  console.log(summarise(JSON.parse(readFileSync(path.join(profDir, file), 'utf8')), Number(process.env.PROFILE_TOP ?? '45'), process.env.PROFILE_FILTER));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
