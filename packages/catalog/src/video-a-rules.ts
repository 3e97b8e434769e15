// Rules of video-a-h3: reference modes, frames, effort, seed, durations per
// resolution. Checks run in the order a client fixes things: parameters the mode does not take,
// then values out of range, then the reference files themselves.
import type { VideoSubmitBody } from './request-schemas';
import type { MediaRef, ValidateOptions, VideoTaskSpec } from './types';
import { DEFAULT_VIDEO_RATIO, VideoModelInfo } from './models';
import { DEFAULT_EFFORT, DEFAULT_REF_MODE, EFFORT_RESOLUTIONS, RefModeRules, VIDEO_A_MODES } from './video-a-modes';
import { parseMediaRef } from './media-items';
import {
  checkChoice, checkMediaCounts, checkPrompt, checkRange, fail, isSent, parseMediaItems, rejectUnsupported,
} from './param-checks';

const FRAME_FIELDS = ['first_frame', 'last_frame'] as const;

function unsupportedFor(mode: RefModeRules, modeName: string, resolution: string): Record<string, string> {
  const reasons: Record<string, string> = {
    tier: 'tier is a video-b parameter; video-a-h3 has no tiers',
    variant: 'variant is a video-c-3.1 parameter',
  };
  if (!EFFORT_RESOLUTIONS.includes(resolution)) {
    reasons.effort = `at ${resolution} there are no effort tiers; leave effort out (effort works at ${EFFORT_RESOLUTIONS.join(' and ')})`;
  }
  for (const f of FRAME_FIELDS) {
    if (mode.frames === 'none') reasons[f] = `${f} is accepted only in ref_mode first-last and okay, not in ${modeName}`;
    else if (mode.noFramesAt?.includes(resolution)) reasons[f] = `at ${resolution} frames are not allowed in ref_mode ${modeName}; use 480p or 768p`;
  }
  if (mode.media === null) reasons.media = `ref_mode ${modeName} does not accept media; send first_frame and last_frame instead`;
  return reasons;
}

export function videoASpec(body: VideoSubmitBody, model: VideoModelInfo, opts: ValidateOptions): Omit<VideoTaskSpec, 'requestedModel'> {
  const refMode = body.ref_mode ?? DEFAULT_REF_MODE;
  const mode = VIDEO_A_MODES[refMode];
  const resolution = checkChoice(body.resolution ?? model.defaultResolution!, model.resolutions, 'resolution', `${model.id} offers`);
  rejectUnsupported(body, unsupportedFor(mode, refMode, resolution));
  if (!mode.resolutions.includes(resolution)) {
    fail('resolution', `ref_mode ${refMode} is offered at ${mode.resolutions.join(' and ')} only`);
  }
  if (mode.frames === 'first-required' && !isSent(body.first_frame)) {
    fail('first_frame', `required in ref_mode ${refMode}`);
  }
  const ratio = checkChoice(body.ratio ?? DEFAULT_VIDEO_RATIO, model.ratios, 'ratio', `${model.id} offers`);
  const prompt = checkPrompt(body.prompt, mode.promptRequired);

  // Lip-sync output is as long as the audio unless a duration shortens it (null = audio length).
  const range = model.durations![resolution];
  const duration = body.duration ?? (refMode === 'lip-sync' ? null : model.defaultDuration);
  if (duration !== null) checkRange(duration, range.min, range.max, 'duration', `at ${resolution}`);

  const media = parseMediaItems(body.media, opts);
  const frame = (f: (typeof FRAME_FIELDS)[number]): MediaRef | null =>
    isSent(body[f]) ? parseMediaRef(body[f]!, f, 'image', f, opts) : null;
  const firstFrame = frame('first_frame');
  const lastFrame = frame('last_frame');

  if (mode.media) checkMediaCounts(media, mode.media, `ref_mode ${refMode}`);
  if (mode.exactMedia) {
    const images = media.filter((m) => m.kind === 'image').length;
    const audio = media.filter((m) => m.kind === 'audio').length;
    if (images !== mode.exactMedia.image || audio !== mode.exactMedia.audio) {
      fail('media', `ref_mode ${refMode} needs exactly ${mode.exactMedia.image} image and ${mode.exactMedia.audio} audio clip in media`);
    }
  }
  const fwm = mode.framesWithMedia;
  if (fwm && (firstFrame || lastFrame) && media.length > 0) {
    if (!fwm.resolutions.includes(resolution)) fail('resolution', `with frames and media, ref_mode ${refMode} is offered at ${fwm.resolutions.join(' and ')} only`);
    if (duration !== null) checkRange(duration, fwm.duration.min, fwm.duration.max, 'duration', `in ref_mode ${refMode} with frames and media`);
  }

  return {
    type: 'video', model: model.id, prompt, duration, ratio, resolution,
    tier: null, variant: null, refMode,
    effort: body.effort ?? (EFFORT_RESOLUTIONS.includes(resolution) ? DEFAULT_EFFORT : null),
    seed: body.seed ?? null,
    optimizePrompt: body.optimize_prompt ?? false,
    media, firstFrame, lastFrame,
  };
}
