// What a file is, from its first bytes (magic numbers), never from a declared type, a file name
// or a Content-Type header. Only the families we can measure or hand to providers are named; the
// parsers in probe-duration.ts then confirm the file really is what its header claims.

export type SniffedMime =
  | 'image/jpeg' | 'image/png' | 'image/webp' | 'image/gif'
  | 'audio/mpeg' | 'audio/aac' | 'audio/wav' | 'audio/ogg' | 'audio/flac' | 'audio/aiff' | 'audio/mp4'
  | 'video/mp4' | 'video/quicktime' | 'video/webm' | 'video/x-matroska' | 'video/x-msvideo';

const ascii = (b: Buffer, at: number, s: string): boolean =>
  b.length >= at + s.length && b.toString('latin1', at, at + s.length) === s;

/** The canonical mime type of `bytes`, or null when it is none of the families above. 64 bytes do. */
export function sniffMime(bytes: Buffer): SniffedMime | null {
  const b = bytes;
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (ascii(b, 0, '\x89PNG\r\n\x1a\n')) return 'image/png';
  if (ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')) return 'image/gif';
  if (ascii(b, 0, 'RIFF')) {
    if (ascii(b, 8, 'WEBP')) return 'image/webp';
    if (ascii(b, 8, 'WAVE')) return 'audio/wav';
    if (ascii(b, 8, 'AVI ')) return 'video/x-msvideo';
    return null;
  }
  if (ascii(b, 0, 'FORM') && (ascii(b, 8, 'AIFF') || ascii(b, 8, 'AIFC'))) return 'audio/aiff';
  if (ascii(b, 0, 'OggS')) return 'audio/ogg';
  if (ascii(b, 0, 'fLaC')) return 'audio/flac';
  if (ascii(b, 0, 'ID3')) return 'audio/mpeg';
  if (ascii(b, 4, 'ftyp')) return isoBrandMime(b.toString('latin1', 8, 12));
  // QuickTime files older than the ftyp box start directly with one of these top-level atoms.
  if (['moov', 'mdat', 'wide', 'free', 'skip'].some((a) => ascii(b, 4, a))) return 'video/quicktime';
  if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) {
    // EBML header; its DocType says WebM or Matroska within the first few dozen bytes.
    return b.subarray(0, 64).includes('webm', 0, 'latin1') ? 'video/webm' : 'video/x-matroska';
  }
  if (b.length >= 2 && b[0] === 0xff && (b[1] & 0xe0) === 0xe0) {
    // MPEG audio frame sync; the layer bits tell ADTS AAC (00) from MP1/2/3 (anything else).
    return (b[1] & 0x06) === 0 ? 'audio/aac' : 'audio/mpeg';
  }
  return null;
}

// M4A/M4B/M4P brands are audio-only by definition; every other ISO brand may hold video.
function isoBrandMime(brand: string): SniffedMime {
  if (/^M4[ABP] $/.test(brand)) return 'audio/mp4';
  if (brand === 'qt  ') return 'video/quicktime';
  return 'video/mp4';
}

/** Mime names clients send for the same thing, mapped to the names sniffMime returns. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/mpeg3': 'audio/mpeg',
  'audio/x-mpeg': 'audio/mpeg',
  'audio/x-mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-pn-wav': 'audio/wav',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/x-aac': 'audio/aac',
  'audio/aacp': 'audio/aac',
  'audio/x-flac': 'audio/flac',
  'audio/opus': 'audio/ogg',
  'audio/vorbis': 'audio/ogg',
  'audio/x-aiff': 'audio/aiff',
};

export function canonicalMime(mime: string): string {
  const m = mime.trim().toLowerCase().split(';')[0].trim();
  return ALIASES[m] ?? m;
}

const EXT: Record<string, string> = {
  'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif',
  'audio/mpeg': 'mp3', 'audio/aac': 'aac', 'audio/wav': 'wav', 'audio/ogg': 'ogg',
  'audio/flac': 'flac', 'audio/aiff': 'aiff', 'audio/mp4': 'm4a', 'audio/webm': 'webm',
  'video/mp4': 'mp4', 'video/quicktime': 'mov', 'video/webm': 'webm', 'video/x-matroska': 'mkv',
};

/** File extension for storing a file of this (canonical) mime type. */
export const extensionFor = (mime: string): string => EXT[mime] ?? 'bin';

/** Containers of the ISO base media family (MP4, MOV, M4A): measured with mp4box. */
export const isIsoBmff = (mime: string): boolean =>
  mime === 'video/mp4' || mime === 'video/quicktime' || mime === 'audio/mp4';

export const isMatroska = (mime: string): boolean => mime === 'video/webm' || mime === 'video/x-matroska';
