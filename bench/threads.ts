// Where `motu serve`'s CPU goes by thread under the sessions load: `node --import tsx bench/threads.ts` starts the
// server as the benchmarks do (bench/sessions.ts's motuCommand) on a fresh SQLite database (PROFILE_DATABASE_URL for
// PostgreSQL), sends POST /api/v1/payments/sessions over CONNECTIONS (default 32) for PROFILE_SECONDS (default 8, after
// bench/sessions.ts's 2 s warm-up), REPEAT times (default 1), and prints each thread's busy share of the wall clock
// (from /proc/<pid>/task, Linux) and the load generator's (this process). A main thread near 100 % is the limit.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load, startMeasuredMotu, stop } from './sessions.js';

const seconds = Number(process.env.PROFILE_SECONDS ?? '8');
const connections = Number(process.env.CONNECTIONS ?? '32');
const CLOCK_TICKS = 100; // USER_HZ: the unit of utime and stime in /proc

/** CPU seconds so far per thread name (the main thread as `main`; libuv's pool and V8's helpers under their names). */
function threadSeconds(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'motu-threads-'));
try {
  const motu = await startMeasuredMotu(dataDir);
  const pid = motu.child.pid!;
  try {
    for (let i = 0; i < Number(process.env.REPEAT ?? '1'); i++) {
      const before = threadSeconds(pid);
      const ownBefore = process.cpuUsage();
      const started = performance.now();
      const f = await load('threads', motu.url, '/api/v1/payments/sessions', motu.key, seconds, pid, connections);
      const wall = (performance.now() - started) / 1000;
      const own = process.cpuUsage(ownBefore);
      const busy = [...threadSeconds(pid)].map(([name, cpu]) => `${name} ${Math.round((100 * (cpu - (before.get(name) ?? 0))) / wall)} %`);
      console.log(`${f.requestsPerSecond} sessions/s, server CPU ${f.cpuMicrosPerRequest} µs/session, p50 ${f.p50} ms, p99 ${f.p99} ms`);
      console.log(`  busy share of ${wall.toFixed(1)} s (warm-up included): ${busy.join(', ')}; load generator ${Math.round((100 * (own.user + own.system)) / 1e6 / wall)} %`);
    }
  } finally {
    await stop(motu.child);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
