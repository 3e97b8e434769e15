// The four reference modes of video-a-h3 as data, so the rules in video-a-rules.ts
// stay one generic check per constraint and a reader can hold this table against the spec.

export const REF_MODES = ['omni', 'first-last', 'okay', 'lip-sync'] as const;
export type RefMode = (typeof REF_MODES)[number];
export const DEFAULT_REF_MODE: RefMode = 'omni';

export const EFFORTS = ['1x', '1.5x', '2x'] as const;
export type Effort = (typeof EFFORTS)[number];
export const DEFAULT_EFFORT: Effort = '1x';

/** Resolutions where effort tiers exist (spec: "at 1080p there are no tiers; sending one returns 400"). */
export const EFFORT_RESOLUTIONS: readonly string[] = ['480p', '768p'];

export interface RefModeRules {
  /** null: `media` is not accepted in this mode. */
  media: { image: number; video: number; audio: number } | null;
  /** Exact counts required (lip-sync: one image and one audio clip). */
  exactMedia?: { image: number; audio: number };
  frames: 'none' | 'first-required' | 'optional';
  resolutions: readonly string[];
  promptRequired: boolean;
  /** Extra limits when at least one frame AND non-empty media are sent (okay mode). */
  framesWithMedia?: { resolutions: readonly string[]; duration: { min: number; max: number } };
  /** Resolutions where frames are refused even though the mode takes them (okay at 1080p). */
  noFramesAt?: readonly string[];
}

const ALL = ['480p', '768p', '1080p'] as const;
const NO_1080 = ['480p', '768p'] as const;
// No video-a mode takes reference videos (the modes take images and audio only).
const OMNI_MEDIA = { image: 9, video: 0, audio: 3 };

export const VIDEO_A_MODES: Readonly<Record<RefMode, RefModeRules>> = {
  omni: { media: OMNI_MEDIA, frames: 'none', resolutions: ALL, promptRequired: true },
  'first-last': { media: null, frames: 'first-required', resolutions: NO_1080, promptRequired: true },
  okay: {
    media: OMNI_MEDIA, frames: 'optional', resolutions: ALL, promptRequired: true,
    framesWithMedia: { resolutions: NO_1080, duration: { min: 5, max: 15 } },
    noFramesAt: ['1080p'],
  },
  'lip-sync': {
    media: { image: 1, video: 0, audio: 1 }, exactMedia: { image: 1, audio: 1 },
    frames: 'none', resolutions: ALL, promptRequired: false,
  },
};

/** Lip-sync: "Video is as long as the audio (up to 15 s)". */
export const LIP_SYNC_MAX_AUDIO_SECONDS = 15;
