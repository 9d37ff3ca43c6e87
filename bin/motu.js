#!/usr/bin/env node
// The `motu` binary: runs the compiled CLI (dist/, built by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/start/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('motu is not built yet: run `npm install` (or `npm run build`) in the project folder first.');
  process.exit(1);
}
await import(entry.href);
