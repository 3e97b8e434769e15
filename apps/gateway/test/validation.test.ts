// The validation rules (models, submit bodies, reference media forms, limits) as seen over HTTP: status, stable
// code, and `details` naming the field. The exhaustive rule table is in packages/catalog's
// tests; this table checks that each kind of rule reaches the client as the right response and
// that a rejected submit charges nothing.
import request from 'supertest';
import IORedis from 'ioredis';
import { decodeTaskEvent, pubsubChannel } from '@mediagen/queue';
import { failureMessage } from '@mediagen/settle';
import { startHarness, Harness } from './harness';
import { eventually } from '../../../test/e2e/support/wait';
import { metricValue as promValue } from '../../../test/e2e/support/prom-text';

const metricValue = async (h: Harness, name: string, labels: Record<string, string>): Promise<number> =>
  promValue(await h.deps.metrics.registry.metrics(), name, labels);

let h: Harness;
let auth: { Authorization: string };
let accountId: string;
beforeAll(async () => {
  h = await startHarness('validation', { INSTANT_WAIT_MS: '0' });
  const a = await h.newAccount({ balanceCents: 100_000 });
  auth = a.auth;
  accountId = a.id;
});
afterAll(async () => h.close());

const png1x1 = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const va = { model: 'video-a-h3', prompt: 'p' };
const vb = { model: 'video-b-2.5', prompt: 'p' };

