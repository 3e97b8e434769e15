// video-a-h3's submit rules (parameters, modes, limits), one row per rule. Read each row against the rule named
// in `rule`; the expectation is either the normalized spec (defaults applied) or the 400 a client
// gets, with its code and the field path as the client wrote it.
import { parseVideoSubmit } from '../src';
import { AUD, FRAME, IMG, Row, VID, checkRow, dataUri, err, ok, times } from './helpers';

const a = (extra: Record<string, unknown> = {}) => ({ model: 'video-a-h3', prompt: 'a fox in snow', ...extra });
const LIP = { ref_mode: 'lip-sync', media: [IMG, AUD] };

const rows: Row[] = [
  // defaults (decision 2)
  { rule: 'defaults: 768p, 5 s, 16:9, omni, effort 1x, optimize_prompt false', body: a(), expect: ok({
    model: 'video-a-h3', resolution: '768p', duration: 5, ratio: '16:9', refMode: 'omni', effort: '1x',
    optimizePrompt: false, seed: null, tier: null, variant: null, media: [], firstFrame: null, lastFrame: null, prompt: 'a fox in snow',
  }) },
  { rule: 'prompt is stored trimmed', body: a({ prompt: '  hello  ' }), expect: ok({ prompt: 'hello' }) },
  // ratios
  { rule: 'ratio 9:16 accepted', body: a({ ratio: '9:16' }), expect: ok({ ratio: '9:16' }) },
  { rule: 'ratio 1:1 is not offered by video-a-h3', body: a({ ratio: '1:1' }), expect: err('validation_error', 'ratio') },
  // resolutions
  { rule: 'resolution 480p accepted', body: a({ resolution: '480p' }), expect: ok({ resolution: '480p', effort: '1x' }) },
  { rule: 'resolution 1080p accepted; effort stored as null there', body: a({ resolution: '1080p' }), expect: ok({ resolution: '1080p', effort: null }) },
  { rule: 'resolution 720p is not a video-a resolution', body: a({ resolution: '720p' }), expect: err('validation_error', 'resolution') },
  { rule: 'resolution outside every enum', body: a({ resolution: '4k' }), expect: err('validation_error', 'resolution') },
  // resolution table: durations
  { rule: 'duration 1 s at 768p (minimum)', body: a({ duration: 1 }), expect: ok({ duration: 1 }) },
  { rule: 'duration 15 s at 480p (maximum)', body: a({ duration: 15, resolution: '480p' }), expect: ok({ duration: 15 }) },
  { rule: 'duration 0 s is out of range', body: a({ duration: 0 }), expect: err('validation_error', 'duration') },
  { rule: 'duration 16 s at 768p is out of range', body: a({ duration: 16 }), expect: err('validation_error', 'duration', /between 1 and 15/) },
  { rule: 'duration 10 s at 1080p (maximum)', body: a({ duration: 10, resolution: '1080p' }), expect: ok({ duration: 10 }) },
  { rule: 'duration 11 s at 1080p is out of range', body: a({ duration: 11, resolution: '1080p' }), expect: err('validation_error', 'duration', /between 1 and 10/) },
  { rule: 'duration must be a JSON integer, not a string (decision 13)', body: a({ duration: '5' }), expect: err('validation_error', 'duration') },
  { rule: 'duration must be whole seconds', body: a({ duration: 5.5 }), expect: err('validation_error', 'duration') },
  // seed
  { rule: 'seed 0 accepted', body: a({ seed: 0 }), expect: ok({ seed: 0 }) },
  { rule: 'seed 2147483647 accepted', body: a({ seed: 2147483647 }), expect: ok({ seed: 2147483647 }) },
  { rule: 'seed -1 out of range', body: a({ seed: -1 }), expect: err('validation_error', 'seed') },
  { rule: 'seed 2147483648 out of range', body: a({ seed: 2147483648 }), expect: err('validation_error', 'seed') },
  { rule: 'seed must be an integer', body: a({ seed: 1.5 }), expect: err('validation_error', 'seed') },
  // effort
  { rule: 'effort 1.5x at 768p', body: a({ effort: '1.5x' }), expect: ok({ effort: '1.5x' }) },
  { rule: 'effort 2x at 480p', body: a({ effort: '2x', resolution: '480p' }), expect: ok({ effort: '2x' }) },
  { rule: 'effort works in every ref_mode at 480p/768p (lip-sync)', body: a({ ...LIP, effort: '2x' }), expect: ok({ effort: '2x', refMode: 'lip-sync' }) },
  { rule: 'effort 1x at 1080p returns 400 (no tiers at 1080p)', body: a({ effort: '1x', resolution: '1080p' }), expect: err('unsupported_parameter', 'effort', /1080p/) },
  { rule: 'effort 2x at 1080p returns 400', body: a({ effort: '2x', resolution: '1080p' }), expect: err('unsupported_parameter', 'effort') },
  { rule: 'effort value outside 1x/1.5x/2x', body: a({ effort: '3x' }), expect: err('validation_error', 'effort') },
  // optimize_prompt
  { rule: 'optimize_prompt true', body: a({ optimize_prompt: true }), expect: ok({ optimizePrompt: true }) },
  { rule: 'optimize_prompt must be a boolean', body: a({ optimize_prompt: 'true' }), expect: err('validation_error', 'optimize_prompt') },
  // parameters of other families
  { rule: 'tier is video-b only', body: a({ tier: 'official' }), expect: err('unsupported_parameter', 'tier') },
  { rule: 'variant is video-c only', body: a({ variant: 'video-c-3.1-pro' }), expect: err('unsupported_parameter', 'variant') },
  // prompt (decision 11)
  { rule: 'prompt is required outside lip-sync', body: { model: 'video-a-h3' }, expect: err('validation_error', 'prompt', /required/) },
  { rule: 'prompt null counts as missing', body: a({ prompt: null }), expect: err('validation_error', 'prompt') },
  { rule: 'prompt must not be blank', body: a({ prompt: '   ' }), expect: err('validation_error', 'prompt', /blank/) },
  { rule: 'prompt must be a string', body: a({ prompt: 42 }), expect: err('validation_error', 'prompt') },
  { rule: 'prompt of 10000 characters accepted', body: a({ prompt: 'x'.repeat(10000) }), expect: ok({ refMode: 'omni' }) },
  { rule: 'prompt of 10001 characters rejected', body: a({ prompt: 'x'.repeat(10001) }), expect: err('validation_error', 'prompt', /10000/) },
  { rule: 'prompt length counts characters, not UTF-16 units', body: a({ prompt: '😀'.repeat(10000) }), expect: ok({ refMode: 'omni' }) },
  // omni
  { rule: 'omni: 9 images and 3 audio clips', body: a({ media: [...times(9, IMG), ...times(3, AUD)] }), expect: ok({ refMode: 'omni' }) },
  { rule: 'omni: a 10th image is too many', body: a({ media: times(10, IMG) }), expect: err('validation_error', 'media[9]') },
  { rule: 'omni: a 4th audio clip is too many', body: a({ media: [IMG, ...times(4, AUD)] }), expect: err('validation_error', 'media[4]') },
  { rule: 'omni: no reference videos', body: a({ media: [IMG, VID] }), expect: err('validation_error', 'media[1]', /no reference videos/) },
  { rule: 'omni: first_frame rejected', body: a({ first_frame: FRAME }), expect: err('unsupported_parameter', 'first_frame') },
  { rule: 'omni: last_frame rejected', body: a({ ref_mode: 'omni', last_frame: FRAME }), expect: err('unsupported_parameter', 'last_frame') },
  { rule: 'ref_mode outside the four modes', body: a({ ref_mode: 'fancy' }), expect: err('validation_error', 'ref_mode') },
  // first-last
  { rule: 'first-last: first_frame alone', body: a({ ref_mode: 'first-last', first_frame: FRAME }), expect: ok({ refMode: 'first-last', firstFrame: { kind: 'image', role: 'first_frame', path: 'first_frame', source: 'url', url: FRAME }, lastFrame: null }) },
  { rule: 'first-last: both frames', body: a({ ref_mode: 'first-last', first_frame: FRAME, last_frame: FRAME }), expect: ok({ lastFrame: { role: 'last_frame', path: 'last_frame' } }) },
  { rule: 'first-last: first_frame is required', body: a({ ref_mode: 'first-last', last_frame: FRAME }), expect: err('validation_error', 'first_frame', /required/) },
  { rule: 'first-last: media is not accepted', body: a({ ref_mode: 'first-last', first_frame: FRAME, media: [IMG] }), expect: err('unsupported_parameter', 'media') },
  { rule: 'first-last: an empty media list is the same as none', body: a({ ref_mode: 'first-last', first_frame: FRAME, media: [] }), expect: ok({ media: [] }) },
  { rule: 'first-last: 480p or 768p only', body: a({ ref_mode: 'first-last', first_frame: FRAME, resolution: '1080p' }), expect: err('validation_error', 'resolution') },
  { rule: 'frame as base64 image data URI', body: a({ ref_mode: 'first-last', first_frame: dataUri('image/webp', 300) }), expect: ok({ firstFrame: { source: 'inline', mime: 'image/webp', inlineBytes: 300 } }) },
  { rule: 'frame must be an image data URI, not audio', body: a({ ref_mode: 'first-last', first_frame: dataUri('audio/mpeg', 30) }), expect: err('invalid_media', 'first_frame') },
  { rule: 'frame must be https', body: a({ ref_mode: 'first-last', first_frame: 'http://cdn.example.com/f.png' }), expect: err('invalid_media', 'first_frame') },
  { rule: 'frame must be a string', body: a({ ref_mode: 'first-last', first_frame: { url: FRAME } }), expect: err('validation_error', 'first_frame') },
  // okay
  { rule: 'okay: frames and media all optional', body: a({ ref_mode: 'okay' }), expect: ok({ refMode: 'okay' }) },
  { rule: 'okay: last_frame alone', body: a({ ref_mode: 'okay', last_frame: FRAME }), expect: ok({ lastFrame: { role: 'last_frame' } }) },
  { rule: 'okay: media at 1080p without frames', body: a({ ref_mode: 'okay', resolution: '1080p', media: [IMG, AUD] }), expect: ok({ resolution: '1080p' }) },
  { rule: 'okay: frames are not allowed at 1080p', body: a({ ref_mode: 'okay', resolution: '1080p', first_frame: FRAME }), expect: err('unsupported_parameter', 'first_frame', /1080p/) },
  { rule: 'okay: frames + media, default 5 s', body: a({ ref_mode: 'okay', first_frame: FRAME, media: [IMG] }), expect: ok({ duration: 5 }) },
  { rule: 'okay: frames + media, 15 s', body: a({ ref_mode: 'okay', last_frame: FRAME, media: [AUD], duration: 15 }), expect: ok({ duration: 15 }) },
  { rule: 'okay: frames + media need at least 5 s', body: a({ ref_mode: 'okay', first_frame: FRAME, media: [IMG], duration: 4 }), expect: err('validation_error', 'duration', /5 and 15/) },
  { rule: 'okay: frames without media may be shorter than 5 s', body: a({ ref_mode: 'okay', first_frame: FRAME, duration: 3 }), expect: ok({ duration: 3 }) },
  { rule: 'okay: media limits as omni (10 images)', body: a({ ref_mode: 'okay', media: times(10, IMG) }), expect: err('validation_error', 'media[9]') },
  { rule: 'okay: no reference videos', body: a({ ref_mode: 'okay', media: [VID] }), expect: err('validation_error', 'media[0]') },
  // lip-sync
  { rule: 'lip-sync: 1 image + 1 audio, prompt optional, duration = audio length', body: { model: 'video-a-h3', ...LIP }, expect: ok({ refMode: 'lip-sync', prompt: null, duration: null }) },
  { rule: 'lip-sync: prompt null is fine', body: { model: 'video-a-h3', prompt: null, ...LIP }, expect: ok({ prompt: null }) },
  { rule: 'lip-sync: a blank prompt is treated as none', body: { model: 'video-a-h3', prompt: ' ', ...LIP }, expect: ok({ prompt: null }) },
  { rule: 'lip-sync: prompt kept when sent', body: a(LIP), expect: ok({ prompt: 'a fox in snow' }) },
  { rule: 'lip-sync: duration may shorten', body: a({ ...LIP, duration: 3 }), expect: ok({ duration: 3 }) },
  { rule: 'lip-sync: duration still within the resolution range', body: a({ ...LIP, duration: 11, resolution: '1080p' }), expect: err('validation_error', 'duration') },
  { rule: 'lip-sync: exactly 1 image (2 sent)', body: a({ ref_mode: 'lip-sync', media: [IMG, IMG, AUD] }), expect: err('validation_error', 'media[1]') },
  { rule: 'lip-sync: exactly 1 audio (none sent)', body: a({ ref_mode: 'lip-sync', media: [IMG] }), expect: err('validation_error', 'media', /exactly 1 image and 1 audio/) },
  { rule: 'lip-sync: media is required', body: a({ ref_mode: 'lip-sync' }), expect: err('validation_error', 'media') },
  { rule: 'lip-sync: no reference videos', body: a({ ref_mode: 'lip-sync', media: [IMG, AUD, VID] }), expect: err('validation_error', 'media[2]') },
  { rule: 'lip-sync: no frames', body: a({ ...LIP, first_frame: FRAME }), expect: err('unsupported_parameter', 'first_frame') },
  { rule: 'lip-sync at 1080p', body: a({ ...LIP, resolution: '1080p' }), expect: ok({ resolution: '1080p', effort: null }) },
];

describe('video-a-h3 submit rules', () => {
  test.each(rows)('$rule', (row) => checkRow(parseVideoSubmit, row));
});
