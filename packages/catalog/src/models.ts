// The model catalog (video models, image models, video-b resolution/tier rows) as data. Validation and pricing read these
// tables instead of repeating model names in code, so adding a model is one entry here (plus its
// prices in prices.ts).
import { MAX_IMAGE_TASK_IMAGES } from './limits';

export type VideoFamily = 'video-a' | 'video-b' | 'video-c';
export type Tier = 'official' | 'third-party';
export interface SecondsRange { min: number; max: number }

/** One row of video-b's availability table: a resolution/tier pair a video-b model offers, with its limits. */
export interface VideoBOffer {
  resolution: string;
  tier: Tier;
  duration: SecondsRange;
  maxRefs: { image: number; video: number; audio: number };
  /** Totals of measured reference lengths, checked by checkMeasuredLimits. */
  maxRefSeconds: { video: number; audio: number };
}

export interface VideoCVariant { id: string; label: string; maxImages: number }

export interface VideoModelInfo {
  id: string;
  type: 'video';
  family: VideoFamily;
  ratios: readonly string[];
  /** Empty for video-c-3.1: resolution is not one of its parameters. */
  resolutions: readonly string[];
  defaultResolution: string | null;
  /** Duration range by resolution; null when the model decides the length (video-c-3.1). */
  durations: Readonly<Record<string, SecondsRange>> | null;
  defaultDuration: number | null;
  offers?: readonly VideoBOffer[];
  variants?: readonly VideoCVariant[];
  defaultVariant?: string;
}

export interface ImageModelInfo {
  id: string;
  type: 'image';
  ratios: readonly string[];
  /** Empty when the model has no resolution parameter. */
  resolutions: readonly string[];
  defaultResolution: string | null;
  maxImages: number;
  /** The spec says "some image models answer the submit call with completed"; which ones is our decision. */
  answersAtOnce: boolean;
}

export type ModelInfo = VideoModelInfo | ImageModelInfo;

export const DEFAULT_VIDEO_RATIO = '16:9';
export const DEFAULT_IMAGE_RATIO = '1:1';
export const DEFAULT_VIDEO_DURATION = 5;

const VIDEO_RATIOS_B = ['16:9', '9:16', '1:1'] as const;
const IMAGE_RATIOS_7 = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3'] as const;
const IMAGE_RATIOS_8 = [...IMAGE_RATIOS_7, '21:9'] as const;
const IMAGE_RESOLUTIONS = ['1k', '2k', '4k'] as const;

const bigRefs = { maxRefs: { image: 30, video: 10, audio: 10 }, maxRefSeconds: { video: 30, audio: 30 } };
const smallRefs = { maxRefs: { image: 9, video: 3, audio: 3 }, maxRefSeconds: { video: 15, audio: 15 } };

const videoB = (id: string, offers: VideoBOffer[]): VideoModelInfo => {
  const resolutions = [...new Set(offers.map((o) => o.resolution))];
  return {
    id, type: 'video', family: 'video-b', ratios: VIDEO_RATIOS_B, resolutions,
    // 720p is the video-b default; every video-b model offers it.
    defaultResolution: '720p',
    durations: Object.fromEntries(offers.map((o) => [o.resolution, o.duration])),
    defaultDuration: DEFAULT_VIDEO_DURATION,
    offers,
  };
};

const image = (id: string, ratios: readonly string[], withResolution: boolean, answersAtOnce: boolean): ImageModelInfo => ({
  id, type: 'image', ratios,
  resolutions: withResolution ? IMAGE_RESOLUTIONS : [],
  defaultResolution: withResolution ? '1k' : null,
  maxImages: MAX_IMAGE_TASK_IMAGES,
  answersAtOnce,
});

const list: ModelInfo[] = [
  {
    id: 'video-a-h3', type: 'video', family: 'video-a', ratios: ['16:9', '9:16'],
    resolutions: ['480p', '768p', '1080p'], defaultResolution: '768p',
    durations: { '480p': { min: 1, max: 15 }, '768p': { min: 1, max: 15 }, '1080p': { min: 1, max: 10 } },
    defaultDuration: DEFAULT_VIDEO_DURATION,
  },
  videoB('video-b-2.5', [
    { resolution: '720p', tier: 'official', duration: { min: 4, max: 30 }, ...bigRefs },
    { resolution: '480p', tier: 'third-party', duration: { min: 4, max: 30 }, ...bigRefs },
    { resolution: '480p', tier: 'official', duration: { min: 4, max: 30 }, ...bigRefs },
  ]),
  videoB('video-b-2.0', [{ resolution: '720p', tier: 'third-party', duration: { min: 4, max: 15 }, ...smallRefs }]),
  videoB('video-b-2.0-mini', [{ resolution: '720p', tier: 'official', duration: { min: 4, max: 15 }, ...smallRefs }]),
  {
    id: 'video-c-3.1', type: 'video', family: 'video-c', ratios: ['16:9', '9:16'],
    resolutions: [], defaultResolution: null, durations: null, defaultDuration: null,
    variants: [
      { id: 'video-c-3.1-fast', label: 'Fast', maxImages: 2 },
      { id: 'video-c-3.1-components', label: 'Components', maxImages: 3 },
      { id: 'video-c-3.1-pro', label: 'Pro', maxImages: 2 },
    ],
    defaultVariant: 'video-c-3.1-fast',
  },
  image('image-a-5.0', IMAGE_RATIOS_8, true, false),
  image('image-b-2.5', IMAGE_RATIOS_7, true, false),
  image('image-c-2.1', IMAGE_RATIOS_7, false, true),
  image('image-b-2', IMAGE_RATIOS_7, false, false),
  image('image-d-3-pro-image-preview', IMAGE_RATIOS_8, false, false),
  image('image-d-3.1-flash-image-preview', IMAGE_RATIOS_8, false, true),
  image('image-d-2.5-flash-image', IMAGE_RATIOS_7, false, true),
];

/** Every model offered, keyed by canonical id. */
export const MODELS: Readonly<Record<string, ModelInfo>> = Object.freeze(Object.fromEntries(list.map((m) => [m.id, m])));

/** A legacy alias still accepted for video-b-2.0. */
export const LEGACY_MODEL_ALIASES: Readonly<Record<string, string>> = { 'video-b-2': 'video-b-2.0' };

/** The withdrawn fast variant of video-b. Both spellings clients used are listed. */
export const WITHDRAWN_MODELS: readonly string[] = ['video-b-2.0-fast', 'video-b-2.5-fast'];

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Canonical id for an offered id or alias; undefined for unknown and withdrawn ids. */
export function resolveModelId(id: string): string | undefined {
  if (own(LEGACY_MODEL_ALIASES, id)) return LEGACY_MODEL_ALIASES[id];
  return own(MODELS, id) ? id : undefined;
}

export const isWithdrawnModel = (id: string): boolean => WITHDRAWN_MODELS.includes(id);

/** The model for a canonical id or alias. */
export function getModel(id: string): ModelInfo | undefined {
  const canonical = resolveModelId(id);
  return canonical === undefined ? undefined : MODELS[canonical];
}

export const VIDEO_MODEL_IDS = list.filter((m) => m.type === 'video').map((m) => m.id);
export const IMAGE_MODEL_IDS = list.filter((m) => m.type === 'image').map((m) => m.id);
