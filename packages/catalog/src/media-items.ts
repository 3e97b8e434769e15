// The two forms of a reference file: a public https URL, or a base64 data URI for images and
// audio (or its stand-in, when the gateway wrote the data URI to storage while it arrived).
// Everything here is checked without I/O; packages/media later decodes the data, sniffs the real
// type and measures durations.
import { invalid } from '@mediagen/errors';
import type { MediaKind, MediaRef, StagedDataUri, ValidateOptions } from './types';
import { MAX_INLINE_FILE_BYTES, MAX_MEDIA_URL_CHARS } from './limits';
import { isPrivateHostname } from './private-hosts';

/** Declared mime types accepted per kind, mapped to the form we store (image/jpg is a common typo). */
export const INLINE_MIME_TYPES: Readonly<Record<'image' | 'audio', Readonly<Record<string, string>>>> = {
  image: { 'image/jpeg': 'image/jpeg', 'image/jpg': 'image/jpeg', 'image/png': 'image/png', 'image/webp': 'image/webp' },
  audio: Object.fromEntries(
    ['audio/mpeg', 'audio/mp3', 'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/ogg', 'audio/aac', 'audio/mp4', 'audio/x-m4a', 'audio/m4a', 'audio/flac', 'audio/webm'].map((m) => [m, m]),
  ),
};

const DATA_URI = /^data:([^;,]*)((?:;[^;,]*)*),/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function bad(path: string, message: string): never {
  throw invalid(path, message, 'invalid_media');
}

/** Decoded size of standard base64 text, without decoding it (13 MB strings are common here). */
export function base64DecodedBytes(data: string): number {
  return base64DecodedBytesOf(data.length, data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
}

/** The same from the text's length and the number of `=` it ends with (0 to 2). */
export const base64DecodedBytesOf = (chars: number, pad: number): number => Math.floor(((chars - pad) * 3) / 4);

/** The header of a data URI: its mime type and parameters (only `;base64` is accepted). */
export const DATA_URI_HEADER = DATA_URI;

function isValidBase64(data: string): boolean {
  if (data.length === 0 || !BASE64.test(data)) return false;
  // Padded text comes in blocks of 4; unpadded text can never leave a single character over.
  return data.includes('=') ? data.length % 4 === 0 : data.length % 4 !== 1;
}

function inlineMime(declaredRaw: string, path: string, kind: MediaKind): string {
  const declared = declaredRaw.toLowerCase();
  const mime = INLINE_MIME_TYPES[kind as 'image' | 'audio'][declared];
  if (!mime) {
    const accepted = Object.keys(INLINE_MIME_TYPES[kind as 'image' | 'audio']).join(', ');
    return bad(path, `data URI type "${declared}" is not accepted for ${kind === 'image' ? 'an image' : 'audio'}; accepted: ${accepted}`);
  }
  return mime;
}

function checkInlineSize(inlineBytes: number, path: string): void {
  // The size first (arithmetic on the length): an oversized file is refused before the O(n)
  // alphabet check walks megabytes of it.
  if (inlineBytes > MAX_INLINE_FILE_BYTES) {
    bad(path, `inline file is ${inlineBytes} bytes; the limit is ${MAX_INLINE_FILE_BYTES} bytes (10 MiB) per file; send a URL instead`);
  }
}

function parseDataUri(value: string, path: string, kind: MediaKind, role: MediaRef['role']): MediaRef {
  if (kind === 'video') return bad(path, 'videos are accepted by https URL only, not as data URIs');
  const m = DATA_URI.exec(value);
  if (!m || m[2].toLowerCase() !== ';base64') {
    return bad(path, 'a data URI must have the form data:<mime>;base64,<data>');
  }
  const mime = inlineMime(m[1], path, kind);
  const data = value.slice(m[0].length);
  const inlineBytes = base64DecodedBytes(data);
  checkInlineSize(inlineBytes, path);
  if (!isValidBase64(data)) return bad(path, 'data URI content is not valid base64');
  return { kind, path, source: 'inline', url: value, mime, inlineBytes, role };
}

/** A data URI already in storage: the same checks, in the same order, from what was noted while it was written. */
function parseStaged(value: string, staged: StagedDataUri, path: string, kind: MediaKind, role: MediaRef['role']): MediaRef {
  if (kind === 'video') return bad(path, 'videos are accepted by https URL only, not as data URIs');
  const mime = inlineMime(staged.declaredMime, path, kind);
  checkInlineSize(staged.inlineBytes, path);
  if (!staged.validBase64) return bad(path, 'data URI content is not valid base64');
  return { kind, path, source: 'inline', url: value, mime, inlineBytes: staged.inlineBytes, role };
}

function parseUrl(value: string, path: string, kind: MediaKind, role: MediaRef['role'], opts: ValidateOptions): MediaRef {
  const form = kind === 'video' ? 'a public https URL' : 'a public https URL or a base64 data URI';
  if (value.length > MAX_MEDIA_URL_CHARS) return bad(path, `URL is longer than ${MAX_MEDIA_URL_CHARS} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return bad(path, `must be ${form}`);
  }
  const allowed = opts.allowPrivateMediaUrls ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol) || !url.hostname) return bad(path, `must be ${form}`);
  // Credentials in a URL would be sent to the provider and land in logs; a public URL needs none.
  if (url.username || url.password) return bad(path, 'URL must not contain a user name or password');
  if (!opts.allowPrivateMediaUrls && isPrivateHostname(url.hostname)) {
    return bad(path, 'URL must point at a public internet host');
  }
  return { kind, path, source: 'url', url: value, role };
}

/** One reference file of the request; throws a 400 `invalid_media` naming `path`. */
export function parseMediaRef(value: string, path: string, kind: MediaKind, role: MediaRef['role'], opts: ValidateOptions): MediaRef {
  const staged = opts.staged?.get(value);
  if (staged) return parseStaged(value, staged, path, kind, role);
  return /^data:/i.test(value) ? parseDataUri(value, path, kind, role) : parseUrl(value, path, kind, role, opts);
}
