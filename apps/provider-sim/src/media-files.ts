// The files the simulator returns: real PNGs at the requested ratio and resolution, and real MP4s
// (committed fixtures, one per resolution and ratio; see fixtures/make-fixtures.sh).
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';

/** Long side in pixels per image resolution; models without a resolution parameter get 1k. */
const LONG_SIDE: Record<string, number> = { '1k': 1024, '2k': 2048, '4k': 4096 };

export function imageSize(ratio: unknown, resolution: unknown): { width: number; height: number } {
  const long = LONG_SIDE[String(resolution)] ?? 1024;
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

const FIXTURES = path.resolve(__dirname, '../fixtures');
const VIDEO_RESOLUTIONS = new Set(['480p', '720p', '768p', '1080p']);
const VIDEO_RATIOS: Record<string, string> = { '16:9': '16x9', '9:16': '9x16', '1:1': '1x1' };
const mp4Cache = new Map<string, Buffer>();

/** An MP4 at the requested resolution and ratio (720p / 16:9 when the request names neither). */
export function mp4File(ratio: unknown, resolution: unknown): Buffer {
  const res = VIDEO_RESOLUTIONS.has(String(resolution)) ? String(resolution) : '720p';
  const name = `${res}-${VIDEO_RATIOS[String(ratio)] ?? '16x9'}.mp4`;
  let buf = mp4Cache.get(name);
  if (!buf) {
    buf = fs.readFileSync(path.join(FIXTURES, name));
    mp4Cache.set(name, buf);
  }
  return buf;
}
