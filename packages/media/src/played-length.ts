// Play time of WAV, AIFF, ADTS AAC, FLAC, Ogg (Opus, Vorbis) and WebM/Matroska measured from the media itself
// (billing and caps depend on it), not from a header field anyone can edit: a client could otherwise send (and, as a
// URL, show the provider) a 30 s clip whose header says 1 s. Each function walks the whole file it
// is given (the snapshot, at most 50 MiB, or what the byte budget allowed), forward only, and
// yields to the event loop every YIELD_BYTES of input or YIELD_STEPS steps, so no file holds the
// loop for more than a few milliseconds; an aborted signal stops the walk.
//
// - WAV: the audio bytes actually present after the `data` chunk header (its size field is only
//   believed when what follows it is well-formed chunks), over the block size and sample rate.
// - FLAC: frame headers walked to the end (sync code, CRC-8, consecutive frame or sample numbers):
//   the last frame's first sample plus its block size. STREAMINFO's total is not used.
// - Ogg Opus: the sum of the packets' durations (their TOC bytes) minus the pre-skip; the last
//   page's granule position only trims the end within that page, as decoders apply it.
// - Ogg Vorbis: packets' block sizes (the mode table read from the setup header), as a decoder
//   counts them; granule positions only trim the end within the last page.
// - AIFF/AIFC: the sample frames present in SSND (its size believed as WAV's is), over COMM's rate;
//   COMM's numSampleFrames is not used. AIFC with a non-PCM compression is not measured.
// - ADTS AAC: every frame walked (length and 1-4 blocks of 1024 samples from each header).
// - WebM/Matroska: the blocks' timestamps (Cluster Timecode + block offset) plus the last block's
//   duration (BlockDuration or the track's DefaultDuration); the Segment Info Duration is not used.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { throwIfAborted } from './problem';

const YIELD_BYTES = 1 << 20;
const YIELD_STEPS = 4096;

/** Yields a turn every so often; call with the current offset or step count. */
function pacer(signal: AbortSignal | undefined) {
  let nextAt = YIELD_BYTES;
  let steps = 0;
  return async (pos: number): Promise<void> => {
    if (pos >= nextAt || ++steps % YIELD_STEPS === 0) {
      nextAt = pos + YIELD_BYTES;
      await nextTurn();
      throwIfAborted(signal);
    }
  };
}

// ---------------------------------------------------------------- WAV

const MAX_CHUNKS = 10_000;
const isChunkId = (b: Buffer, i: number) => i + 8 <= b.length && [0, 1, 2, 3].every((k) => b[i + k] >= 0x20 && b[i + k] <= 0x7e);

/** Seconds of audio in a RIFF/WAVE file, or null when it has no fmt or data chunk. */
export function wavSeconds(b: Buffer): number | null {
  let i = 12;
  let fmt: { format: number; rate: number; byteRate: number; blockAlign: number } | null = null;
  for (let n = 0; n < MAX_CHUNKS && i + 8 <= b.length; n++) {
    const id = b.toString('latin1', i, i + 4);
    const size = b.readUInt32LE(i + 4);
    const start = i + 8;
    if (id === 'fmt ' && start + 16 <= b.length) {
      fmt = { format: b.readUInt16LE(start), rate: b.readUInt32LE(start + 4), byteRate: b.readUInt32LE(start + 8), blockAlign: b.readUInt16LE(start + 12) };
    } else if (id === 'data') {
      if (!fmt) return null;
      const present = b.length - start;
      // The size field is believed only when it ends inside the file and well-formed chunks follow
      // it to the end (LIST, id3 ...): otherwise every byte after the header is audio a player plays.
      const claimedEnd = start + size + (size & 1);
      const audio = size > 0 && size <= present && trailingChunksOk(b, claimedEnd) ? size : present;
      // PCM and float: block size x rate is the byte rate by definition; others state theirs.
      const pcm = fmt.format === 1 || fmt.format === 3 || fmt.format === 0xfffe;
      const rate = pcm && fmt.blockAlign > 0 ? fmt.blockAlign * fmt.rate : fmt.byteRate;
      return rate > 0 ? audio / rate : null;
    }
    i = start + size + (size & 1);
  }
  return null;
}

function trailingChunksOk(b: Buffer, i: number, bigEndian = false): boolean {
  for (let n = 0; n < MAX_CHUNKS; n++) {
    if (i === b.length || (i + 1 === b.length && b[i] === 0)) return true;
    if (!isChunkId(b, i)) return false;
    const size = bigEndian ? b.readUInt32BE(i + 4) : b.readUInt32LE(i + 4);
    i += 8 + size + (size & 1);
    if (i > b.length + 1) return false;
  }
  return false;
}

