// A PDF worker thread (pool.ts): draws one document per task and hands its bytes back without copying them.
import { move } from 'piscina';
import { drawDocument, type PdfJob } from './jobs.js';

export default async function draw(job: PdfJob): Promise<Uint8Array> {
  const pdf = await drawDocument(job);
  // A fresh buffer of its own (a Buffer may be a slice of a shared pool), transferred to the main thread.
  return move(new Uint8Array(pdf)) as Uint8Array;
}
