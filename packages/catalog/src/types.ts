// Types shared by the catalog's validators, pricing and its consumers (gateway, media, worker).
import type { SoldCatalog } from './sold';

export type TaskType = 'video' | 'image';
export type MediaKind = 'image' | 'video' | 'audio';

/** One reference file of a request, after structural validation. */
export interface MediaRef {
  kind: MediaKind;
  /** Where the client put it, as the client wrote it: `media[2].url`, `images[0]`, `first_frame`. */
  path: string;
  /** `url`: a public https URL (http/loopback only when private media URLs are allowed). */
  source: 'url' | 'inline';
  /** The URL, or the whole data URI. */
  url: string;
  /** Declared mime type of a data URI (lower-case), e.g. `image/png`, `audio/mpeg`. */
  mime?: string;
  /** Decoded size of a data URI in bytes. */
  inlineBytes?: number;
  /** Role in the request; frames are images locked at the start/end of a video. */
  role: 'reference' | 'first_frame' | 'last_frame';
}

export interface VideoTaskSpec {
  type: 'video';
  /** Canonical model id (the legacy alias is already mapped). */
  model: string;
  /** The id the client sent, when it differs (legacy alias). */
  requestedModel?: string;
  prompt: string | null;
  /** Requested seconds; for lip-sync, null means "as long as the audio". */
  duration: number | null;
  ratio: string;
  resolution: string | null;
  tier: 'official' | 'third-party' | null;
  variant: string | null;
  refMode: 'omni' | 'first-last' | 'okay' | 'lip-sync' | null;
  effort: '1x' | '1.5x' | '2x' | null;
  seed: number | null;
  optimizePrompt: boolean | null;
  media: MediaRef[];
  firstFrame: MediaRef | null;
  lastFrame: MediaRef | null;
}

export interface ImageTaskSpec {
  type: 'image';
  model: string;
  prompt: string;
  ratio: string;
  resolution: string | null;
  images: MediaRef[];
}

export type TaskSpec = VideoTaskSpec | ImageTaskSpec;

/** Durations read from the reference files (packages/media), in seconds (may be fractional). */
export interface MeasuredMedia {
  /** Duration of each reference video, in request order. */
  videoSeconds: number[];
  /** Duration of each reference audio clip, in request order. */
  audioSeconds: number[];
}

export interface Cost {
  /** Exact cost in micro-USD before rounding. */
  costMicros: bigint;
  /** costMicros rounded UP to whole cents. */
  costCents: number;
  /** Seconds billed for per-second models; null for per-video / per-image prices. */
  billedSeconds: number | null;
  /** Output video length the task will ask the provider for (video only). */
  outputSeconds: number | null;
}

export interface ValidateOptions {
  /** ALLOW_PRIVATE_MEDIA_URLS: accept http:// and loopback URLs (development and tests only). */
  allowPrivateMediaUrls: boolean;
  /** ALLOW_LOCAL_WEBHOOKS: callback_url / webhook URLs on http:// and local addresses; unset: as allowPrivateMediaUrls. */
  allowLocalWebhooks?: boolean;
  /** What this deployment sells (SOLD_MODELS); unset: the whole catalog. */
  sold?: SoldCatalog;
  /**
   * Data URIs of this request already written to storage as they arrived (the gateway's streamed
   * large bodies): the body holds a stand-in string, this map what the data URI was.
   */
  staged?: ReadonlyMap<string, StagedDataUri>;
}

/** What the checks of a data URI need to know of one written to storage while it arrived. */
export interface StagedDataUri {
  /** The header's mime type, lower-case (the header matched `data:<mime>;base64,`). */
  declaredMime: string;
  /** The decoded size as the length of the base64 text gives it (base64DecodedBytes). */
  inlineBytes: number;
  /** The text after the header was valid base64 by the same rule as a data URI held in memory. */
  validBase64: boolean;
}
