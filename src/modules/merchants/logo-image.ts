// What an uploaded logo really is, read from its bytes (never from a declared type or a file name): PNG, JPEG or
// WebP, with its pixel size. Anything else (SVG, which can carry script; GIF; a renamed file) is refused, as are a
// file over MAX_LOGO_BYTES and a picture too small to see or too large to be a logo.

export const MAX_LOGO_BYTES = 512 * 1024;
export const MIN_LOGO_SIDE = 16;
export const MAX_LOGO_SIDE = 2048;

export type LogoType = 'image/png' | 'image/jpeg' | 'image/webp';
export interface LogoImage { type: LogoType; width: number; height: number }

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const startsWith = (bytes: Buffer, prefix: number[], at = 0) => prefix.every((b, i) => bytes[at + i] === b);
const ascii = (bytes: Buffer, at: number, text: string) => bytes.length >= at + text.length && bytes.toString('latin1', at, at + text.length) === text;

/** PNG: the signature, then the IHDR chunk first, holding width and height (big-endian). */
function png(bytes: Buffer): LogoImage | null {
  if (bytes.length < 24 || !startsWith(bytes, PNG_SIGNATURE) || !ascii(bytes, 12, 'IHDR')) return null;
  return { type: 'image/png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** JPEG: SOI, then segments up to a start-of-frame marker (SOF0–SOF15 but DHT, JPG, DAC), which holds the size. */
function jpeg(bytes: Buffer): LogoImage | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) { at += 1; continue; }
    const length = bytes.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { type: 'image/jpeg', height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    if (length < 2) return null;
    at += 2 + length;
  }
  return null;
}

/** WebP: a RIFF container of type WEBP whose first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function webp(bytes: Buffer): LogoImage | null {
  if (bytes.length < 30 || !ascii(bytes, 0, 'RIFF') || !ascii(bytes, 8, 'WEBP')) return null;
  if (ascii(bytes, 12, 'VP8 ')) {
    if (!startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) return null;
    return { type: 'image/webp', width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  }
  if (ascii(bytes, 12, 'VP8L')) {
    if (bytes[20] !== 0x2f) return null;
    const bits = bytes.readUInt32LE(21);
    return { type: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (ascii(bytes, 12, 'VP8X')) {
    return { type: 'image/webp', width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  }
  return null;
}

export type LogoProblem = 'type' | 'size' | 'dimensions';

/** The picture, or why it is refused. */
export function readLogo(bytes: Buffer): LogoImage | { problem: LogoProblem } {
  if (bytes.length > MAX_LOGO_BYTES) return { problem: 'size' };
  const image = png(bytes) ?? jpeg(bytes) ?? webp(bytes);
  if (!image) return { problem: 'type' };
  const fits = (side: number) => side >= MIN_LOGO_SIDE && side <= MAX_LOGO_SIDE;
  if (!fits(image.width) || !fits(image.height)) return { problem: 'dimensions' };
  return image;
}
