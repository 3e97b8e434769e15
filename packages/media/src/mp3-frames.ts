// MP3 play time by walking its frames: a Xing/VBRI/Info header is a number anyone
// can edit, while a player plays every frame. Each MPEG audio frame header gives its own length and
// sample count, so summing them over the file is the length a listener hears. The walk stops at the
// first byte run that is not a frame (trailing tags, garbage), and yields to the event loop every
// few thousand frames.
import { setImmediate as nextTurn } from 'node:timers/promises';

const BITRATES: Record<string, number[]> = {
  // kbit/s by index 1-14, for [MPEG1 | MPEG2/2.5] x layer
  '1-1': [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

interface Frame {
  length: number;
  samples: number;
  rate: number;
}

function frameAt(b: Buffer, i: number): Frame | null {
  if (i + 4 > b.length || b[i] !== 0xff || (b[i + 1] & 0xe0) !== 0xe0) return null;
  const version = (b[i + 1] >> 3) & 3; // 3: MPEG1, 2: MPEG2, 0: MPEG2.5
  const layerBits = (b[i + 1] >> 1) & 3; // 3: I, 2: II, 1: III
  const brIndex = b[i + 2] >> 4;
  const srIndex = (b[i + 2] >> 2) & 3;
  if (version === 1 || layerBits === 0 || brIndex === 0 || brIndex === 15 || srIndex === 3) return null;
  const layer = 4 - layerBits;
  const rate = RATES[version][srIndex];
  const kbps = BITRATES[`${version === 3 ? 1 : 2}-${layer}`][brIndex - 1];
  const pad = (b[i + 2] >> 1) & 1;
  if (layer === 1) return { length: (Math.floor((12 * kbps * 1000) / rate) + pad) * 4, samples: 384, rate };
  const samples = layer === 3 && version !== 3 ? 576 : 1152;
  return { length: Math.floor(((samples / 8) * kbps * 1000) / rate) + pad, samples, rate };
}

/** Seconds of audio in the frames of `b` (an MP3 file), or null when fewer than 2 frames are found. */
export async function mp3FrameSeconds(b: Buffer, signal?: AbortSignal): Promise<number | null> {
  let i = 0;
  // ID3v2 tag: 10-byte header with a syncsafe size.
  if (b.length >= 10 && b.toString('latin1', 0, 3) === 'ID3') {
    i = 10 + ((b[6] & 0x7f) << 21) + ((b[7] & 0x7f) << 14) + ((b[8] & 0x7f) << 7) + (b[9] & 0x7f);
  }
  // The first frame may follow some padding; look for it within 64 KiB.
  const searchEnd = Math.min(b.length, i + 65536);
  while (i < searchEnd && !(frameAt(b, i) && frameAt(b, i + frameAt(b, i)!.length))) i++;
  let seconds = 0;
  let frames = 0;
  for (;;) {
    const f = frameAt(b, i);
    if (!f || f.length < 4) break;
    seconds += f.samples / f.rate;
    frames++;
    i += f.length;
    if (frames % 5000 === 0) {
      await nextTurn();
      if (signal?.aborted) break;
    }
  }
  return frames >= 2 ? seconds : null;
}
