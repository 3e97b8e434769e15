// The image endpoint's submit rules, one row per rule (decisions 2, 12).
import { parseImageSubmit } from '../src';
import { Row, checkRow, dataUri, err, ok, times } from './helpers';

const i = (model: string, extra: Record<string, unknown> = {}) => ({ model, prompt: 'a lighthouse', ...extra });
const URL1 = 'https://cdn.example.com/ref.jpg';

const rows: Row[] = [
  { rule: 'image-a-5.0 defaults: 1:1, 1k', body: i('image-a-5.0'), expect: ok({ type: 'image', model: 'image-a-5.0', ratio: '1:1', resolution: '1k', images: [], prompt: 'a lighthouse' }) },
  { rule: 'image-b-2.5 resolution 4k', body: i('image-b-2.5', { resolution: '4k' }), expect: ok({ resolution: '4k' }) },
  { rule: 'image-a-5.0 resolution 2k', body: i('image-a-5.0', { resolution: '2k' }), expect: ok({ resolution: '2k' }) },
  { rule: 'resolution outside 1k/2k/4k', body: i('image-a-5.0', { resolution: '8k' }), expect: err('validation_error', 'resolution') },
  { rule: 'models without resolutions store null', body: i('image-c-2.1'), expect: ok({ resolution: null, ratio: '1:1' }) },
  ...['image-c-2.1', 'image-b-2', 'image-d-3-pro-image-preview', 'image-d-3.1-flash-image-preview', 'image-d-2.5-flash-image'].map((m): Row => ({
    rule: `${m} has no resolution parameter`, body: i(m, { resolution: '1k' }), expect: err('unsupported_parameter', 'resolution'),
  })),
  ...['image-a-5.0', 'image-d-3-pro-image-preview', 'image-d-3.1-flash-image-preview'].map((m): Row => ({
    rule: `${m} offers 21:9`, body: i(m, { ratio: '21:9' }), expect: ok({ ratio: '21:9' }),
  })),
  ...['image-b-2.5', 'image-c-2.1', 'image-b-2', 'image-d-2.5-flash-image'].map((m): Row => ({
    rule: `${m} does not offer 21:9`, body: i(m, { ratio: '21:9' }), expect: err('validation_error', 'ratio'),
  })),
  { rule: 'ratio 3:2', body: i('image-b-2', { ratio: '3:2' }), expect: ok({ ratio: '3:2' }) },
  { rule: 'ratio 5:4 is not an image ratio', body: i('image-b-2', { ratio: '5:4' }), expect: err('validation_error', 'ratio') },
  { rule: 'prompt is required', body: { model: 'image-b-2' }, expect: err('validation_error', 'prompt', /required/) },
  { rule: 'prompt must not be blank', body: i('image-b-2', { prompt: '\n' }), expect: err('validation_error', 'prompt') },
  { rule: 'prompt longer than 10000 characters', body: i('image-b-2', { prompt: 'y'.repeat(10001) }), expect: err('validation_error', 'prompt') },
  // up to 6 reference images, URL or data URI
  { rule: '6 reference images', body: i('image-b-2.5', { images: times(6, URL1) }), expect: ok({ images: times(6, expect.objectContaining({ kind: 'image', source: 'url' })) }) },
  { rule: 'a 7th reference image is too many', body: i('image-b-2.5', { images: times(7, URL1) }), expect: err('validation_error', 'images') },
  { rule: 'images are paths images[n]', body: i('image-b-2.5', { images: [URL1, 'https://cdn.example.com/b.png'] }), expect: ok({ images: [{ path: 'images[0]' }, { path: 'images[1]' }] }) },
  { rule: 'image as data URI', body: i('image-b-2.5', { images: [dataUri('image/jpeg', 1000)] }), expect: ok({ images: [{ source: 'inline', mime: 'image/jpeg', inlineBytes: 1000, role: 'reference' }] }) },
  { rule: 'image must be https', body: i('image-b-2.5', { images: [URL1, 'http://cdn.example.com/a.png'] }), expect: err('invalid_media', 'images[1]') },
  { rule: 'image data URI must be an image type', body: i('image-b-2.5', { images: [dataUri('audio/mpeg', 10)] }), expect: err('invalid_media', 'images[0]') },
  { rule: 'images are strings, not media items', body: i('image-b-2.5', { images: [{ type: 'image', url: URL1 }] }), expect: err('validation_error', 'images[0]') },
  // model checks
  { rule: 'video model sent to the image endpoint', body: i('video-a-h3'), expect: err('wrong_endpoint', 'model', /video\/generate/) },
  { rule: 'legacy video alias sent to the image endpoint', body: i('video-b-2'), expect: err('wrong_endpoint', 'model') },
  { rule: 'withdrawn video model sent to the image endpoint', body: i('video-b-2.0-fast'), expect: err('model_withdrawn', 'model') },
  { rule: 'unknown image model', body: i('image-e-1'), expect: err('invalid_model', 'model') },
  { rule: 'video fields are unknown here', body: i('image-b-2', { duration: 5 }), expect: err('unknown_field', 'duration') },
  { rule: 'seed is unknown here', body: i('image-b-2', { seed: 1 }), expect: err('unknown_field', 'seed') },
];

describe('image submit rules', () => {
  test.each(rows)('$rule', (row) => checkRow(parseImageSubmit, row));
});
