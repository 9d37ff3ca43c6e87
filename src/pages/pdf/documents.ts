// Documents as PDFs: drawn on the worker threads (pool.ts), and a finalized document's PDF kept once drawn
// (document_pdfs), so asking again for it costs one indexed read instead of seconds of a CPU. A draft is drawn each
// time and never kept: its content still changes.
import { createHash } from 'node:crypto';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { PdfJob, PdfKind } from './jobs.js';
import type { PdfPool } from './pool.js';

/**
 * Part of every digest: raise it when the drawing changes (layout, texts, fonts), so that PDFs kept from the
 * previous drawing are drawn again instead of served.
 */
const DRAWING_VERSION = 2;

export class DocumentPdfs {
  /** Concurrent requests for the same document and content share one drawing. */
  private readonly inFlight = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly pool: PdfPool,
    /** Called once per drawing (not for a kept PDF served): the motu_pdf_drawn_total metric. */
    private readonly onDrawn: (kind: PdfKind) => void = () => {},
  ) {}

  /** `documentId`: the finalized document's id, whose PDF is kept; null for a draft (drawn, not kept). */
  async pdf(job: PdfJob, documentId: string | null): Promise<Buffer> {
    if (documentId === null) return this.draw(job);
    const digest = createHash('sha256').update(`${DRAWING_VERSION}\n${JSON.stringify(job)}`).digest('hex');
    const kept = await this.db.kysely.selectFrom('document_pdfs').select('pdf')
      .where('document_id', '=', documentId).where('lang', '=', job.lang).where('digest', '=', digest).executeTakeFirst();
    if (kept) return Buffer.from(kept.pdf);
    const key = `${documentId}\n${job.lang}\n${digest}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const drawing = this.drawAndKeep(job, documentId, digest).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, drawing);
    return drawing;
  }

  private async drawAndKeep(job: PdfJob, documentId: string, digest: string): Promise<Buffer> {
    const pdf = await this.draw(job);
    // One row per document and language: a document whose content changed (an invoice paid since) replaces it.
    const row = { document_id: documentId, lang: job.lang, digest, pdf, created_at: this.clock.now().toISOString() };
    await this.db.kysely.insertInto('document_pdfs').values(row)
      .onConflict((oc) => oc.columns(['document_id', 'lang']).doUpdateSet({ digest, pdf, created_at: row.created_at }))
      .execute();
    return pdf;
  }

  private async draw(job: PdfJob): Promise<Buffer> {
    const pdf = await this.pool.draw(job);
    this.onDrawn(job.kind);
    return pdf;
  }
}