// ---------------------------------------------------------------- AIFF / AIFC

/** AIFC compression types whose samples are plain PCM or float, so bytes / frame size counts them. */
const AIFC_BYTES: Record<string, number | undefined> = { NONE: 0, sowt: 0, twos: 0, 'raw ': 0, fl32: 4, FL32: 4, fl64: 8, FL64: 8, in24: 3, in32: 4 };

/**
 * Seconds of audio in an AIFF/AIFC file: the sample frames present in the SSND chunk over COMM's
 * rate. COMM's numSampleFrames is not used; SSND's size field is believed only when it ends inside
 * the file and well-formed chunks follow it (as for WAV). Null when COMM or SSND is missing or
 * malformed, or the AIFC compression is not PCM (its frames cannot be counted from bytes).
 */
export function aiffSeconds(b: Buffer): number | null {
  if (b.length < 12) return null;
  const aifc = b.toString('latin1', 8, 12) === 'AIFC';
  let comm: { channels: number; frameBytes: number; rate: number } | null = null;
  let ssnd: { start: number; bytes: number } | null = null;
  let i = 12;
  for (let n = 0; n < MAX_CHUNKS && i + 8 <= b.length; n++) {
    const id = b.toString('latin1', i, i + 4);
    const size = b.readUInt32BE(i + 4);
    const start = i + 8;
    if (id === 'COMM') {
      if (start + 18 > b.length || size < 18) return null;
      const channels = b.readUInt16BE(start);
      const sampleSize = b.readUInt16BE(start + 6);
      const rate = extended80(b, start + 8);
      let bytes = Math.ceil(sampleSize / 8);
      if (aifc) {
        if (size < 22 || start + 22 > b.length) return null;
        const kind = AIFC_BYTES[b.toString('latin1', start + 18, start + 22)];
        if (kind === undefined) return null;
        if (kind > 0) bytes = kind;
      }
      if (channels === 0 || bytes === 0 || !(rate > 0 && rate < 1e7)) return null;
      comm = { channels, frameBytes: channels * bytes, rate };
    } else if (id === 'SSND') {
      const present = b.length - start;
      const claimedEnd = start + size + (size & 1);
      // Like WAV: the size is believed only when well-formed chunks follow it to the end; otherwise
      // every byte after the header is sound a player plays, and the walk ends here.
      const believed = size >= 8 && size <= present && trailingChunksOk(b, claimedEnd, true);
      ssnd = { start, bytes: believed ? size : present };
      if (!believed) break;
    }
    i = start + size + (size & 1);
  }
  if (!comm || !ssnd || ssnd.bytes < 8) return null;
  const offset = b.readUInt32BE(ssnd.start);
  const frames = Math.floor(Math.max(0, ssnd.bytes - 8 - offset) / comm.frameBytes);
  return frames / comm.rate;
}

/** IEEE 754 80-bit extended float (COMM's sample rate), big-endian. */
function extended80(b: Buffer, at: number): number {
  const exp = b.readUInt16BE(at) & 0x7fff;
  const mantissa = b.readUInt32BE(at + 2) * 2 ** 32 + b.readUInt32BE(at + 6);
  if (exp === 0 || exp === 0x7fff) return 0;
  return (b[at] & 0x80 ? -1 : 1) * mantissa * 2 ** (exp - 16383 - 63);
}

// ---------------------------------------------------------------- ADTS AAC

const ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

/**
 * Seconds of ADTS AAC: every frame walked from the first byte (each header gives its length and
 * 1-4 raw data blocks of 1024 samples). A cut-off last frame is not counted; after the last frame
 * only an ID3v1/ID3v2/APE tag may follow. Null when frames cannot be walked (bytes between frames,
 * a bad header, the sample rate changing): music-metadata counted 1024 samples per frame whatever
 * the header said and restarted its count after junk, so it under-measured.
 */
