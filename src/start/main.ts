// The process entry of `motu`: runs the CLI with the command line and turns its result into an exit code.
// bin/motu.js runs the compiled copy (dist/start/main.js); `node --import tsx src/start/main.ts` runs the source.
import { setFlagsFromString } from 'node:v8';
import { ConfigError } from '../config.js';
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
    // A configuration mistake is the operator's to fix: its message names the variable; no stack.
    if (err instanceof ConfigError) console.error(err.message);
    else if (String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) console.error(`${(err as Error).message}\nRun motu --help.`);
    else console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
