/** A finalized document's PDF, kept once drawn (migration 0040): one per document and language. */
export interface DocumentPdfsTable {
  /** inv_…, cn_… or pay_… (a receipt). */
  document_id: string;
  lang: string;
  /** SHA-256 (hex) of what the PDF was drawn from (jobs.ts) and the drawing's version. */
  digest: string;
  pdf: Buffer;
  created_at: string;
}
