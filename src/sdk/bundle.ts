// The browser SDK bundle (/sdk/v1/motu.js). From the sources (tsx, tests) it is bundled by esbuild on first
// request; a built install serves dist/sdk/motu.js, written by `npm run build:sdk` (part of `npm run build`).
// Either way it is built once per process and served from memory with its hash (ETag, versioned path).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export interface SdkBundle {
  code: string;
  /** First 16 hex characters of the SHA-256 of the code: the versioned path's name and the ETag. */
  hash: string;
  /** `sha384-…` for a Subresource Integrity attribute. */
  integrity: string;
  gzipBytes: number;
}

const ENTRY = fileURLToPath(new URL('./browser/motu.ts', import.meta.url));
const PREBUILT = fileURLToPath(new URL('./motu.js', import.meta.url));

let cached: Promise<SdkBundle> | null = null;

export function sdkBundle(): Promise<SdkBundle> {
  cached ??= build().catch((err: unknown) => {
    cached = null;
    throw err;
  });
  return cached;
}

async function build(): Promise<SdkBundle> {
  let code: string;
  if (existsSync(ENTRY)) {
    const esbuild = await import('esbuild');
    const out = await esbuild.build({
      entryPoints: [ENTRY], bundle: true, minify: true, format: 'iife', target: ['es2020'],
      write: false, legalComments: 'none', charset: 'utf8',
    });
    code = out.outputFiles[0]!.text;
  } else if (existsSync(PREBUILT)) {
    code = readFileSync(PREBUILT, 'utf8');
  } else {
    throw new Error('The SDK bundle is missing: run `npm run build` (it writes dist/sdk/motu.js)');
  }
  return {
    code,
    hash: createHash('sha256').update(code).digest('hex').slice(0, 16),
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
    gzipBytes: gzipSync(code).length,
  };
}
