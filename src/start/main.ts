// The process entry of `motu`: runs the CLI with the command line and turns its result into an exit code.
// bin/motu.js runs the compiled copy (dist/start/main.js); `node --import tsx src/start/main.ts` runs the source.
// Only the command line is loaded here; each command loads what it needs when it runs (src/start/cli/program.ts).
import { setFlagsFromString } from 'node:v8';
import { main } from './cli.js';

// V8 lets the old generation grow to up to four times what survived the last full collection before collecting it
// again when the process is busy; under sustained load that was 150 MB of garbage (RSS 270 – 290 MiB against 170).
// A fixed factor of 1.5 collects sooner, on the concurrent marker's threads (docs/performance.md, "Memory").
setFlagsFromString('--heap-growing-percent=50');

main(process.argv.slice(2)).then(
  (code) => {
    // -1: `serve` is running and exits on SIGTERM/SIGINT by itself.
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    // main() answers every failure itself; reaching this is a bug in the command line.
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
