// The back-office application's bundle (/dashboard/assets/app-<hash>.js and .css). From the sources (tsx, tests) it is
// bundled by esbuild on first request; a built install serves dist/dashboard/app.js and app.css, written by
// `npm run build:dashboard` (part of `npm run build`). Either way it is built once per process and served from memory
// under names carrying its content hash, so browsers may cache each file for good. Its brotli and gzip forms are
// compressed once too, with the bundle, off the event loop (zlib's thread pool): a request only picks one.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
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
}

const ENTRY = fileURLToPath(new URL('../../dashboard/app/main.tsx', import.meta.url));
const PREBUILT = { js: fileURLToPath(new URL('../../dashboard/app.js', import.meta.url)), css: fileURLToPath(new URL('../../dashboard/app.css', import.meta.url)) };

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

async function build(): Promise<DashboardBundle> {
  if (existsSync(ENTRY)) {
    const esbuild = await import('esbuild');
    const out = await esbuild.build({
      entryPoints: { app: ENTRY }, bundle: true, minify: true, format: 'esm', target: ['es2020'], outdir: 'dashboard',
      write: false, legalComments: 'none', charset: 'utf8', jsx: 'automatic', define: { 'process.env.NODE_ENV': '"production"' },
    });
    const text = (ext: string) => {
      const file = out.outputFiles.find((f) => f.path.endsWith(ext));
      if (!file) throw new Error(`The dashboard bundle has no ${ext} output`);
      return file.text;
    };
    return { js: await asset(text('.js')), css: await asset(text('.css')) };
  }
  if (existsSync(PREBUILT.js) && existsSync(PREBUILT.css)) {
    return { js: await asset(readFileSync(PREBUILT.js, 'utf8')), css: await asset(readFileSync(PREBUILT.css, 'utf8')) };
  }
  throw new Error('The back-office bundle is missing: run `npm run build` (it writes dist/dashboard/app.js and app.css)');
}
