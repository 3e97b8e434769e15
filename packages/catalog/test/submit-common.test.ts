// Rules shared by both endpoints: body shape, model ids and endpoints, unknown fields, JSON types,
// idempotency id, media item shape (decisions 1, 5, 10-13).
import { parseImageSubmit, parseVideoSubmit } from '../src';
import { IMG, Row, checkRow, err, ok, appErrorOf, OPTS } from './helpers';

const v = (extra: Record<string, unknown> = {}) => ({ model: 'video-a-h3', prompt: 'p', ...extra });

const videoRows: Row[] = [
  { rule: 'body must be a JSON object (array)', body: [], expect: err('validation_error', '') },
  { rule: 'body must be a JSON object (null)', body: null, expect: err('validation_error', '') },
  { rule: 'body must be a JSON object (string)', body: 'video-a-h3', expect: err('validation_error', '') },
  { rule: 'model is required', body: { prompt: 'p' }, expect: err('validation_error', 'model', /required/) },
  { rule: 'model must be a string', body: { model: 7, prompt: 'p' }, expect: err('validation_error', 'model') },
  { rule: 'unknown model', body: v({ model: 'video-z-9' }), expect: err('invalid_model', 'model') },
  { rule: 'model ids are case-sensitive', body: v({ model: 'VIDEO-A-H3' }), expect: err('invalid_model', 'model') },
  { rule: 'image model at the video endpoint', body: v({ model: 'image-b-2.5' }), expect: err('wrong_endpoint', 'model', /image\/generate/) },
  { rule: 'unknown field (typo) is named', body: v({ durration: 5 }), expect: err('unknown_field', 'durration') },
  { rule: 'unknown field wins over a type error it probably caused', body: { model: 'video-a-h3', promt: 'p', duration: '5' }, expect: err('unknown_field', 'promt') },
  { rule: 'several unknown fields are all named', body: v({ foo: 1, bar: 2 }), expect: { code: 'unknown_field', path: 'foo', paths: ['foo', 'bar'] } },
  { rule: 'every optional field accepts null as "not sent"', body: v({ duration: null, ratio: null, resolution: null, media: null, ref_mode: null, first_frame: null, last_frame: null, optimize_prompt: null, seed: null, effort: null, tier: null, variant: null, client_request_id: null }), expect: ok({ duration: 5, resolution: '768p' }) },
  // media item shape (decision 10)
  { rule: 'media must be an array', body: v({ media: IMG }), expect: err('validation_error', 'media') },
  { rule: 'media item must be an object', body: v({ media: ['https://cdn.example.com/a.png'] }), expect: err('invalid_media', 'media[0]') },
  { rule: 'media item type is required', body: v({ media: [IMG, { url: IMG.url }] }), expect: err('invalid_media', 'media[1].type', /required/) },
  { rule: 'media item url is required', body: v({ media: [{ type: 'image' }] }), expect: err('invalid_media', 'media[0].url', /required/) },
  { rule: 'media item type is image, video or audio', body: v({ media: [{ type: 'text', url: IMG.url }] }), expect: err('invalid_media', 'media[0].type') },
  { rule: 'media item has no other fields', body: v({ media: [{ ...IMG, name: 'x' }] }), expect: err('invalid_media', 'media[0].name') },
  { rule: 'media url form is checked per item', body: v({ media: [IMG, IMG, { type: 'image', url: 'ftp://x.example.com/a.png' }] }), expect: err('invalid_media', 'media[2].url') },
];

describe('common submit rules, video endpoint', () => {
  test.each(videoRows)('$rule', (row) => checkRow(parseVideoSubmit, row));
});

describe('client_request_id', () => {
  test('returned as sent', () => {
    expect(parseVideoSubmit(v({ client_request_id: 'job-1' }), OPTS).clientRequestId).toBe('job-1');
    expect(parseImageSubmit({ model: 'image-b-2', prompt: 'p', client_request_id: 'x'.repeat(255) }, OPTS).clientRequestId).toHaveLength(255);
  });
  test('null when not sent', () => expect(parseVideoSubmit(v(), OPTS).clientRequestId).toBeNull());
  test.each([
    ['empty', ''],
    ['256 characters', 'x'.repeat(256)],
    ['a number', 12],
  ])('%s is rejected', (_label, id) => {
    const e = appErrorOf(() => parseVideoSubmit(v({ client_request_id: id }), OPTS));
    expect([e.code, e.details![0].path]).toEqual(['validation_error', 'client_request_id']);
  });
});

describe('error body', () => {
  test('a validation error renders {error, code, details}', () => {
    const e = appErrorOf(() => parseVideoSubmit(v({ duration: 99 }), OPTS));
    expect(e.toBody()).toEqual({
      error: expect.stringMatching(/^duration: /),
      code: 'validation_error',
      details: [{ path: 'duration', message: expect.any(String) }],
    });
  });
});
