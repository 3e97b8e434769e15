// Submit rules of the video-b models (resolution/tier rows, durations, references) and video-c-3.1, one row per rule, plus the
// team's decisions 1, 3, 4 and 5 (docs/models-and-pricing.md).
import { parseVideoSubmit } from '../src';
import { AUD, FRAME, IMG, Row, VID, checkRow, dataUri, err, ok, times } from './helpers';

const b = (model: string, extra: Record<string, unknown> = {}) => ({ model, prompt: 'a city at night', ...extra });
const c = (extra: Record<string, unknown> = {}) => ({ model: 'video-c-3.1', prompt: 'a lighthouse', ...extra });
const NOT_B = { refMode: null, effort: null, seed: null, optimizePrompt: null, variant: null, firstFrame: null, lastFrame: null };

const videoB: Row[] = [
  // rows and decision 4 (tier default)
  { rule: 'video-b-2.5 defaults: 720p official, 5 s, 16:9', body: b('video-b-2.5'), expect: ok({ resolution: '720p', tier: 'official', duration: 5, ratio: '16:9', ...NOT_B }) },
  { rule: 'video-b-2.5 480p defaults to third-party', body: b('video-b-2.5', { resolution: '480p' }), expect: ok({ resolution: '480p', tier: 'third-party' }) },
  { rule: 'video-b-2.5 480p official', body: b('video-b-2.5', { resolution: '480p', tier: 'official' }), expect: ok({ tier: 'official' }) },
  { rule: 'video-b-2.5 720p third-party is not offered', body: b('video-b-2.5', { resolution: '720p', tier: 'third-party' }), expect: err('unsupported_parameter', 'tier', /480p/) },
  { rule: 'video-b-2.5 third-party without resolution (720p default) is not offered', body: b('video-b-2.5', { tier: 'third-party' }), expect: err('unsupported_parameter', 'tier') },
  { rule: 'video-b-2.5 1080p is not offered', body: b('video-b-2.5', { resolution: '1080p' }), expect: err('validation_error', 'resolution') },
  { rule: 'video-b-2.5 768p is a video-a resolution', body: b('video-b-2.5', { resolution: '768p' }), expect: err('validation_error', 'resolution') },
  { rule: 'video-b-2.0 defaults: 720p third-party', body: b('video-b-2.0'), expect: ok({ resolution: '720p', tier: 'third-party' }) },
  { rule: 'video-b-2.0 has no official tier', body: b('video-b-2.0', { tier: 'official' }), expect: err('unsupported_parameter', 'tier', /no official tier/) },
  { rule: 'video-b-2.0 has no 480p', body: b('video-b-2.0', { resolution: '480p' }), expect: err('validation_error', 'resolution') },
  { rule: 'video-b-2.0 1080p is not offered', body: b('video-b-2.0', { resolution: '1080p' }), expect: err('validation_error', 'resolution') },
  { rule: 'video-b-2.0-mini defaults: 720p official', body: b('video-b-2.0-mini'), expect: ok({ resolution: '720p', tier: 'official' }) },
  { rule: 'video-b-2.0-mini has no third-party tier', body: b('video-b-2.0-mini', { tier: 'third-party' }), expect: err('unsupported_parameter', 'tier') },
  { rule: 'tier outside official/third-party', body: b('video-b-2.5', { tier: 'premium' }), expect: err('validation_error', 'tier') },
  // ratios
  { rule: 'video-b ratio 1:1', body: b('video-b-2.0', { ratio: '1:1' }), expect: ok({ ratio: '1:1' }) },
  { rule: 'video-b ratio 4:3 is not a video ratio', body: b('video-b-2.0', { ratio: '4:3' }), expect: err('validation_error', 'ratio') },
  // durations
  { rule: 'video-b-2.5 4 s (minimum)', body: b('video-b-2.5', { duration: 4 }), expect: ok({ duration: 4 }) },
  { rule: 'video-b-2.5 30 s (maximum)', body: b('video-b-2.5', { duration: 30 }), expect: ok({ duration: 30 }) },
  { rule: 'video-b-2.5 3 s is too short', body: b('video-b-2.5', { duration: 3 }), expect: err('validation_error', 'duration', /between 4 and 30/) },
  { rule: 'video-b-2.5 31 s is too long', body: b('video-b-2.5', { duration: 31 }), expect: err('validation_error', 'duration') },
  { rule: 'video-b-2.0 15 s (maximum)', body: b('video-b-2.0', { duration: 15 }), expect: ok({ duration: 15 }) },
  { rule: 'video-b-2.0 16 s is too long', body: b('video-b-2.0', { duration: 16 }), expect: err('validation_error', 'duration', /between 4 and 15/) },
  { rule: 'video-b-2.0-mini 16 s is too long', body: b('video-b-2.0-mini', { duration: 16 }), expect: err('validation_error', 'duration') },
  // ref_mode is ignored for video-b (decision 1)
  { rule: 'ref_mode sent to video-b is ignored', body: b('video-b-2.5', { ref_mode: 'okay' }), expect: ok({ refMode: null }) },
  // parameters video-b does not take
  { rule: 'seed sent to video-b returns 400', body: b('video-b-2.5', { seed: 0 }), expect: err('unsupported_parameter', 'seed') },
  { rule: 'effort sent to video-b returns 400', body: b('video-b-2.0', { effort: '1x' }), expect: err('unsupported_parameter', 'effort') },
  { rule: 'optimize_prompt sent to video-b returns 400 (even false)', body: b('video-b-2.0', { optimize_prompt: false }), expect: err('unsupported_parameter', 'optimize_prompt') },
  { rule: 'first_frame sent to video-b returns 400', body: b('video-b-2.5', { first_frame: FRAME }), expect: err('unsupported_parameter', 'first_frame') },
  { rule: 'last_frame sent to video-b returns 400', body: b('video-b-2.5', { last_frame: FRAME }), expect: err('unsupported_parameter', 'last_frame') },
  { rule: 'variant sent to video-b returns 400', body: b('video-b-2.5', { variant: 'video-c-3.1-fast' }), expect: err('unsupported_parameter', 'variant') },
  { rule: 'null means not sent', body: b('video-b-2.5', { seed: null, effort: null, tier: null }), expect: ok({ seed: null, tier: 'official' }) },
  // reference counts
  { rule: 'video-b-2.5: 30 images, 10 videos, 10 audio', body: b('video-b-2.5', { media: [...times(30, IMG), ...times(10, VID), ...times(10, AUD)] }), expect: ok({ tier: 'official' }) },
  { rule: 'video-b-2.5: a 31st image is too many', body: b('video-b-2.5', { media: times(31, IMG) }), expect: err('validation_error', 'media[30]') },
  { rule: 'video-b-2.5: an 11th video is too many', body: b('video-b-2.5', { resolution: '480p', media: times(11, VID) }), expect: err('validation_error', 'media[10]') },
  { rule: 'video-b-2.5: an 11th audio clip is too many', body: b('video-b-2.5', { media: [IMG, ...times(11, AUD)] }), expect: err('validation_error', 'media[11]') },
  { rule: 'video-b-2.0: 9 images, 3 videos, 3 audio', body: b('video-b-2.0', { media: [...times(9, IMG), ...times(3, VID), ...times(3, AUD)] }), expect: ok({ tier: 'third-party' }) },
  { rule: 'video-b-2.0: a 10th image is too many', body: b('video-b-2.0', { media: times(10, IMG) }), expect: err('validation_error', 'media[9]') },
  { rule: 'video-b-2.0-mini: a 4th video is too many', body: b('video-b-2.0-mini', { media: times(4, VID) }), expect: err('validation_error', 'media[3]') },
  { rule: 'video-b-2.0-mini: a 4th audio clip is too many', body: b('video-b-2.0-mini', { media: times(4, AUD) }), expect: err('validation_error', 'media[3]') },
  { rule: 'reference videos by URL only (4.7)', body: b('video-b-2.5', { media: [{ type: 'video', url: dataUri('video/mp4', 30) }] }), expect: err('invalid_media', 'media[0].url', /URL only/) },
  // decision 5: model ids
  { rule: 'legacy alias video-b-2 maps to video-b-2.0', body: b('video-b-2'), expect: ok({ model: 'video-b-2.0', requestedModel: 'video-b-2', tier: 'third-party' }) },
  { rule: 'withdrawn video-b-2.0-fast', body: b('video-b-2.0-fast'), expect: err('model_withdrawn', 'model', /withdrawn/) },
  { rule: 'withdrawn video-b-2.5-fast', body: b('video-b-2.5-fast'), expect: err('model_withdrawn', 'model', /withdrawn/) },
];

