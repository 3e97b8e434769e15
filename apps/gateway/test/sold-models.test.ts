// A deployment selling a subset of the catalog (SOLD_MODELS): a model not sold answers 400
// model_not_offered before anything is charged, GET /api/models and the OpenAPI enum list only what
// is sold, and the front page's examples name a sold model.
import request from 'supertest';
import { Harness, startHarness } from './harness';

let h: Harness;
let acct: Awaited<ReturnType<Harness['newAccount']>>;
beforeAll(async () => {
  h = await startHarness('sold_models', { SOLD_MODELS: 'image-d-2.5-flash-image,image-c-2.1,video-b-2.5:official' });
  acct = await h.newAccount({ balanceCents: 5_000 });
});
afterAll(() => h.close());

it('a model not sold answers 400 model_not_offered, names what is offered, and charges nothing', async () => {
  const res = await request(h.app).post('/api/image/generate').set(acct.auth).send({ model: 'image-b-2.5', prompt: 'a lighthouse at dusk' });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    error: 'model: image-b-2.5 is not offered here; this service offers image-c-2.1, image-d-2.5-flash-image',
    code: 'model_not_offered',
    details: [{ path: 'model', message: 'image-b-2.5 is not offered here; this service offers image-c-2.1, image-d-2.5-flash-image' }],
  });
  const tier = await request(h.app).post('/api/video/generate').set(acct.auth).send({ model: 'video-b-2.5', prompt: 'a fox', resolution: '480p', tier: 'third-party' });
  expect(tier.status).toBe(400);
  expect(tier.body.code).toBe('model_not_offered');
  expect((await request(h.app).get('/api/balance').set(acct.auth)).body.balanceCents).toBe(5_000);
});

it('GET /api/models lists what is sold, with the sold tiers', async () => {
  const res = await request(h.app).get('/api/models').set(acct.auth);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    models: [
      { id: 'video-b-2.5', type: 'video', tiers: ['official'] },
      { id: 'image-c-2.1', type: 'image' },
      { id: 'image-d-2.5-flash-image', type: 'image' },
    ],
  });
  expect((await request(h.app).get('/api/models')).status).toBe(401);
});

it('the OpenAPI enums list the sold models only, and the examples name one of them', async () => {
  const doc = (await request(h.app).get('/openapi.json')).body;
  const schemas = doc.components.schemas;
  expect(schemas.ImageSubmitBody.properties.model.enum).toEqual(['image-c-2.1', 'image-d-2.5-flash-image']);
  expect(schemas.VideoSubmitBody.properties.model.enum).toEqual(['video-b-2.5']);
  const example = doc.paths['/api/image/generate'].post.requestBody.content['application/json'].example;
  expect(example.model).toBe('image-c-2.1');
  expect(schemas.Error400.properties.code.enum).toContain('model_not_offered');
});

it('the front page shows the sold models and uses one in its examples', async () => {
  const html = (await request(h.app).get('/')).text;
  expect(html).toContain('image-c-2.1');
  expect(html).not.toContain("model: 'image-b-2.5'");
});
