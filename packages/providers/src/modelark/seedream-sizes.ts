// What each Seedream version renders, recognised from the upstream model id, and the `size` we send
// for our ratio and resolution (pure). Verified 2026-11-27 (docs/protocol-modelark.md, "Verified
// against"): BytePlus ModelArk image generation (doc 1541523, as copied by docs.powertokens.ai),
// vercel/ai packages/bytedance ids, apiyi's version table for 5.0 pro.
//   4.0       1K/2K/4K,  921,600 - 16,777,216 pixels (1280x720 - 4096x4096), 14 reference images
//   4.5       2K/4K,   3,686,400 - 16,777,216 pixels, 14 reference images
//   5.0 lite  2K/3K,   3,686,400 - 10,404,496 pixels, 14 reference images (`seedream-5-0-260128`)
//   5.0 pro   1K/2K,           up to 4,194,304 pixels, 10 reference images
// The upstream refuses a size outside its range, so a size we sell outside it is moved to the
// nearest one it takes, at the same ratio: a smaller one up to the version's smallest (a larger
// image than sold: Seedream answers JPEG, which nothing here decodes to scale it back down), a
// larger one down to its largest (a smaller image than sold; images are priced per image, not per
// resolution, so nobody pays for pixels they do not get; docs/protocol-modelark.md).

export interface SeedreamVersion {
  version: string;
  minPixels: number;
  maxPixels: number;
  /** Reference images it takes; 0: text-to-image only. */
  maxRefs: number;
}

const VERSIONS: readonly [RegExp, SeedreamVersion][] = [
  [/seedream-3-0-t2i/i, { version: '3.0 t2i', minPixels: 0, maxPixels: Infinity, maxRefs: 0 }],
  [/seedream-5-0-pro/i, { version: '5.0 pro', minPixels: 0, maxPixels: 4_194_304, maxRefs: 10 }],
  [/seedream-5-0/i, { version: '5.0 lite', minPixels: 3_686_400, maxPixels: 10_404_496, maxRefs: 14 }],
  [/seedream-4-5/i, { version: '4.5', minPixels: 3_686_400, maxPixels: 16_777_216, maxRefs: 14 }],
  [/seedream-4-0/i, { version: '4.0', minPixels: 921_600, maxPixels: 16_777_216, maxRefs: 14 }],
];

/** The version's limits; an id no pattern names (a private endpoint `ep-...`) gets none. */
export function seedreamVersion(upstreamModel: string | undefined): SeedreamVersion | undefined {
  return upstreamModel ? VERSIONS.find(([re]) => re.test(upstreamModel))?.[1] : undefined;
}

/**
 * Seedream's recommended 2K sizes per ratio (BytePlus Seedream 4.0 API: "recommended width x height");
 * 1k is half and 4k twice each side. An explicit size keeps the requested ratio, which the named
 * sizes ("2K") leave to the model.
 */
export const SIZES_2K: Readonly<Record<string, readonly [number, number]>> = {
  '1:1': [2048, 2048], '4:3': [2304, 1728], '3:4': [1728, 2304], '16:9': [2560, 1440], '9:16': [1440, 2560],
  '3:2': [2496, 1664], '2:3': [1664, 2496], '21:9': [3024, 1296],
};
export const SCALE: Readonly<Record<string, number>> = { '1k': 0.5, '2k': 1, '4k': 2 };

export interface SeedreamSize {
  width: number;
  height: number;
  /** How the size sent compares with the size sold. */
  delivered: 'as-sold' | 'larger' | 'smaller';
}

/** Down to a multiple of 16 (the sizes Seedream documents are). */
const floor16 = (n: number) => Math.max(16, Math.floor(n / 16) * 16);

/** The size for our ratio and resolution on this version; models without a resolution get 2K. */
export function seedreamSizeFor(ratio: string, resolution: string | null, version?: SeedreamVersion): SeedreamSize {
  const base = SIZES_2K[ratio] ?? SIZES_2K['1:1'];
  const k = SCALE[resolution ?? '2k'] ?? 1;
  const [w, h] = [base[0] * k, base[1] * k];
  if (!version) return { width: w, height: h, delivered: 'as-sold' };
  // Every 2K size is at least 3,686,400 pixels (16:9 exactly), the largest minimum of any version.
  if (w * h < version.minPixels) return { width: base[0], height: base[1], delivered: 'larger' };
  if (w * h > version.maxPixels) {
    const s = Math.sqrt(version.maxPixels / (w * h));
    return { width: floor16(w * s), height: floor16(h * s), delivered: 'smaller' };
  }
  return { width: w, height: h, delivered: 'as-sold' };
}

/** `"WxH"` for our ratio and resolution on this upstream model. */
export function seedreamSize(ratio: string, resolution: string | null, upstreamModel?: string): string {
  const { width, height } = seedreamSizeFor(ratio, resolution, seedreamVersion(upstreamModel));
  return `${width}x${height}`;
}
