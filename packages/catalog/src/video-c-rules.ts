// Rules of video-c-3.1. Its duration is "not shown" and resolution is "not part of
// the parameter list": the model decides both, so we refuse them instead of silently ignoring a
// value the client expects to matter. It is priced per video.
import type { VideoSubmitBody } from './request-schemas';
import type { ValidateOptions, VideoTaskSpec } from './types';
import { DEFAULT_VIDEO_RATIO, VideoModelInfo } from './models';
import { checkChoice, checkMediaCounts, checkPrompt, parseMediaItems, rejectUnsupported } from './param-checks';

const VIDEO_A_ONLY = 'is a video-a-h3 parameter';

export function videoCSpec(body: VideoSubmitBody, model: VideoModelInfo, opts: ValidateOptions): Omit<VideoTaskSpec, 'requestedModel'> {
  rejectUnsupported(body, {
    duration: `${model.id} decides the length of the video itself; duration is not a parameter (priced per video)`,
    resolution: `resolution is not a parameter of ${model.id}`,
    seed: `seed ${VIDEO_A_ONLY}`,
    effort: `effort ${VIDEO_A_ONLY}`,
    optimize_prompt: `optimize_prompt ${VIDEO_A_ONLY}`,
    ref_mode: `ref_mode ${VIDEO_A_ONLY}`,
    first_frame: `first_frame ${VIDEO_A_ONLY} (ref_mode first-last and okay)`,
    last_frame: `last_frame ${VIDEO_A_ONLY} (ref_mode first-last and okay)`,
    tier: 'tier is a video-b parameter',
  });
  const variantId = body.variant ?? model.defaultVariant!;
  const variant = model.variants!.find((v) => v.id === variantId)!;
  const ratio = checkChoice(body.ratio ?? DEFAULT_VIDEO_RATIO, model.ratios, 'ratio', `${model.id} offers`);
  const prompt = checkPrompt(body.prompt, true);
  const media = parseMediaItems(body.media, opts);
  checkMediaCounts(media, { image: variant.maxImages, video: 0, audio: 0 }, `${variant.id}`);

  return {
    type: 'video', model: model.id, prompt, duration: null, ratio, resolution: null,
    tier: null, variant: variant.id, refMode: null, effort: null, seed: null, optimizePrompt: null,
    media, firstFrame: null, lastFrame: null,
  };
}
