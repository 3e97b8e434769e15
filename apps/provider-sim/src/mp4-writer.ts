// A progressive MP4 (ISO/IEC 14496-12 + 14496-15 'avc1') of the requested length and size, built in
// code from h264-stream.ts: ftyp, moov (mvhd, one video trak), mdat. moov comes first ("faststart")
// so a reader that fetches the head learns duration and size at once. 24 fps like Seedance output.
import { h264Stream } from './h264-stream';

export const VIDEO_FPS = 24;
const MEDIA_TIMESCALE = VIDEO_FPS * 1000; // one frame = 1000 ticks; a last partial frame keeps exact length
const MOVIE_TIMESCALE = 1000;

const u8 = (v: number) => Buffer.from([v & 0xff]);
const u16 = (v: number) => { const b = Buffer.alloc(2); b.writeUInt16BE(v); return b; };
const u32 = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(v >>> 0); return b; };
const zeros = (n: number) => Buffer.alloc(n);
const str = (s: string) => Buffer.from(s, 'latin1');

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([u32(8 + body.length), str(type), body]);
}
const fullBox = (type: string, version: number, flags: number, ...parts: Buffer[]) =>
  box(type, u8(version), u8(flags >> 16), u16(flags & 0xffff), ...parts);

// Unity transformation matrix (16.16 and 2.30 fixed point).
const MATRIX = Buffer.concat([0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].map(u32));

export interface Mp4Options {
  seconds: number;
  width: number;
  height: number;
}

export function buildMp4({ seconds, width, height }: Mp4Options): Buffer {
  if (!(seconds > 0)) throw new Error(`mp4: duration must be positive, got ${seconds}`);
  const stream = h264Stream(width, height);
  const totalTicks = Math.max(1, Math.round(seconds * MEDIA_TIMESCALE));
  const frames = Math.ceil(totalTicks / 1000);
  const lastDelta = totalTicks - 1000 * (frames - 1);

  // Every sample is one NAL unit with a 4-byte length prefix (avcC lengthSizeMinusOne = 3).
  const samples: Buffer[] = [];
  for (let i = 0; i < frames; i++) {
    const unit = i === 0 ? stream.idr : stream.pFrame(i);
    samples.push(u32(unit.length), unit);
  }
  const sizes: number[] = [];
  for (let i = 0; i < samples.length; i += 2) sizes.push(samples[i].length + samples[i + 1].length);
  const mdatBody = Buffer.concat(samples);

  const movieDuration = Math.round((totalTicks * MOVIE_TIMESCALE) / MEDIA_TIMESCALE);
  const sttsEntries = lastDelta === 1000 || frames === 1
    ? [[frames === 1 ? 1 : frames, frames === 1 ? lastDelta : 1000]]
    : [[frames - 1, 1000], [1, lastDelta]];

  const avcC = box('avcC',
    u8(1), u8(stream.profile), u8(stream.compatibility), u8(stream.level),
    u8(0xfc | 3), u8(0xe0 | 1), u16(stream.sps.length), stream.sps, u8(1), u16(stream.pps.length), stream.pps);
  const avc1 = box('avc1',
    zeros(6), u16(1), // reserved, data_reference_index
    zeros(16), u16(width), u16(height),
    u32(0x00480000), u32(0x00480000), zeros(4), u16(1), // 72 dpi, reserved, frame_count
    zeros(32), u16(0x0018), u16(0xffff), avcC); // compressorname, depth, pre_defined -1

  const stblWith = (chunkOffset: number) => box('stbl',
    fullBox('stsd', 0, 0, u32(1), avc1),
    fullBox('stts', 0, 0, u32(sttsEntries.length), ...sttsEntries.flatMap(([n, d]) => [u32(n), u32(d)])),
    fullBox('stss', 0, 0, u32(1), u32(1)),
    fullBox('stsc', 0, 0, u32(1), u32(1), u32(frames), u32(1)),
    fullBox('stsz', 0, 0, u32(0), u32(frames), ...sizes.map(u32)),
    fullBox('stco', 0, 0, u32(1), u32(chunkOffset)));

  const moovWith = (chunkOffset: number) => box('moov',
    fullBox('mvhd', 0, 0, u32(0), u32(0), u32(MOVIE_TIMESCALE), u32(movieDuration),
      u32(0x00010000), u16(0x0100), zeros(10), MATRIX, zeros(24), u32(2)),
    box('trak',
      fullBox('tkhd', 0, 3, u32(0), u32(0), u32(1), zeros(4), u32(movieDuration), zeros(8),
        u16(0), u16(0), u16(0), zeros(2), MATRIX, u32(width * 0x10000), u32(height * 0x10000)),
      box('mdia',
        fullBox('mdhd', 0, 0, u32(0), u32(0), u32(MEDIA_TIMESCALE), u32(totalTicks), u16(0x55c4), u16(0)), // 'und'
        fullBox('hdlr', 0, 0, u32(0), str('vide'), zeros(12), str('VideoHandler\0')),
        box('minf',
          fullBox('vmhd', 0, 1, zeros(8)),
          box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))),
          stblWith(chunkOffset)))));

  const ftyp = box('ftyp', str('isom'), u32(0x200), str('isom'), str('iso2'), str('avc1'), str('mp41'));
  // moov's size does not depend on the offset's value, so measure once and write it for real.
  const moovSize = moovWith(0).length;
  const mdatHeader = Buffer.concat([u32(8 + mdatBody.length), str('mdat')]);
  const moov = moovWith(ftyp.length + moovSize + mdatHeader.length);
  return Buffer.concat([ftyp, moov, mdatHeader, mdatBody]);
}