export async function adtsSeconds(b: Buffer, signal?: AbortSignal): Promise<number | null> {
  const pace = pacer(signal);
  let i = 0;
  let samples = 0;
  let rate = 0;
  while (i + 7 <= b.length && b[i] === 0xff && (b[i + 1] & 0xf6) === 0xf0) {
    const r = ADTS_RATES[(b[i + 2] >> 2) & 0x0f];
    const length = ((b[i + 3] & 0x03) << 11) | (b[i + 4] << 3) | (b[i + 5] >> 5);
    const header = b[i + 1] & 1 ? 7 : 9; // protection_absent = 0 adds a CRC
    if (!r || (rate !== 0 && r !== rate) || length <= header) return null;
    if (i + length > b.length) {
      i = b.length; // the last frame was cut off: a decoder drops it
      break;
    }
    rate = r;
    samples += ((b[i + 6] & 0x03) + 1) * 1024;
    i += length;
    await pace(i);
  }
  if (rate === 0) return null;
  const rest = b.length - i;
  const tag = rest === 0 || (rest === 128 && b.toString('latin1', i, i + 3) === 'TAG')
    || b.toString('latin1', i, i + 3) === 'ID3' || b.toString('latin1', i, i + 8) === 'APETAGEX';
  return tag ? samples / rate : null;
}

// ---------------------------------------------------------------- FLAC

const CRC8 = (() => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
    t[i] = c;
  }
  return t;
})();
const crc8 = (b: Buffer, from: number, to: number) => {
  let c = 0;
  for (let i = from; i < to; i++) c = CRC8[c ^ b[i]];
  return c;
};
const FLAC_RATES = [0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000];

interface FlacFrame {
  variable: boolean;
  /** Frame number (fixed block size) or first sample number (variable). */
  number: number;
  blockSize: number;
  rate: number;
}

function flacFrameAt(b: Buffer, i: number, streamRate: number): FlacFrame | null {
  if (i + 6 > b.length || b[i] !== 0xff || (b[i + 1] & 0xfe) !== 0xf8) return null;
  const variable = (b[i + 1] & 1) === 1;
  const bsCode = b[i + 2] >> 4;
  const rateCode = b[i + 2] & 0x0f;
  if (bsCode === 0 || rateCode === 15 || (b[i + 3] >> 4) > 10 || (b[i + 3] & 1) !== 0 || ((b[i + 3] >> 1) & 7) === 3) return null;
  // UTF-8-style coded number: 1 to 7 bytes.
  let p = i + 4;
  const first = b[p++];
  let extra = 0;
  let number: number;
  if (first < 0x80) number = first;
  else if ((first & 0xe0) === 0xc0) [number, extra] = [first & 0x1f, 1];
  else if ((first & 0xf0) === 0xe0) [number, extra] = [first & 0x0f, 2];
  else if ((first & 0xf8) === 0xf0) [number, extra] = [first & 0x07, 3];
  else if ((first & 0xfc) === 0xf8) [number, extra] = [first & 0x03, 4];
  else if ((first & 0xfe) === 0xfc) [number, extra] = [first & 0x01, 5];
  else if (first === 0xfe) [number, extra] = [0, 6];
  else return null;
  for (let k = 0; k < extra; k++) {
    if (p >= b.length || (b[p] & 0xc0) !== 0x80) return null;
    number = number * 64 + (b[p++] & 0x3f);
  }
  let blockSize: number;
  if (bsCode === 1) blockSize = 192;
  else if (bsCode <= 5) blockSize = 576 << (bsCode - 2);
  else if (bsCode === 6) blockSize = (b[p++] ?? 0) + 1;
  else if (bsCode === 7) {
    if (p + 2 > b.length) return null;
    blockSize = b.readUInt16BE(p) + 1;
    p += 2;
  } else blockSize = 256 << (bsCode - 8);
  let rate = rateCode === 0 ? streamRate : FLAC_RATES[rateCode] ?? 0;
  if (rateCode === 12) rate = (b[p++] ?? 0) * 1000;
  else if (rateCode === 13 || rateCode === 14) {
    if (p + 2 > b.length) return null;
    rate = b.readUInt16BE(p) * (rateCode === 14 ? 10 : 1);
    p += 2;
  }
  if (p >= b.length || crc8(b, i, p) !== b[p]) return null;
  return { variable, number, blockSize, rate };
}

