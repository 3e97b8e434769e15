// WAV, FLAC, Ogg (Opus, Vorbis) and WebM/Matroska durations come from the media, not
// from a header field anyone can edit. Each format gets a file whose header claims 1 s while its
// data holds ~30 s, and one whose header claims 30 s while its data holds ~1 s: the measurement
// follows the data both ways (before, it followed the header: music-metadata's STREAMINFO total,
// the data chunk's size, the last granule, the Segment Info duration).
import fs from 'node:fs';
import path from 'node:path';
import { BufferSource, measureMedia } from '../src';
import { imageSize } from '../src/image-size';

const FIXTURES = path.resolve(__dirname, 'fixtures');
const fixture = (n: string) => Buffer.from(fs.readFileSync(path.join(FIXTURES, n)));
const signal = new AbortController().signal;
const measure = (b: Buffer, kind: 'audio' | 'video' = 'audio') => measureMedia(new BufferSource(b), kind, signal);

// ---- WAV: 8 kHz, 8-bit mono PCM, so one second is 8000 bytes.
function wav(dataBytes: number, claimedBytes: number, trailer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + claimedBytes, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(8000, 28);
  h.writeUInt16LE(1, 32);
  h.writeUInt16LE(8, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(claimedBytes, 40);
  const data = Buffer.alloc(dataBytes);
  for (let i = 0; i < dataBytes; i++) data[i] = 128 + Math.round(60 * Math.sin(i / 3));
  return Buffer.concat([h, data, trailer]);
}

describe('WAV', () => {
  it('a data chunk claiming 1 s over 30 s of samples measures 30 s', async () => {
    expect((await measure(wav(30 * 8000, 8000))).seconds).toBe(30);
  });
  it('a data chunk claiming 30 s over 1 s of samples measures 1 s', async () => {
    expect((await measure(wav(8000, 30 * 8000))).seconds).toBe(1);
  });
  it('an honest size followed by a metadata chunk is believed', async () => {
    const list = Buffer.concat([Buffer.from('LIST', 'latin1'), Buffer.from([4, 0, 0, 0]), Buffer.from('INFO', 'latin1')]);
    expect((await measure(wav(12_000, 12_000, list))).seconds).toBe(1.5);
    expect((await measure(fixture('audio-1.5s.wav'))).seconds).toBe(1.5);
  });
});

// ---- AIFF: 8 kHz, 8-bit mono, so one second is 8000 bytes of SSND data. COMM's numSampleFrames
// and SSND's size field are both header claims.
function aiff(dataBytes: number, claimedFrames: number, claimedBytes = dataBytes, form = 'AIFF'): Buffer {
  const aifc = form === 'AIFC';
  const commSize = aifc ? 24 : 18;
  const comm = Buffer.alloc(8 + commSize);
  comm.write('COMM', 0, 'latin1');
  comm.writeUInt32BE(commSize, 4);
  comm.writeUInt16BE(1, 8); // mono
  comm.writeUInt32BE(claimedFrames, 10);
  comm.writeUInt16BE(8, 14); // 8-bit
  Buffer.from([0x40, 0x0b, 0xfa, 0, 0, 0, 0, 0, 0, 0]).copy(comm, 16); // 8000.0 as 80-bit extended
  if (aifc) comm.write('NONE\x00\x00', 26, 'latin1');
  const ssnd = Buffer.alloc(16);
  ssnd.write('SSND', 0, 'latin1');
  ssnd.writeUInt32BE(8 + claimedBytes, 4); // offset and blockSize (0) then the samples
  const data = Buffer.alloc(dataBytes);
  for (let i = 0; i < dataBytes; i++) data[i] = Math.round(60 * Math.sin(i / 3)) & 0xff;
  const head = Buffer.alloc(12);
  head.write('FORM', 0, 'latin1');
  head.writeUInt32BE(4 + comm.length + ssnd.length + claimedBytes, 4);
  head.write(form, 8, 'latin1');
  return Buffer.concat([head, comm, ssnd, data]);
}

describe('AIFF', () => {
  it('COMM claiming 1 s over 30 s of samples measures 30 s', async () => {
    expect(await measure(aiff(30 * 8000, 8000))).toEqual({ mime: 'audio/aiff', seconds: 30 });
    // SSND's size claiming 1 s too: music-metadata then fails on the bytes after it (a refusal, not 1 s).
    await expect(measure(aiff(30 * 8000, 8000, 8000))).rejects.toThrow();
  });
  it('COMM and SSND claiming 30 s over 1 s of samples measure 1 s', async () => {
    expect((await measure(aiff(8000, 30 * 8000, 30 * 8000))).seconds).toBe(1);
  });
  it('an honest AIFC (NONE) measures as it plays; a compressed AIFC is refused, not taken from COMM', async () => {
    expect((await measure(aiff(12_000, 12_000, 12_000, 'AIFC'))).seconds).toBe(1.5);
    const compressed = aiff(12_000, 12_000, 12_000, 'AIFC');
    compressed.write('ima4', 12 + 8 + 18, 'latin1');
    await expect(measure(compressed)).rejects.toThrow(/could not be measured from its data/);
  });
  it('a file cut inside COMM is refused', async () => {
    await expect(measure(aiff(8000, 8000).subarray(0, 30))).rejects.toThrow();
  });
});

// ---- ADTS AAC: 8 kHz frames of 4 raw data blocks (4 x 1024 samples = 0.512 s each).
function adts(frames: number, payload = 20): Buffer {
  const out: Buffer[] = [];
  for (let f = 0; f < frames; f++) {
    const len = 7 + payload;
    const h = Buffer.from([0xff, 0xf1, (1 << 6) | (11 << 2), (1 << 6) | ((len >> 11) & 3), (len >> 3) & 0xff, ((len & 7) << 5) | 0x1f, 0xfc | 3]);
    out.push(h, Buffer.alloc(payload, f & 0xff));
  }
  return Buffer.concat(out);
}

describe('ADTS AAC', () => {
  it('every frame counts all its raw data blocks: 60 frames of 4096 samples at 8 kHz measure 30.72 s', async () => {
    expect(await measure(adts(60))).toEqual({ mime: 'audio/aac', seconds: 30.72 });
  });
  it('a cut-off last frame is not counted; bytes between frames are refused', async () => {
    const b = adts(10);
    expect((await measure(b.subarray(0, b.length - 5))).seconds).toBe(4.608);
    const junk = Buffer.concat([adts(2), Buffer.from('junk'), adts(58)]);
    await expect(measure(junk)).rejects.toThrow();
  });
});

// ---- FLAC: STREAMINFO's total samples is a 36-bit field at byte 8+14 of the first block's body.
function setFlacTotal(b: Buffer, samples: number): Buffer {
  const at = 8 + 13; // block header (4) after "fLaC" (4); body offset 13: 4 bits of bps, then 36 bits of total
  b[at] = (b[at] & 0xf0) | Math.floor(samples / 2 ** 32);
  b.writeUInt32BE(samples % 2 ** 32, at + 1);
  return b;
}

describe('FLAC', () => {
  it('STREAMINFO claiming 1 s over 30 s of frames measures 30 s', async () => {
    const b = setFlacTotal(fixture('audio-30s-silence.flac'), 8000);
    expect((await measure(b)).seconds).toBe(30);
  });
  it('STREAMINFO claiming 30 s over ~1 s of frames measures ~1 s', async () => {
    const whole = fixture('audio-30s-silence.flac');
    let frames = 4; // after "fLaC": metadata blocks (STREAMINFO, comments, 8 KB of padding ...)
    for (let last = false; !last; frames += 4 + whole.readUIntBE(frames + 1, 3)) last = (whole[frames] & 0x80) !== 0;
    const b = whole.subarray(0, frames + Math.floor((whole.length - frames) / 30)); // the first frames only
    const m = await measure(b);
    expect(m.seconds).toBeGreaterThan(0.3);
    expect(m.seconds).toBeLessThan(2.5);
  });
  it('an honest file measures as it plays', async () => {
    expect((await measure(fixture('audio-3s.flac'))).seconds).toBe(3);
  });
});

// ---- Ogg: the granule position is bytes 6-13 of each page; the last page's is what headers give.
function pages(b: Buffer): number[] {
  const at: number[] = [];
  for (let i = b.indexOf('OggS'); i >= 0; i = b.indexOf('OggS', i + 4)) at.push(i);
  return at;
}
function setGranule(b: Buffer, page: number, granule: number): Buffer {
  b.writeUInt32LE(granule % 2 ** 32, page + 6);
  b.writeUInt32LE(Math.floor(granule / 2 ** 32), page + 10);
  return b;
}

describe('Ogg', () => {
  it('Opus: a last granule claiming 1 s (or 30 s) over 2.5 s of packets measures 2.5 s', async () => {
    const honest = fixture('audio-2.5s.ogg');
    expect((await measure(honest)).seconds).toBeCloseTo(2.5, 2);
    const preSkip = honest.readUInt16LE(honest.indexOf('OpusHead') + 10);
    const last = pages(honest).at(-1)!;
    expect((await measure(setGranule(fixture('audio-2.5s.ogg'), last, 48_000 + preSkip))).seconds).toBeCloseTo(2.5, 1);
    expect((await measure(setGranule(fixture('audio-2.5s.ogg'), last, 30 * 48_000 + preSkip))).seconds).toBeCloseTo(2.5, 1);
  });
  it('Vorbis: a last granule claiming 1 s over 30 s of packets measures 30 s', async () => {
    expect((await measure(fixture('audio-30s-vorbis.ogg'))).seconds).toBe(30);
    const b = fixture('audio-30s-vorbis.ogg');
    expect((await measure(setGranule(b, pages(b).at(-1)!, 8000))).seconds).toBeGreaterThan(29.5);
    expect((await measure(fixture('audio-3s-vorbis.ogg'))).seconds).toBe(3);
  });
  it('Vorbis: a last granule claiming 30 s over the packets of its first audio page measures those packets', async () => {
    const whole = fixture('audio-30s-vorbis.ogg');
    const at = pages(whole);
    const first = at.findIndex((p) => whole.readUInt32LE(p + 6) > 0); // the first page with audio
    const honest = whole.readUInt32LE(at[first] + 6) / 8000;
    expect(honest).toBeLessThan(15);
    const b = setGranule(Buffer.from(whole.subarray(0, at[first + 1])), at[first], 30 * 8000);
    const m = await measure(b);
    expect(Math.abs(m.seconds - honest)).toBeLessThan(0.3);
  });
});

// ---- WebM/Matroska, built element by element: a video track, Segment Info Duration as claimed,
// and one SimpleBlock every 500 ms of real timeline.
const el = (id: number, body: Buffer): Buffer => {
  const idBytes = Buffer.from(id.toString(16).padStart(id > 0xffffff ? 8 : id > 0xffff ? 6 : id > 0xff ? 4 : 2, '0'), 'hex');
  const size = Buffer.alloc(8);
  size.writeUInt32BE(0x01000000, 0);
  size.writeUInt32BE(body.length, 4);
  return Buffer.concat([idBytes, size, body]);
};
const u = (n: number, bytes = 4) => {
  const b = Buffer.alloc(bytes);
  b.writeUIntBE(n, 0, bytes);
  return b;
};
const f64 = (x: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(x);
  return b;
};
function webm(claimedMs: number, realMs: number): Buffer {
  const ebml = el(0x1a45dfa3, Buffer.concat([el(0x4282, Buffer.from('webm')), el(0x4287, u(4, 1)), el(0x4285, u(2, 1))]));
  const info = el(0x1549a966, Buffer.concat([el(0x2ad7b1, u(1_000_000)), el(0x4489, f64(claimedMs))]));
  const track = el(0xae, Buffer.concat([el(0xd7, u(1, 1)), el(0x73c5, u(1, 1)), el(0x83, u(1, 1)), el(0x86, Buffer.from('V_VP8')), el(0x23e383, u(500_000_000)),
    el(0xe0, Buffer.concat([el(0xb0, u(64, 2)), el(0xba, u(36, 2))]))]));
  const tracks = el(0x1654ae6b, track);
  const clusters: Buffer[] = [];
  for (let c = 0; c * 10_000 < realMs; c++) {
    const blocks: Buffer[] = [el(0xe7, u(c * 10_000))];
    for (let t = 0; t < 10_000 && c * 10_000 + t < realMs; t += 500) {
      const head = Buffer.from([0x81, 0, 0, 0x80]);
      head.writeInt16BE(t, 1);
      blocks.push(el(0xa3, Buffer.concat([head, Buffer.alloc(16, 1)])));
    }
    clusters.push(el(0x1f43b675, Buffer.concat(blocks)));
  }
  return Buffer.concat([ebml, el(0x18538067, Buffer.concat([info, tracks, ...clusters]))]);
}

describe('WebM', () => {
  it('a Segment duration claiming 1 s over 30 s of blocks measures 30 s', async () => {
    expect((await measure(webm(1000, 30_000), 'video')).seconds).toBe(30);
  });
  it('a Segment duration claiming 30 s over 1 s of blocks measures 1 s', async () => {
    expect((await measure(webm(30_000, 1000), 'video')).seconds).toBe(1);
  });
  it('a real file measures as it plays; its header duration edited to 1 s changes nothing', async () => {
    expect((await measure(fixture('video-2s.webm'), 'video')).seconds).toBe(2);
    const b = fixture('video-2s.webm');
    const d = b.indexOf(Buffer.from([0x44, 0x89]));
    const size = b[d + 2] & 0x7f; // 4 or 8 byte float
    if (size === 8) b.writeDoubleBE(1000, d + 3);
    else b.writeFloatBE(1000, d + 3);
    expect((await measure(b, 'video')).seconds).toBe(2);
  });
});

describe('every walk yields and stops on its deadline', () => {
  it('a long walk lets the event loop turn while it runs', async () => {
    const big = webm(1000, 10_000_000); // 20,000 blocks
    let turns = 0;
    let running = true;
    const spin = () => {
      turns++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const m = await measure(big, 'video');
    running = false;
    expect(m.seconds).toBe(10_000);
    expect(turns).toBeGreaterThanOrEqual(4); // the walk yields every 4096 elements or 1 MiB
  });
  it('an aborted walk stops', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(measureMedia(new BufferSource(fixture('audio-30s-vorbis.ogg')), 'audio', ac.signal)).rejects.toThrow();
  });
});

describe('image sizes from the header (URL images are snapshotted and checked)', () => {
  it('reads PNG, JPEG and WebP sizes and refuses decoder bombs', () => {
    expect(imageSize(fixture('image.png'), 'image/png')).toEqual({ width: 32, height: 32 });
    expect(imageSize(fixture('image.jpg'), 'image/jpeg')).toEqual({ width: 32, height: 32 });
    expect(imageSize(fixture('image.webp'), 'image/webp')).toEqual({ width: 32, height: 32 });
    const bomb = fixture('image.png');
    bomb.writeUInt32BE(100_000, 16);
    expect(() => imageSize(bomb, 'image/png')).toThrow(/at most 30000 a side/);
    expect(() => imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xd9]), 'image/jpeg')).toThrow(/no image size/);
  });
});
