// The files the simulator returns: real PNGs at the requested ratio and resolution, and real MP4s
// of the requested length, ratio and resolution, encoded in code (mp4-writer.ts; no ffmpeg).
import { PNG } from 'pngjs';
import { buildMp4 } from './mp4-writer';

/** Long side in pixels per image resolution; models without a resolution parameter get 1k. */
const LONG_SIDE: Record<string, number> = { '1k': 1024, '2k': 2048, '4k': 4096 };

/**
 * Pixel size of an image: an explicit `"WxH"` (Seedream's `size`) as given, else the ratio at the
 * resolution's long side.
 */
export function imageSize(ratio: unknown, resolution: unknown): { width: number; height: number } {
  const exact = /^(\d{1,5})x(\d{1,5})$/.exec(String(resolution ?? ''));
  if (exact && Number(exact[1]) > 0 && Number(exact[2]) > 0) return { width: Math.min(Number(exact[1]), 8192), height: Math.min(Number(exact[2]), 8192) };
  const long = LONG_SIDE[String(resolution).toLowerCase()] ?? 1024;
  const m = /^(\d+):(\d+)$/.exec(String(ratio ?? ''));
  const [w, h] = m ? [Number(m[1]), Number(m[2])] : [1, 1];
  if (!w || !h) return { width: long, height: long };
  return w >= h ? { width: long, height: Math.max(1, Math.round((long * h) / w)) } : { width: Math.max(1, Math.round((long * w) / h)), height: long };
}

// A PNG depends only on its size, so each size is encoded once. Rows repeat within bands and the
// "Up" filter turns a repeated row into zeros, which keeps even a 4096x4096 encode cheap (~0.25 s, 90 KB).
const pngCache = new Map<string, Buffer>();
const PNG_CACHE_MAX = 24;

export function pngFile(width: number, height: number): Buffer {
  const key = `${width}x${height}`;
  const hit = pngCache.get(key);
  if (hit) return hit;
  const png = new PNG({ width, height, colorType: 2, inputColorType: 2, inputHasAlpha: false, filterType: 2, deflateLevel: 6 });
  const row = Buffer.alloc(width * 3);
  const bands = 8;
  for (let y = 0; y < height; y++) {
    const band = Math.floor((y * bands) / height);
    if (y === 0 || Math.floor(((y - 1) * bands) / height) !== band)
      for (let x = 0; x < width; x++) {
        row[x * 3] = Math.floor((x * 255) / Math.max(1, width - 1));
        row[x * 3 + 1] = band * 32;
        row[x * 3 + 2] = 255 - row[x * 3];
      }
    row.copy(png.data, y * width * 3);
  }
  const buf = PNG.sync.write(png, { colorType: 2, inputColorType: 2, inputHasAlpha: false, filterType: 2, deflateLevel: 6 });
  if (pngCache.size >= PNG_CACHE_MAX) pngCache.delete(pngCache.keys().next().value as string);
  pngCache.set(key, buf);
  return buf;
}

/** Short side in pixels per video resolution name ("720p", "768P", "2K", "4k"); 720 when unknown. */
const VIDEO_SHORT_SIDE: Record<string, number> = { '360p': 360, '480p': 480, '540p': 540, '720p': 720, '768p': 768, '1080p': 1080, '2k': 1440, '1440p': 1440, '4k': 2160, '2160p': 2160 };
const even = (n: number) => Math.max(16, 2 * Math.round(n / 2));

/** Frame size for a resolution name and a ratio: the short side is the resolution, the long side follows the ratio. */
export function videoSize(ratio: unknown, resolution: unknown): { width: number; height: number } {
  const short = VIDEO_SHORT_SIDE[String(resolution ?? '').toLowerCase()] ?? 720;
  const m = /^(\d+):(\d+)$/.exec(String(ratio ?? ''));
  const [w, h] = m && Number(m[1]) > 0 && Number(m[2]) > 0 ? [Number(m[1]), Number(m[2])] : [16, 9];
  return w >= h ? { width: even((short * w) / h), height: even(short) } : { width: even(short), height: even((short * h) / w) };
}

// Generated videos depend only on (duration, width, height); a few dozen combinations cover the catalog.
const mp4Cache = new Map<string, Buffer>();
const MP4_CACHE_MAX = 48;

/** A real H.264 MP4 of exactly `seconds` at `width` x `height` (see mp4-writer.ts), cached. */
export function mp4Of(seconds: number, width: number, height: number): Buffer {
  const key = `${seconds}:${width}x${height}`;
  let buf = mp4Cache.get(key);
  if (buf) {
    mp4Cache.delete(key); // refresh its place in the LRU order
  } else {
    buf = buildMp4({ seconds, width, height });
    if (mp4Cache.size >= MP4_CACHE_MAX) mp4Cache.delete(mp4Cache.keys().next().value as string);
  }
  mp4Cache.set(key, buf);
  return buf;
}

/** An MP4 at the requested resolution, ratio and length (720p, 16:9, 5 s when the request names none). */
export function mp4File(ratio: unknown, resolution: unknown, seconds?: unknown): Buffer {
  const { width, height } = videoSize(ratio, resolution);
  const s = Number(seconds);
  return mp4Of(Number.isFinite(s) && s > 0 ? Math.min(s, 120) : 5, width, height);
}

/**
 * A video of `totalBytes` made from a real MP4 by growing its last box, mdat, with zeros after the
 * samples (bytes no sample table points at, which readers skip): still a valid, playable file. Only
 * the head is built; the caller streams `padding` zero bytes after it, so a 500 MiB result never
 * sits in memory. A `totalBytes` not above the file's own size leaves it as it is.
 */
export function paddedMp4(file: Buffer, totalBytes: number): { head: Buffer; padding: number } {
  const padding = Math.max(0, Math.floor(totalBytes) - file.length);
  if (padding === 0) return { head: file, padding: 0 };
  let at = 0;
  let last = -1;
  while (at + 8 <= file.length) {
    const size = file.readUInt32BE(at);
    if (size < 8) throw new Error('mp4: unexpected box size');
    last = at;
    at += size;
  }
  if (last < 0 || file.toString('latin1', last + 4, last + 8) !== 'mdat') throw new Error('mp4: mdat is not the last box');
  const grown = file.readUInt32BE(last) + padding;
  if (grown > 0xffffffff) throw new Error(`mp4: a padded mdat of ${grown} bytes needs a 64-bit size`);
  const head = Buffer.from(file);
  head.writeUInt32BE(grown, last);
  return { head, padding };
}

/** Zeros, shared by every padded stream: never written to, so one buffer serves all. */
const ZEROS = Buffer.alloc(256 * 1024);

/** The head, then `padding` zero bytes, chunk by chunk as the reader pulls them. */
export async function* paddedBytes(head: Buffer, padding: number): AsyncGenerator<Buffer> {
  yield head;
  for (let left = padding; left > 0; left -= ZEROS.length) yield left >= ZEROS.length ? ZEROS : ZEROS.subarray(0, left);
}
