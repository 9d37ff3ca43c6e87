// Where a `motu serve` under a benchmark waits, inside its own process: loaded into it with
// `NODE_OPTIONS="--import $PWD/bench/motu-probe.mjs"` set for the benchmark (it passes its environment to the server;
// other Node processes started meanwhile ignore it: only a process whose entry is a main.js is probed). Plain
// JavaScript, not TypeScript: the server runs compiled, without tsx. Every second and at exit it writes
// MOTU_PROBE_DIR (the system's temporary directory)/motu-probe-<pid>.json:
// - the event loop's delay (perf_hooks.monitorEventLoopDelay, 2 ms resolution): p50 / p90 / p99 / p99.9 / max, ms, how
//   long a callback ready to run waited for the loop;
// - garbage collection: pauses by kind, their count, total and longest (ms), and those over 10 ms;
// - each PostgreSQL pool (by its size: the app's 10, the delivery worker's 4): how many connections were asked for,
//   how many found none idle with the pool full (queued), and the wait for one, mean / p50 / p99 / max (ms).
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';

const main = process.argv[1] ?? '';
if (main.endsWith('main.js')) {
  const delay = monitorEventLoopDelay({ resolution: 2 });
  delay.enable();
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  const gc = {};
  let over10 = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[entry.detail?.kind] ?? String(entry.detail?.kind);
      const g = (gc[kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
      g.count += 1;
      g.totalMs += entry.duration;
      g.maxMs = Math.max(g.maxMs, entry.duration);
      if (entry.duration > 10) over10 += 1;
    }
  }).observe({ entryTypes: ['gc'] });

  // The pool class pg itself uses (the same module instance as the server's).
  const requireFromPg = createRequire(createRequire(path.resolve(main)).resolve('pg'));
  const Pool = requireFromPg('pg-pool');
  const pools = {};
  const connect = Pool.prototype.connect;
  Pool.prototype.connect = function (callback) {
    const asked = performance.now();
    const queued = this.idleCount === 0 && this.totalCount >= this.options.max;
    const size = this.options.max;
    const record = () => {
      const p = (pools[size] ??= { asked: 0, queued: 0, waits: [] });
      p.asked += 1;
      if (queued) p.queued += 1;
      p.waits.push(performance.now() - asked);
    };
    if (callback) return connect.call(this, (error, client, release) => { record(); callback(error, client, release); });
    return connect.call(this).then((client) => { record(); return client; });
  };

  const ms = (ns) => Math.round(ns / 1e4) / 100;
  const write = () => {
    const byPool = {};
    for (const [size, p] of Object.entries(pools)) {
      const waits = [...p.waits].sort((a, b) => a - b);
      const at = (q) => Math.round((waits[Math.min(waits.length - 1, Math.floor(q * waits.length))] ?? 0) * 100) / 100;
      byPool[size] = { asked: p.asked, queued: p.queued, meanMs: Math.round((waits.reduce((s, w) => s + w, 0) / Math.max(waits.length, 1)) * 100) / 100, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
    }
    writeFileSync(path.join(process.env.MOTU_PROBE_DIR ?? tmpdir(), `motu-probe-${process.pid}.json`), JSON.stringify({
      loopDelayMs: { p50: ms(delay.percentile(50)), p90: ms(delay.percentile(90)), p99: ms(delay.percentile(99)), p999: ms(delay.percentile(99.9)), max: ms(delay.max) },
      gc, gcPausesOver10ms: over10, pools: byPool,
    }, null, 1));
  };
  setInterval(write, 1000).unref();
  process.on('exit', write);
}