const videoC: Row[] = [
  // decision 3
  { rule: 'video-c-3.1 defaults: fast variant, no duration, no resolution', body: c(), expect: ok({ model: 'video-c-3.1', variant: 'video-c-3.1-fast', duration: null, resolution: null, ratio: '16:9', tier: null, refMode: null, effort: null, seed: null, optimizePrompt: null }) },
  { rule: 'variant components', body: c({ variant: 'video-c-3.1-components' }), expect: ok({ variant: 'video-c-3.1-components' }) },
  { rule: 'variant pro', body: c({ variant: 'video-c-3.1-pro' }), expect: ok({ variant: 'video-c-3.1-pro' }) },
  { rule: 'variant outside the three', body: c({ variant: 'video-c-3.1-ultra' }), expect: err('validation_error', 'variant') },
  { rule: 'ratio 9:16', body: c({ ratio: '9:16' }), expect: ok({ ratio: '9:16' }) },
  { rule: 'ratio 1:1 is not offered', body: c({ ratio: '1:1' }), expect: err('validation_error', 'ratio') },
  { rule: 'duration is not a parameter (the model decides)', body: c({ duration: 8 }), expect: err('unsupported_parameter', 'duration', /decides the length/) },
  { rule: 'resolution is not a parameter', body: c({ resolution: '720p' }), expect: err('unsupported_parameter', 'resolution') },
  { rule: 'seed returns 400', body: c({ seed: 1 }), expect: err('unsupported_parameter', 'seed') },
  { rule: 'effort returns 400', body: c({ effort: '2x' }), expect: err('unsupported_parameter', 'effort') },
  { rule: 'optimize_prompt returns 400', body: c({ optimize_prompt: true }), expect: err('unsupported_parameter', 'optimize_prompt') },
  { rule: 'tier returns 400', body: c({ tier: 'official' }), expect: err('unsupported_parameter', 'tier') },
  { rule: 'ref_mode returns 400 (decision 1)', body: c({ ref_mode: 'omni' }), expect: err('unsupported_parameter', 'ref_mode') },
  { rule: 'first_frame returns 400', body: c({ first_frame: FRAME }), expect: err('unsupported_parameter', 'first_frame') },
  { rule: 'all unsupported parameters are named together', body: c({ duration: 5, seed: 1 }), expect: { code: 'unsupported_parameter', path: 'duration', paths: ['duration', 'seed'] } },
  { rule: 'prompt is required', body: { model: 'video-c-3.1' }, expect: err('validation_error', 'prompt') },
  // variant table: max reference images
  { rule: 'fast: 2 images', body: c({ media: times(2, IMG) }), expect: ok({ variant: 'video-c-3.1-fast' }) },
  { rule: 'fast: a 3rd image is too many', body: c({ media: times(3, IMG) }), expect: err('validation_error', 'media[2]') },
  { rule: 'components: 3 images', body: c({ variant: 'video-c-3.1-components', media: times(3, IMG) }), expect: ok({ variant: 'video-c-3.1-components' }) },
  { rule: 'components: a 4th image is too many', body: c({ variant: 'video-c-3.1-components', media: times(4, IMG) }), expect: err('validation_error', 'media[3]') },
  { rule: 'pro: a 3rd image is too many', body: c({ variant: 'video-c-3.1-pro', media: times(3, IMG) }), expect: err('validation_error', 'media[2]') },
  { rule: 'images only: no videos', body: c({ media: [VID] }), expect: err('validation_error', 'media[0]') },
  { rule: 'images only: no audio', body: c({ media: [IMG, AUD] }), expect: err('validation_error', 'media[1]') },
];

describe('video-b submit rules', () => {
  test.each(videoB)('$rule', (row) => checkRow(parseVideoSubmit, row));
});

describe('video-c-3.1 submit rules', () => {
  test.each(videoC)('$rule', (row) => checkRow(parseVideoSubmit, row));
});
