// CSV for every list of money rows: RFC 4180 (comma, CRLF, fields quoted when they hold a comma, a quote or a line
// break, quotes doubled), one header row, and the rows streamed as they are read, so an export of a million rows
// holds one batch in memory, not the file.
import { Readable } from 'node:stream';

export type CsvValue = string | number | boolean | null | undefined;

export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // A leading =, +, - or @ makes spreadsheets run the cell as a formula: such text is quoted with a leading apostrophe.
  const safe = typeof value === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(values: readonly CsvValue[]): string {
  return values.map(csvField).join(',') + '\r\n';
}

/** A header and the rows of `batches` (each an array of rows, read one batch at a time) as a CSV stream. */
export function csvStream<T>(header: readonly string[], batches: AsyncIterable<readonly T[]> | Iterable<readonly T[]>, toValues: (row: T) => readonly CsvValue[]): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield csvLine(header);
    for await (const batch of batches) {
      if (batch.length) yield batch.map((row) => csvLine(toValues(row))).join('');
    }
  }
  return Readable.from(lines());
}

/** Whether the client asked for CSV (`Accept: text/csv`) rather than JSON. */
export function wantsCsv(accept: string | undefined): boolean {
  return !!accept && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept);
}
