// The text of a PDF as a reader sees it, for tests of the receipts: pdfkit writes text in embedded fonts as glyph
// ids (<0012003a> TJ); the ToUnicode map it embeds with each font turns them back into characters. Lines are the
// text fragments sharing a baseline, left to right. Enough for pdfkit's own output, not a general PDF reader.
import { inflateSync } from 'node:zlib';

interface PdfObject { dict: string; stream: Buffer | null }

function objects(pdf: Buffer): Map<number, PdfObject> {
  const text = pdf.toString('latin1');
  const found = new Map<number, PdfObject>();
  for (const m of text.matchAll(/(\d+) 0 obj\s*([\s\S]*?)endobj/g)) {
    const body = m[2]!;
    const at = body.indexOf('stream');
    if (at < 0) { found.set(Number(m[1]), { dict: body, stream: null }); continue; }
    const dict = body.slice(0, at);
    let raw = body.slice(at + 'stream'.length).replace(/^\r?\n/, '');
    // The dictionary's /Length when it is there: compressed data may itself end with a newline byte.
    const length = /\/Length (\d+)\b/.exec(dict);
    raw = length ? raw.slice(0, Number(length[1])) : raw.slice(0, raw.lastIndexOf('endstream')).replace(/\r?\n$/, '');
    const bytes = Buffer.from(raw, 'latin1');
    found.set(Number(m[1]), { dict, stream: /FlateDecode/.test(dict) ? inflateSync(bytes) : bytes });
  }
  return found;
}

/** `<0066 0069>`: one code for a ligature (fi) may stand for several characters. */
function utf16(hex: string): string {
  return Buffer.from(hex.replace(/\s+/g, ''), 'hex').swap16().toString('utf16le');
}

/** glyph id → text, from a ToUnicode CMap (bfchar and bfrange, pdfkit's array form included). */
function cmap(source: string): Map<number, string> {
  const map = new Map<number, string>();
  for (const block of source.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const m of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F\s]+)>/g)) map.set(parseInt(m[1]!, 16), utf16(m[2]!));
  }
  for (const block of source.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const m of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\[[^\]]*\]|<[0-9a-fA-F]+>)/g)) {
      const start = parseInt(m[1]!, 16);
      const end = parseInt(m[2]!, 16);
      if (m[3]!.startsWith('[')) {
        [...m[3]!.matchAll(/<([0-9a-fA-F\s]+)>/g)].forEach((u, i) => map.set(start + i, utf16(u[1]!)));
      } else {
        const first = parseInt(m[3]!.slice(1, -1), 16);
        for (let g = start; g <= end; g += 1) map.set(g, String.fromCodePoint(first + g - start));
      }
    }
  }
  return map;
}

export interface PdfText { lines: string[]; fonts: string[] }

export function pdfText(pdf: Buffer): PdfText {
  const objs = objects(pdf);
  const fontMaps = new Map<number, Map<number, string>>();
  const fonts: string[] = [];
  for (const [id, o] of objs) {
    if (!/\/Type\s*\/Font\b/.test(o.dict)) continue;
    const base = /\/BaseFont\s*\/([^\s/>]+)/.exec(o.dict)?.[1];
    if (base && /\/Subtype\s*\/(Type0|Type1|TrueType)/.test(o.dict)) fonts.push(base);
    const toUnicode = /\/ToUnicode\s+(\d+) 0 R/.exec(o.dict);
    if (toUnicode) fontMaps.set(id, cmap(objs.get(Number(toUnicode[1]))!.stream!.toString('latin1')));
  }
  // Resource names (/F1) to font objects, over every resource dictionary of the file.
  const names = new Map<string, number>();
  for (const o of objs.values()) {
    const fontDict = /\/Font\s*<<([\s\S]*?)>>/.exec(o.dict);
    if (fontDict) for (const m of fontDict[1]!.matchAll(/\/([\w.+-]+)\s+(\d+) 0 R/g)) names.set(m[1]!, Number(m[2]));
  }
  const fragments: Array<{ page: number; y: number; x: number; text: string }> = [];
  let page = 0;
  for (const o of objs.values()) {
    if (!o.stream || /\/Type|\/Subtype|\/Length1/.test(o.dict.replace(/\/Length\s+\d+|\/Filter\s*\/FlateDecode/g, ''))) continue;
    const content = o.stream.toString('latin1');
    if (!/\bBT\b/.test(content)) continue;
    page += 1;
    for (const block of content.matchAll(/\bBT\b([\s\S]*?)\bET\b/g)) {
      const body = block[1]!;
      const tm = /([-\d.]+)\s+([-\d.]+)\s+Tm/.exec(body) ?? /([-\d.]+)\s+([-\d.]+)\s+Td/.exec(body);
      const font = /\/([\w.+-]+)\s+[\d.]+\s+Tf/.exec(body)?.[1];
      const map = font ? fontMaps.get(names.get(font) ?? -1) : undefined;
      let text = '';
      for (const h of body.matchAll(/<([0-9a-fA-F]+)>/g)) {
        const hex = h[1]!;
        for (let i = 0; i + 4 <= hex.length; i += 4) text += map?.get(parseInt(hex.slice(i, i + 4), 16)) ?? '\uFFFD';
      }
      for (const s of body.matchAll(/\(((?:\\.|[^\\)])*)\)\s*Tj/g)) text += s[1];
      if (tm) fragments.push({ page, x: Number(tm[1]), y: Number(tm[2]), text });
    }
  }
  fragments.sort((a, b) => a.page - b.page || b.y - a.y || a.x - b.x);
  const lines: string[] = [];
  let last: { page: number; y: number } | null = null;
  for (const f of fragments) {
    if (last && last.page === f.page && Math.abs(last.y - f.y) < 2) lines[lines.length - 1] += ` ${f.text}`;
    else lines.push(f.text);
    last = f;
  }
  return { lines: lines.map((l) => l.replace(/\s+/g, ' ').trim()).filter((l) => l !== ''), fonts };
}
