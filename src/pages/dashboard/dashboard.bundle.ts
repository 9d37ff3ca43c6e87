// The back-office application's bundle (/dashboard/assets/app-<hash>.js and .css, and the pages' chunks
// /dashboard/assets/chunk-<hash>.js, which the application imports when a page is first visited). From the sources
// (tsx, tests) it is bundled by esbuild on first request; a built install serves dist/dashboard/app.js, app.css and
// chunk-*.js, written by `npm run build:dashboard` (part of `npm run build`). Either way it is built once per process and served from memory
// under names carrying its content hash, so browsers may cache each file for good. Its brotli and gzip forms are
// compressed once too, with the bundle, off the event loop (zlib's thread pool): a request only picks one.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

export interface DashboardAsset {
  body: string;
  /** First 16 hex characters of the SHA-256 of the body: the versioned file name's and the ETag. */
  hash: string;
  /** The body compressed, for a browser whose Accept-Encoding takes it. */
  br: Buffer;
  gzip: Buffer;
}

export interface DashboardBundle {
  js: DashboardAsset;
  css: DashboardAsset;
  /** The chunks by file name (`chunk-<esbuild's content hash>.js`), which the entry imports by that name. */
  chunks: ReadonlyMap<string, DashboardAsset>;
  /** The chunks the entry imports statically, transitively: the shell names them (modulepreload), so the browser asks
   * for them with the entry instead of after reading it. */
  preload: readonly string[];
}

/** esbuild's chunk names: its content hash, so a chunk's name changes with it and the entry's hash with its names. */
export const CHUNK_NAME = /^chunk-[A-Z0-9]+\.js$/;

const ENTRY = fileURLToPath(new URL('../../dashboard/app/main.tsx', import.meta.url));
const PREBUILT_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url));
const PREBUILT = { js: path.join(PREBUILT_DIR, 'app.js'), css: path.join(PREBUILT_DIR, 'app.css') };

let cached: Promise<DashboardBundle> | null = null;

export function dashboardBundle(): Promise<DashboardBundle> {
  cached ??= build().catch((err: unknown) => {
    cached = null;
    throw err;
  });
  return cached;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

async function asset(body: string): Promise<DashboardAsset> {
  const [br, gz] = await Promise.all([
    brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body) } }),
    gzipped(body, { level: 9 }),
  ]);
  return { body, hash: createHash('sha256').update(body).digest('hex').slice(0, 16), br, gzip: gz };
}

async function assemble(files: ReadonlyMap<string, string>): Promise<DashboardBundle> {
  const js = files.get('app.js');
  const css = files.get('app.css');
  if (js === undefined || css === undefined) throw new Error('The dashboard bundle has no app.js or app.css');
  const chunks = new Map<string, DashboardAsset>();
  for (const [name, body] of files) if (CHUNK_NAME.test(name)) chunks.set(name, await asset(body));
  return { js: await asset(js), css: await asset(css), chunks, preload: staticImports(js, files) };
}

/** The chunks a module imports statically (`from"./chunk-X.js"`, `import"./chunk-X.js"`), and theirs, in order. */
function staticImports(entry: string, files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  const visit = (body: string) => {
    for (const m of body.matchAll(/(?:from|import)\s*"\.\/(chunk-[A-Z0-9]+\.js)"/g)) {
      const name = m[1]!;
      if (found.includes(name) || !files.has(name)) continue;
      found.push(name);
      visit(files.get(name)!);
    }
  };
  visit(entry);
  return found;
}

async function build(): Promise<DashboardBundle> {
  if (existsSync(ENTRY)) {
    const esbuild = await import('esbuild');
    // The same options as `npm run build:dashboard` (package.json).
    const out = await esbuild.build({
      entryPoints: { app: ENTRY }, bundle: true, minify: true, format: 'esm', target: ['es2020'], outdir: 'dashboard',
      splitting: true, chunkNames: 'chunk-[hash]',
      write: false, legalComments: 'none', charset: 'utf8', jsx: 'automatic', define: { 'process.env.NODE_ENV': '"production"' },
    });
    const files = new Map(out.outputFiles.map((f) => [path.basename(f.path), f.text]));
    return assemble(files);
  }
  if (existsSync(PREBUILT.js) && existsSync(PREBUILT.css)) {
    const names = readdirSync(PREBUILT_DIR).filter((name) => name === 'app.js' || name === 'app.css' || CHUNK_NAME.test(name));
    return assemble(new Map(names.map((name) => [name, readFileSync(path.join(PREBUILT_DIR, name), 'utf8')])));
  }
  throw new Error('The back-office bundle is missing: run `npm run build` (it writes dist/dashboard/app.js and app.css)');
}