type Row = [string, 'video' | 'image', Record<string, unknown>, number, string, string];
const rows: Row[] = [
  // [rule, endpoint, body, status, code, details[0].path] (every row has all six: jest reads a
  // missing last argument as a `done` callback)
  ['model required', 'video', { prompt: 'p' }, 400, 'validation_error', 'model'],
  ['unknown model', 'video', { model: 'video-z', prompt: 'p' }, 400, 'invalid_model', 'model'],
  ['withdrawn fast video-b variant', 'video', { model: 'video-b-2.0-fast', prompt: 'p' }, 400, 'model_withdrawn', 'model'],
  ['legacy alias of video-b-2.0 is accepted', 'video', { model: 'video-b-2', prompt: 'p' }, 200, '', ''],
  ['image model at the video endpoint', 'video', { model: 'image-b-2.5', prompt: 'p' }, 400, 'wrong_endpoint', 'model'],
  ['video model at the image endpoint', 'image', { model: 'video-a-h3', prompt: 'p' }, 400, 'wrong_endpoint', 'model'],
  ['prompt required', 'video', { model: 'video-b-2.5' }, 400, 'validation_error', 'prompt'],
  ['unknown field', 'video', { ...va, durration: 5 }, 400, 'unknown_field', 'durration'],
  ['duration must be an integer', 'video', { ...va, duration: 5.5 }, 400, 'validation_error', 'duration'],
  ['video-a 1080p max 10 s', 'video', { ...va, resolution: '1080p', duration: 11 }, 400, 'validation_error', 'duration'],
  ['video-a 768p 15 s ok', 'video', { ...va, duration: 15 }, 200, '', ''],
  ['video-b-2.5 30 s ok', 'video', { ...vb, duration: 30 }, 200, '', ''],
  ['video-b-2.5 3 s too short', 'video', { ...vb, duration: 3 }, 400, 'validation_error', 'duration'],
  ['ratio not offered', 'video', { ...va, ratio: '1:1' }, 400, 'validation_error', 'ratio'],
  ['seed to a non-video-a model', 'video', { ...vb, seed: 1 }, 400, 'unsupported_parameter', 'seed'],
  ['seed out of range', 'video', { ...va, seed: 2147483648 }, 400, 'validation_error', 'seed'],
  ['effort at 1080p', 'video', { ...va, resolution: '1080p', effort: '2x' }, 400, 'unsupported_parameter', 'effort'],
  ['tier the model lacks', 'video', { model: 'video-b-2.0', prompt: 'p', tier: 'official' }, 400, 'unsupported_parameter', 'tier'],
  ['third-party at 720p on video-b-2.5', 'video', { ...vb, resolution: '720p', tier: 'third-party' }, 400, 'unsupported_parameter', 'tier'],
  ['tier to video-a', 'video', { ...va, tier: 'official' }, 400, 'unsupported_parameter', 'tier'],
  ['variant to video-b', 'video', { ...vb, variant: 'video-c-3.1-pro' }, 400, 'unsupported_parameter', 'variant'],
  ['first_frame in omni mode', 'video', { ...va, first_frame: png1x1 }, 400, 'unsupported_parameter', 'first_frame'],
  ['first-last needs first_frame', 'video', { ...va, ref_mode: 'first-last' }, 400, 'validation_error', 'first_frame'],
  ['first-last with a frame ok', 'video', { ...va, ref_mode: 'first-last', first_frame: png1x1 }, 200, '', ''],
  ['first-last at 1080p', 'video', { ...va, ref_mode: 'first-last', first_frame: png1x1, resolution: '1080p' }, 400, 'validation_error', 'resolution'],
  ['video-c variant fast allows 2 images', 'video', { model: 'video-c-3.1', prompt: 'p', media: [1, 2, 3].map(() => ({ type: 'image', url: png1x1 })) }, 400, 'validation_error', 'media[2]'],
  ['media item needs url', 'video', { ...va, media: [{ type: 'image' }] }, 400, 'invalid_media', 'media[0].url'],
  ['video by data URI refused', 'video', { ...vb, media: [{ type: 'video', url: 'data:video/mp4;base64,AAAA' }] }, 400, 'invalid_media', 'media[0].url'],
  ['non-https URL refused', 'image', { model: 'image-b-2.5', prompt: 'p', images: ['ftp://example.com/a.png'] }, 400, 'invalid_media', 'images[0]'],
  ['7 reference images', 'image', { model: 'image-b-2.5', prompt: 'p', images: Array(7).fill(png1x1) }, 400, 'validation_error', 'images'],
  ['resolution on an image model without resolutions', 'image', { model: 'image-c-2.1', prompt: 'p', resolution: '2k' }, 400, 'unsupported_parameter', 'resolution'],
  ['image 21:9 where offered', 'image', { model: 'image-a-5.0', prompt: 'p', ratio: '21:9', resolution: '4k' }, 200, '', ''],
  ['image 21:9 where not offered', 'image', { model: 'image-b-2.5', prompt: 'p', ratio: '21:9' }, 400, 'validation_error', 'ratio'],
  ['inline png declared as jpeg (checked against the bytes)', 'image', { model: 'image-b-2.5', prompt: 'p', images: [png1x1.replace('image/png', 'image/jpeg')] }, 400, 'invalid_media', 'images[0]'],
  ['inline png ok', 'image', { model: 'image-b-2.5', prompt: 'p', images: [png1x1] }, 200, '', ''],
];

it.each(rows)('%s (%s endpoint)', async (_rule, endpoint, body, status, code, path) => {
  const before = await h.deps.db.ledgerEntry.count({ where: { accountId } });
  const res = await request(h.app).post(`/api/${endpoint}/generate`).set(auth).send(body);
  expect(res.status).toBe(status);
  if (status === 200) return;
  expect(res.body).toMatchObject({ error: expect.any(String), code });
  expect(res.body.details?.[0]?.path).toBe(path);
  expect(await h.deps.db.ledgerEntry.count({ where: { accountId } })).toBe(before);
});

it('13 inline files in one request -> 400', async () => {
  const res = await request(h.app)
    .post('/api/video/generate')
    .set(auth)
    .send({ model: 'video-b-2.5', prompt: 'p', media: Array.from({ length: 13 }, () => ({ type: 'image', url: png1x1 })) });
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body.details)).toMatch(/12/);
});

