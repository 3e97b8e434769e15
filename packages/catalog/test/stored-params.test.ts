// Stored task params: what the gateway writes (a parsed spec plus outputSeconds, through JSON) is
// what the worker's schema accepts; a damaged row is refused with the field named.
import { parseImageSubmit, parseStoredTaskParams, parseVideoSubmit } from '../src';
import { FRAME, IMG, OPTS } from './helpers';

const stored = (spec: object, outputSeconds: number | null) => JSON.parse(JSON.stringify({ ...spec, outputSeconds }));

it('accepts every spec the submit parsers produce, as stored', () => {
  const specs = [
    parseVideoSubmit({ model: 'video-a-h3', prompt: 'a kite', duration: 4 }, OPTS).spec,
    parseVideoSubmit({ model: 'video-a-h3', prompt: 'a kite', ref_mode: 'first-last', first_frame: FRAME, last_frame: FRAME }, OPTS).spec,
    parseVideoSubmit({ model: 'video-a-h3', prompt: 'a kite', media: [IMG] }, OPTS).spec,
    parseImageSubmit({ model: 'image-b-2.5', prompt: 'a kite', images: [IMG.url] }, OPTS).spec,
  ];
  for (const spec of specs) {
    const r = parseStoredTaskParams(stored(spec, spec.type === 'video' ? 4 : null));
    expect(r).toEqual({ ok: true, params: expect.objectContaining({ type: spec.type, model: spec.model }) });
  }
});

it('refuses params that are not a task spec, naming the field', () => {
  const video = stored(parseVideoSubmit({ model: 'video-a-h3', prompt: 'a kite', duration: 4 }, OPTS).spec, 4);
  expect(parseStoredTaskParams({ ...video, media: undefined })).toEqual({ ok: false, error: expect.stringContaining('media') });
  expect(parseStoredTaskParams({ ...video, type: 'audio' }).ok).toBe(false);
  expect(parseStoredTaskParams(null).ok).toBe(false);
  // Fields a newer gateway may add are kept, not stripped.
  const r = parseStoredTaskParams({ ...video, futureField: 1 });
  expect(r.ok && (r.params as unknown as Record<string, unknown>).futureField).toBe(1);
});