/** Seconds of audio in the frames of a FLAC file, or null when no first frame is found. */
export async function flacSeconds(b: Buffer, signal?: AbortSignal): Promise<number | null> {
  if (b.toString('latin1', 0, 4) !== 'fLaC') return null;
  let i = 4;
  let streamRate = 0;
  for (let n = 0; n < 1024 && i + 4 <= b.length; n++) {
    const last = (b[i] & 0x80) !== 0;
    const type = b[i] & 0x7f;
    const len = b.readUIntBE(i + 1, 3);
    if (type === 0 && i + 4 + 18 <= b.length) streamRate = b.readUIntBE(i + 4 + 10, 3) >> 4;
    i += 4 + len;
    if (last) break;
  }
  const pace = pacer(signal);
  let frame = flacFrameAt(b, i, streamRate);
  if (!frame || frame.number !== 0) return null;
  const fixed = frame.blockSize; // every frame but the last, with a fixed block size
  let lastStart = 0; // first sample of the last accepted frame
  let lastSize = frame.blockSize;
  let lastNumber = 0;
  let rate = frame.rate || streamRate;
  let at = i + 2;
  for (;;) {
    const next = b.indexOf(0xff, at);
    if (next < 0 || next + 6 > b.length) break;
    await pace(next);
    at = next + 1;
    frame = flacFrameAt(b, next, streamRate);
    if (!frame) continue;
    // Only the next frame in sequence counts: a sync code and CRC-8 can occur by chance in audio
    // data, a chance match that also carries the next number is all but impossible.
    const expected = frame.variable ? lastStart + lastSize : lastNumber + 1;
    if (frame.number !== expected) continue;
    lastNumber = frame.number;
    lastStart = frame.variable ? frame.number : frame.number * fixed;
    lastSize = frame.blockSize;
    rate = frame.rate || rate;
    at = next + 6;
  }
  return rate > 0 ? (lastStart + lastSize) / rate : null;
}

// ---------------------------------------------------------------- Ogg

interface OggPage {
  granule: number;
  packets: Buffer[];
  /** The page ends with a packet that continues on the next page. */
  open: boolean;
}

/** The pages of the first logical stream, packets joined across pages. */
async function* oggPages(b: Buffer, signal?: AbortSignal): AsyncGenerator<OggPage> {
  const pace = pacer(signal);
  let i = 0;
  let serial: number | null = null;
  let carry: Buffer[] = [];
  while (i + 27 <= b.length && b.toString('latin1', i, i + 4) === 'OggS') {
    await pace(i);
    const segments = b[i + 26];
    const bodyStart = i + 27 + segments;
    if (bodyStart > b.length) return;
    const granuleLo = b.readUInt32LE(i + 6);
    const granuleHi = b.readInt32LE(i + 10);
    const pageSerial = b.readUInt32LE(i + 14);
    let size = 0;
    for (let k = 0; k < segments; k++) size += b[i + 27 + k];
    if (bodyStart + size > b.length) return; // cut short: the partial page is not played
    serial ??= pageSerial;
    if (pageSerial === serial) {
      const packets: Buffer[] = [];
      let p = bodyStart;
      let len = 0;
      for (let k = 0; k < segments; k++) {
        const lace = b[i + 27 + k];
        len += lace;
        if (lace < 255) {
          carry.push(b.subarray(p, p + len));
          packets.push(carry.length === 1 ? carry[0] : Buffer.concat(carry));
          carry = [];
          p += len;
          len = 0;
        }
      }
      const open = len > 0 || (segments > 0 && b[i + 27 + segments - 1] === 255);
      if (open) carry.push(b.subarray(p, p + len));
      yield { granule: granuleHi * 2 ** 32 + granuleLo, packets, open };
    }
    i = bodyStart + size;
  }
}

/** Samples (at 48 kHz) of one Opus packet, from its TOC byte (RFC 6716 section 3.1). */
function opusPacketSamples(p: Buffer): number {
  if (p.length === 0) return 0;
  const config = p[0] >> 3;
  const frameMs = config < 12 ? [10, 20, 40, 60][config & 3] : config < 16 ? [10, 20][config & 1] : [2.5, 5, 10, 20][config & 3];
  const c = p[0] & 3;
  const frames = c === 0 ? 1 : c === 3 ? (p.length > 1 ? p[1] & 0x3f : 0) : 2;
  return Math.min(frames * frameMs * 48, 5760); // at most 120 ms per packet
}

