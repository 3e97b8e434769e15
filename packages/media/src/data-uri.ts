// Base64 data URIs: `data:<mime>[;param=value]*;base64,<data>`.
// Buffer.from(..., 'base64') silently skips characters outside the alphabet, so a truncated or
// mangled payload would "decode" into different bytes; we validate the alphabet first instead.

import { MAX_INLINE_BYTES } from './policy';
import { MediaProblem } from './problem';

const HEADER = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)((?:;[^;,]*)*),/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface DecodedDataUri {
  /** Declared mime type, lower-case, without parameters. */
  mime: string;
  bytes: Buffer;
}

/** Decodes a data URI; throws MediaProblem saying what is wrong with it. */
export function decodeDataUri(uri: string, maxBytes: number = MAX_INLINE_BYTES): DecodedDataUri {
  const m = HEADER.exec(uri);
  if (!m) throw new MediaProblem('not a data URI of the form data:<mime>;base64,<data>');
  const params = m[2].split(';').filter(Boolean).map((p) => p.trim().toLowerCase());
  if (!params.includes('base64')) throw new MediaProblem('data URI must be base64-encoded (";base64,")');

  // Refused by length before any O(n) work: base64 wrapped at 76 characters per line adds 1.3%
  // of line breaks, so a raw text over 1/16 above the limit's encoded size is over the limit.
  if (Math.floor(((uri.length - m[0].length) * 3) / 4) > (maxBytes + 2) * 1.0625) {
    throw new MediaProblem(`inline file is larger than ${formatBytes(maxBytes)}`);
  }
  // Line breaks are common when a client wraps a long base64 string; anything else is an error.
  const payload = uri.slice(m[0].length).replace(/[\r\n\t ]/g, '');
  // Refuse oversized payloads before allocating their decoded bytes.
  if (Math.floor((payload.length * 3) / 4) > maxBytes + 2) {
    throw new MediaProblem(`inline file is larger than ${formatBytes(maxBytes)}`);
  }
  if (!BASE64.test(payload) || payload.length % 4 === 1) {
    throw new MediaProblem('data URI payload is not valid base64');
  }
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length === 0) throw new MediaProblem('inline file is empty');
  if (bytes.length > maxBytes) throw new MediaProblem(`inline file is larger than ${formatBytes(maxBytes)}`);
  return { mime: m[1].toLowerCase(), bytes };
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
