// The worker threads that draw PDFs (piscina): pdfkit lays text out synchronously, and the largest invoice takes
// seconds of a CPU; on the event loop that would stall every other request (health checks included) meanwhile.
// Threads start on the first document and stop after a minute without one; the queue is bounded, and a full
// queue is 503 SERVICE_UNAVAILABLE rather than a wait without end.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { AppError } from '../../shared/errors.js';
import type { PdfJob } from './jobs.js';

export interface PdfPool {
  draw(job: PdfJob): Promise<Buffer>;
  close(): Promise<void>;
}

/** Documents waiting per thread before new ones are refused. */
const QUEUE_PER_THREAD = 32;

export function pdfPool(threads: number): PdfPool {
  // The worker beside this file: worker.ts under tsx (tests, benchmarks), worker.js once built.
  const here = fileURLToPath(import.meta.url);
  const pool = new Piscina({
    filename: new URL(`./worker${extname(here)}`, import.meta.url).href,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: 60_000,
    maxQueue: threads * QUEUE_PER_THREAD,
  });
  return {
    async draw(job) {
      let out: Uint8Array;
      try {
        out = await pool.run(job);
      } catch (err) {
        if (err instanceof Error && /queue is at limit/i.test(err.message)) {
          throw new AppError('SERVICE_UNAVAILABLE', 'Too many documents are being drawn; retry in a moment');
        }
        throw err;
      }
      return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    },
    close: () => pool.close(),
  };
}