/** Seconds of audio in an Ogg Opus or Vorbis stream, or null when it is neither. */
export async function oggSeconds(b: Buffer, signal?: AbortSignal): Promise<number | null> {
  let codec: 'opus' | 'vorbis' | null = null;
  let rate = 48_000;
  let preSkip = 0;
  let headers = 0;
  let vorbis: { bs: [number, number]; modes: boolean[] | null; prev: number } | null = null;
  let total = 0; // samples decoded so far
  let lastPage = { granule: -1, samples: 0 };
  for await (const page of oggPages(b, signal)) {
    let pageSamples = 0;
    for (const pkt of page.packets) {
      if (codec === null) {
        if (pkt.toString('latin1', 0, 8) === 'OpusHead' && pkt.length >= 19) {
          codec = 'opus';
          preSkip = pkt.readUInt16LE(10);
        } else if (pkt[0] === 1 && pkt.toString('latin1', 1, 7) === 'vorbis' && pkt.length >= 30) {
          codec = 'vorbis';
          rate = pkt.readUInt32LE(12);
          vorbis = { bs: [1 << (pkt[28] & 0x0f), 1 << (pkt[28] >> 4)], modes: null, prev: 0 };
        } else return null;
        headers = 1;
        continue;
      }
      if (codec === 'opus') {
        if (headers < 2) {
          headers++; // OpusTags
          continue;
        }
        pageSamples += opusPacketSamples(pkt);
      } else if (vorbis) {
        if (headers < 3) {
          if (pkt[0] === 5) vorbis.modes = vorbisModes(pkt);
          headers++;
          continue;
        }
        if (pkt.length === 0 || (pkt[0] & 1) !== 0 || !vorbis.modes) continue; // not an audio packet
        const bits = ilog(vorbis.modes.length - 1);
        const mode = (pkt[0] >> 1) & ((1 << bits) - 1);
        const cur = vorbis.bs[vorbis.modes[mode] ? 1 : 0];
        if (vorbis.prev) pageSamples += vorbis.prev / 4 + cur / 4;
        vorbis.prev = cur;
      }
    }
    total += pageSamples;
    if (page.granule >= 0 && page.packets.length > 0) lastPage = { granule: page.granule, samples: pageSamples };
  }
  if (codec === null || (codec === 'vorbis' && !vorbis?.modes)) return null;
  let samples = codec === 'opus' ? total - preSkip : total;
  // End trimming: the final granule may cut the last page's padding, never more than that page.
  const granuleEnd = codec === 'opus' ? lastPage.granule - preSkip : lastPage.granule;
  if (lastPage.granule >= 0 && granuleEnd < samples && samples - granuleEnd <= lastPage.samples) samples = granuleEnd;
  return samples > 0 && rate > 0 ? samples / rate : null;
}

const ilog = (v: number) => (v <= 0 ? 0 : 32 - Math.clz32(v));

/**
 * Block flags of the Vorbis modes, read from the end of the setup header as ffmpeg's
 * vorbis_parser does: the mode table is its last part (each mode 41 bits: blockflag, window type
 * 0, transform type 0, mapping), and the codebooks before it cannot be skipped without decoding.
 */
function vorbisModes(setup: Buffer): boolean[] | null {
  const n = setup.length * 8;
  const bit = (k: number) => (setup[k >> 3] >> (k & 7)) & 1; // k-th bit in Vorbis (LSB-first) order
  let pos = n - 1;
  while (pos >= 0 && bit(pos) === 0) pos--; // the framing bit
  if (pos < 0) return null;
  // Walking back from the framing bit, mode by mode: mapping (8), transform (16), window (16), blockflag (1).
  const readBack = (from: number, width: number) => {
    let v = 0;
    for (let k = 0; k < width; k++) v |= bit(from - width + k) << k;
    return v;
  };
  const flags: boolean[] = [];
  let best: boolean[] | null = null;
  let end = pos; // exclusive end of the mode list
  for (let count = 0; count < 64 && end - 41 - 6 >= 0; count++) {
    const mapping = readBack(end, 8);
    const transform = readBack(end - 8, 16);
    const window = readBack(end - 24, 16);
    if (mapping > 63 || transform !== 0 || window !== 0) break;
    flags.unshift(bit(end - 41) === 1);
    end -= 41;
    // The mode count (6 bits, minus one) precedes the list. Earlier bits can look like modes too;
    // as ffmpeg does, the longest list whose count fits is the table.
    if (readBack(end, 6) + 1 === flags.length) best = flags.slice();
  }
  return best;
}

// ---------------------------------------------------------------- WebM / Matroska

const ID = {
  segment: 0x18538067, cluster: 0x1f43b675, info: 0x1549a966, tracks: 0x1654ae6b, trackEntry: 0xae,
  blockGroup: 0xa0, timecodeScale: 0x2ad7b1, trackNumber: 0xd7, defaultDuration: 0x23e383,
  clusterTimecode: 0xe7, simpleBlock: 0xa3, block: 0xa1, blockDuration: 0x9b,
} as const;
/** Containers walked into (their children are read); every other element is skipped whole. */
const MASTERS = new Set<number>([ID.segment, ID.cluster, ID.info, ID.tracks, ID.trackEntry, ID.blockGroup]);