it('an inline file over 10 MB -> 400 naming it', async () => {
  const big = `data:image/png;base64,${Buffer.alloc(10 * 1024 * 1024 + 10).toString('base64')}`;
  const res = await request(h.app).post('/api/image/generate').set(auth).send({ model: 'image-b-2.5', prompt: 'p', images: [big] });
  expect(res.status).toBe(400);
  expect(res.body.details[0].path).toBe('images[0]');
});

it('inline files of created tasks are stored and handed on as our own URLs; the task row holds no base64', async () => {
  const res = await request(h.app).post('/api/image/generate').set(auth).send({ model: 'image-b-2.5', prompt: 'p', images: [png1x1] }).expect(200);
  const task = await h.deps.db.task.findUnique({ where: { id: res.body.taskId }, include: { inlineFiles: true } });
  expect(JSON.stringify(task!.params)).not.toContain('base64');
  expect(task!.inlineFiles).toHaveLength(1);
  const url = (task!.params as { images: { url: string }[] }).images[0].url;
  // A signed URL of our own copy (inputs are private); unsigned, the file is not served.
  expect(url.startsWith(`${h.deps.config.PUBLIC_BASE_URL}/files/${task!.inlineFiles[0].storageKey}?exp=`)).toBe(true);
  expect((await request(h.app).get(`/files/${task!.inlineFiles[0].storageKey}`)).status).toBe(404);
  const signed = new URL(url);
  const file = await request(h.app).get(signed.pathname + signed.search);
  expect(file.status).toBe(200);
  expect(file.headers['content-type']).toBe('image/png');
  expect(Buffer.compare(file.body, Buffer.from(png1x1.split(',')[1], 'base64'))).toBe(0);
});

it('when inline files cannot be stored after the commit, the task is failed and refunded at once', async () => {
  const a = await h.newAccount({ balanceCents: 100 });
  const failedBefore = await metricValue(h, 'mediagen_tasks_failed_total', { model: 'image-b-2.5', error_code: 'generation_failed' });
  // Listen as a gateway would for the task event (the same path as the worker's failures).
  const sub = new IORedis(h.deps.config.REDIS_URL);
  const events: string[] = [];
  sub.on('message', (_ch: string, m: string) => events.push(m));
  await sub.subscribe(pubsubChannel(h.deps.config.REDIS_PREFIX, 'taskEvents'));
  const put = h.deps.storage.put;
  h.deps.storage.put = async () => {
    throw new Error('disk full');
  };
  try {
    const res = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'store-fails').send({ model: 'image-b-2.5', prompt: 'p', images: [png1x1] });
    expect(res.status).toBe(500);
  } finally {
    h.deps.storage.put = put;
  }
  const [task] = await h.deps.db.task.findMany({ where: { accountId: a.id } });
  expect(task).toMatchObject({ status: 'failed', errorCode: 'generation_failed', retryable: true, errorMessage: failureMessage('generation_failed', { reason: 'inputs_not_stored' }) });
  expect(Number((await h.deps.db.account.findUniqueOrThrow({ where: { id: a.id } })).balanceCents)).toBe(100);
  expect(await metricValue(h, 'mediagen_tasks_failed_total', { model: 'image-b-2.5', error_code: 'generation_failed' })).toBe(failedBefore + 1);
  expect(await metricValue(h, 'mediagen_refunds_total', { model: 'image-b-2.5', error_code: 'generation_failed' })).toBeGreaterThanOrEqual(1);
  await eventually('the task event', async () => events.map(decodeTaskEvent).some((e) => e?.taskId === task.id && e.status === 'failed'));
  sub.disconnect();
  // The id keeps returning the failed, refunded task.
  const again = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'store-fails').send({ model: 'image-b-2.5', prompt: 'p', images: [png1x1] });
  expect(again.body).toMatchObject({ taskId: task.id, status: 'failed', idempotentReplay: true });
});
