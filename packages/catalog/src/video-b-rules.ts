// Rules of the video-b models: resolution/tier combinations, durations and
// reference counts per combination. ref_mode is ignored for video-b, as the spec says.
import type { VideoSubmitBody } from './request-schemas';
import type { ValidateOptions, VideoTaskSpec } from './types';
import { DEFAULT_VIDEO_RATIO, VideoBOffer, VideoModelInfo } from './models';
import {
  checkChoice, checkMediaCounts, checkPrompt, checkRange, parseMediaItems, rejectUnsupported, unsupported,
} from './param-checks';

const VIDEO_A_ONLY = 'is a video-a-h3 parameter';

/** The availability row (resolution, tier) for the request; the tier defaults to third-party where the model offers it. */
export function pickOffer(model: VideoModelInfo, resolution: string, tier: VideoBOffer['tier'] | null | undefined): VideoBOffer {
  const offers = model.offers!;
  const atResolution = offers.filter((o) => o.resolution === resolution);
  const chosen = tier ?? (atResolution.some((o) => o.tier === 'third-party') ? 'third-party' : 'official');
  const offer = atResolution.find((o) => o.tier === chosen);
  if (offer) return offer;
  const elsewhere = offers.filter((o) => o.tier === chosen).map((o) => o.resolution);
  if (elsewhere.length === 0) {
    const tiers = [...new Set(offers.map((o) => o.tier))].join(', ');
    return unsupported('tier', `${model.id} has no ${chosen} tier; it offers ${tiers}`);
  }
  return unsupported('tier', `${model.id} offers tier ${chosen} at ${elsewhere.join(', ')} only; send resolution ${elsewhere[0]} or another tier`);
}

export function videoBSpec(body: VideoSubmitBody, model: VideoModelInfo, opts: ValidateOptions): Omit<VideoTaskSpec, 'requestedModel'> {
  rejectUnsupported(body, {
    seed: `seed ${VIDEO_A_ONLY}`,
    effort: `effort ${VIDEO_A_ONLY}`,
    optimize_prompt: `optimize_prompt ${VIDEO_A_ONLY}`,
    first_frame: `first_frame ${VIDEO_A_ONLY} (ref_mode first-last and okay)`,
    last_frame: `last_frame ${VIDEO_A_ONLY} (ref_mode first-last and okay)`,
    variant: 'variant is a video-c-3.1 parameter',
  });
  const resolution = checkChoice(body.resolution ?? model.defaultResolution!, model.resolutions, 'resolution', `${model.id} offers`);
  const offer = pickOffer(model, resolution, body.tier);
  const ratio = checkChoice(body.ratio ?? DEFAULT_VIDEO_RATIO, model.ratios, 'ratio', `${model.id} offers`);
  const prompt = checkPrompt(body.prompt, true);
  const duration = body.duration ?? model.defaultDuration!;
  checkRange(duration, offer.duration.min, offer.duration.max, 'duration', `for ${model.id}`);

  const media = parseMediaItems(body.media, opts);
  checkMediaCounts(media, offer.maxRefs, `${model.id} at ${resolution} ${offer.tier}`);

  return {
    type: 'video', model: model.id, prompt, duration, ratio, resolution,
    tier: offer.tier, variant: null, refMode: null, effort: null, seed: null, optimizePrompt: null,
    media, firstFrame: null, lastFrame: null,
  };
}
