#!/usr/bin/env node
// The `motu` binary: runs the compiled CLI (dist/, built by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/start/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  // Answered like every other failure of motu: JSON on stdout with what to do next (docs/cli.md).
  console.log(JSON.stringify({
    code: 'NOT_BUILT',
    message: 'motu is not built yet (dist/start/main.js is missing)',
    hint: 'Run `npm install` (or `npm run build`) in the project folder first.',
  }, null, 2));
  process.exit(1);
}
await import(entry.href);
