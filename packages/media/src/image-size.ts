// Width and height of a reference image, read from its own header: a URL image is
// snapshotted and the provider gets our copy, so what we check is what it renders from. Only the
// four families we accept by URL (sniff.ts): PNG (IHDR), GIF (logical screen), WebP (VP8, VP8L,
// VP8X) and JPEG (the first SOFn segment, reached by walking segment lengths). Bounded: the JPEG
// walk visits at most MAX_SEGMENTS segments and only ever moves forward.
import { MediaProblem } from './problem';

export interface ImageSize {
  width: number;
  height: number;
}

/** A side longer than this is no photo or frame a provider renders from, but a decoder bomb. */
export const MAX_IMAGE_SIDE = 30_000;
const MAX_SEGMENTS = 4096;

export function imageSize(b: Buffer, mime: string): ImageSize {
  const size = read(b, mime);
  if (!size || size.width < 1 || size.height < 1) throw new MediaProblem(`the ${mime.slice(6).toUpperCase()} header is broken: no image size found`);
  if (size.width > MAX_IMAGE_SIDE || size.height > MAX_IMAGE_SIDE) {
    throw new MediaProblem(`the image is ${size.width}x${size.height} pixels; at most ${MAX_IMAGE_SIDE} a side`);
  }
  return size;
}

function read(b: Buffer, mime: string): ImageSize | null {
  switch (mime) {
    case 'image/png':
      // Signature (8), IHDR length (4) and type (4), then width and height.
      if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
      return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
    case 'image/gif':
      return b.length < 10 ? null : { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
    case 'image/webp':
      return webp(b);
    case 'image/jpeg':
      return jpeg(b);
    default:
      return null;
  }
}

function webp(b: Buffer): ImageSize | null {
  if (b.length < 30) return null;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) return null;
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ') {
    // Key frame start code 9d 01 2a, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  return null;
}

function jpeg(b: Buffer): ImageSize | null {
  let i = 2; // after SOI
  for (let n = 0; n < MAX_SEGMENTS && i + 4 <= b.length; n++) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image or scan data before any frame header
    const len = b.readUInt16BE(i + 2);
    if (len < 2) return null;
    // SOF0-SOF15 except DHT (c4), JPG (c8) and DAC (cc): precision (1), height (2), width (2).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (i + 9 > b.length) return null;
      return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
    }
    i += 2 + len;
  }
  return null;
}