function vint(b: Buffer, i: number, keepMarker: boolean): { value: number; len: number; unknown: boolean } | null {
  if (i >= b.length) return null;
  const first = b[i];
  const len = first === 0 ? 9 : Math.clz32(first) - 23;
  if (len > 8 || i + len > b.length) return null;
  let value = keepMarker ? first : first & (0xff >> len);
  let allOnes = value === 0xff >> len;
  for (let k = 1; k < len; k++) {
    value = value * 256 + b[i + k];
    if (b[i + k] !== 0xff) allOnes = false;
  }
  return { value, len, unknown: !keepMarker && allOnes };
}

function uint(b: Buffer, i: number, size: number): number {
  let v = 0;
  for (let k = 0; k < size && k < 8; k++) v = v * 256 + b[i + k];
  return v;
}

/** Seconds from the first block's start to the last block's end, or null when there are no blocks. */
export async function matroskaSeconds(b: Buffer, signal?: AbortSignal): Promise<number | null> {
  const pace = pacer(signal);
  let scale = 1_000_000; // ns per timestamp unit
  const defaultDuration = new Map<number, number>(); // track -> ns
  let entry: { number?: number; duration?: number } | null = null;
  let cluster = 0;
  let first = Infinity;
  let end = -Infinity;
  // The block of the BlockGroup being read: its BlockDuration may come after it.
  let group: { endsAt: number; start: number; track: number; frames: number; duration?: number } | null = null;
  const closeGroup = () => {
    if (!group) return;
    const d = group.duration !== undefined ? group.duration * scale : (defaultDuration.get(group.track) ?? 0) * group.frames;
    end = Math.max(end, group.start * scale + d);
    group = null;
  };
  const closeEntry = () => {
    if (entry?.number !== undefined && entry.duration !== undefined) defaultDuration.set(entry.number, entry.duration);
  };
  let i = 0;
  while (i < b.length) {
    await pace(i);
    if (group && i >= group.endsAt) closeGroup();
    const id = vint(b, i, true);
    if (!id) break;
    const size = vint(b, i + id.len, false);
    if (!size) break;
    const data = i + id.len + size.len;
    if (MASTERS.has(id.value)) {
      if (id.value === ID.trackEntry) {
        closeEntry();
        entry = {};
      }
      if (id.value === ID.blockGroup) {
        closeGroup();
        group = { endsAt: size.unknown ? b.length : data + size.value, start: 0, track: 0, frames: 0 };
      }
      i = data; // read its children in place (unknown sizes need no end)
      continue;
    }
    if (size.unknown || data + size.value > b.length) break; // a cut-off element: nothing more plays
    const v = size.value;
    switch (id.value) {
      case ID.timecodeScale:
        scale = uint(b, data, v) || 1_000_000;
        break;
      case ID.trackNumber:
        if (entry) entry.number = uint(b, data, v);
        closeEntry();
        break;
      case ID.defaultDuration:
        if (entry) entry.duration = uint(b, data, v);
        closeEntry();
        break;
      case ID.clusterTimecode:
        cluster = uint(b, data, v);
        break;
      case ID.blockDuration:
        if (group) group.duration = uint(b, data, v);
        break;
      case ID.simpleBlock:
      case ID.block: {
        const track = vint(b, data, false);
        if (!track || data + track.len + 3 > data + v) break;
        const rel = b.readInt16BE(data + track.len);
        const flags = b[data + track.len + 2];
        const frames = (flags & 0x06) !== 0 && v > track.len + 3 ? b[data + track.len + 3] + 1 : 1;
        const start = cluster + rel;
        first = Math.min(first, start * scale);
        if (id.value === ID.block && group) Object.assign(group, { start, track: track.value, frames });
        else end = Math.max(end, start * scale + (defaultDuration.get(track.value) ?? 0) * frames);
        break;
      }
    }
    i = data + v;
  }
  closeEntry();
  closeGroup();
  if (!Number.isFinite(first) || !Number.isFinite(end)) return null;
  // Blocks read before the track table (not in a valid file) would miss their default duration: fine.
  return Math.max(0, end - Math.min(first, end)) / 1e9;
}
