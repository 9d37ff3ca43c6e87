#!/usr/bin/env node
// The `motu` binary: runs the compiled CLI (built by `npm install` through the `prepare` script).
import { main } from '../dist/start/cli.js';

main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number' && code >= 0) process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : String(err)); process.exit(1); },
);
