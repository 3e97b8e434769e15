// Cost before and a ceiling: POST /api/{video|image}/quote prices a generate body after the same
// validation and media inspection as generate, creating and charging nothing; submit answers carry
// costCents; max_cost_cents refuses a dearer task with 422 cost_above_limit before any charge.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createResponseChecker } from '../../../test/e2e/support/openapi-check';
import { startHarness, Harness } from './harness';

const FIXTURES = path.resolve(__dirname, '../../../packages/media/test/fixtures');

let h: Harness;
let server: http.Server;
let base: string;
const fetched: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    fetched.push(req.url ?? '');
    const file = path.join(FIXTURES, path.basename(req.url ?? ''));
    if (!fs.existsSync(file)) return void res.writeHead(404).end();
    const bytes = fs.readFileSync(file);
    res.writeHead(200, { 'Content-Type': file.endsWith('.mp4') ? 'video/mp4' : 'image/png', 'Content-Length': bytes.length });
    res.end(bytes);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await startHarness('quote', { INSTANT_WAIT_MS: '0' });
});
afterAll(async () => {
  await h.assertLedgerInvariant();
  await h.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const post = (auth: Record<string, string>, p: string, body: unknown) => request(h.app).post(p).set(auth).send(body as object);
const balance = async (auth: Record<string, string>) => (await request(h.app).get('/api/balance').set(auth)).body.balanceCents;
const counts = async (accountId: string) => ({
  tasks: await h.deps.db.task.count({ where: { accountId } }),
  ledger: await h.deps.db.ledgerEntry.count({ where: { accountId } }),
  jobs: (await h.deps.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized')) as Record<string, number>,
});
const refVideos = () => [{ type: 'video', url: `${base}/video-12.5s.mp4` }, { type: 'video', url: `${base}/video-3s.mp4` }];

describe('quote', () => {
  it.each([
    ['image', { model: 'image-b-2.5', prompt: 'p' }, { costCents: 3, model: 'image-b-2.5', type: 'image' }],
    ['video', { model: 'video-a-h3', prompt: 'p', resolution: '480p', duration: 5 }, { costCents: 4, billedSeconds: 5, outputSeconds: 5, model: 'video-a-h3', type: 'video' }],
    ['video', { model: 'video-b-2', prompt: 'p', duration: 4 }, { costCents: 65, billedSeconds: 4, outputSeconds: 4, model: 'video-b-2.0', type: 'video' }],
    ['video', { model: 'video-c-3.1', prompt: 'p' }, { costCents: 10, model: 'video-c-3.1', type: 'video', variant: 'video-c-3.1-fast' }],
  ])('%s %j answers what generate charges, and creates nothing', async (kind, body, expected) => {
    const a = await h.newAccount({ balanceCents: 1000 });
    const before = await counts(a.id);
    const q = await post(a.auth, `/api/${kind}/quote`, body);
    expect(q.status).toBe(200);
    expect(q.body).toEqual(expected);
    expect(q.headers['ratelimit']).toBeDefined();
    expect(await counts(a.id)).toEqual(before);
    expect(await balance(a.auth)).toBe(1000);
    // The generate call with the same body charges exactly that, and says so.
    const g = await post(a.auth, `/api/${kind}/generate`, body);
    expect(g.status).toBe(200);
    expect(g.body.costCents).toBe(expected.costCents);
    expect(await balance(a.auth)).toBe(1000 - expected.costCents);
  });

  it('measures reference media as generate does (video-b bills the references\' seconds)', async () => {
    const a = await h.newAccount({ balanceCents: 10_000 });
    const body = { model: 'video-b-2.5', prompt: 'p', duration: 5, media: refVideos() };
    const q = await post(a.auth, '/api/video/quote', body);
    expect(q.status).toBe(200);
    expect(q.body).toMatchObject({ costCents: 488, billedSeconds: 21, outputSeconds: 5 }); // 5 + ceil(12.5 + 3) = 21 s x 0.232
    expect(fetched).toEqual(expect.arrayContaining(['/video-12.5s.mp4', '/video-3s.mp4']));
    expect((await counts(a.id)).tasks).toBe(0);
    const g = await post(a.auth, '/api/video/generate', body);
    expect(g.body.costCents).toBe(488);
    const task = await h.deps.db.task.findUniqueOrThrow({ where: { id: g.body.taskId } });
    expect(task.costCents).toBe(488);
  });

  it.each([
    ['an unknown field', { model: 'image-b-2.5', prompt: 'p', colour: 'red' }],
    ['an unknown model', { model: 'image-z', prompt: 'p' }],
    ['a blank prompt', { model: 'image-b-2.5', prompt: '  ' }],
    ['a ratio the model lacks', { model: 'image-b-2.5', prompt: 'p', ratio: '21:9' }],
    ['a negative max_cost_cents', { model: 'image-b-2.5', prompt: 'p', max_cost_cents: -1 }],
    ['a fractional max_cost_cents', { model: 'image-b-2.5', prompt: 'p', max_cost_cents: 2.5 }],
    ['a string max_cost_cents', { model: 'image-b-2.5', prompt: 'p', max_cost_cents: '5' }],
  ])('%s: the same 400 as generate, on both', async (_what, body) => {
    const a = await h.newAccount();
    const q = await post(a.auth, '/api/image/quote', body);
    const g = await post(a.auth, '/api/image/generate', body);
    expect(q.status).toBe(400);
    expect(q.body).toEqual(g.body);
    expect((await counts(a.id)).tasks).toBe(0);
  });

  it('an unreadable reference gets the same 400 naming it; a non-JSON body the same 400', async () => {
    const a = await h.newAccount();
    const body = { model: 'video-b-2.5', prompt: 'p', media: [{ type: 'video', url: `${base}/not-a-video.mp4` }] };
    const q = await post(a.auth, '/api/video/quote', body);
    const g = await post(a.auth, '/api/video/generate', body);
    expect(q.status).toBe(400);
    expect(q.body).toEqual(g.body);
    expect(q.body.details[0].path).toBe('media[0].url');
    const text = await request(h.app).post('/api/video/quote').set(a.auth).set('Content-Type', 'text/plain').send('hi');
    expect(text.status).toBe(400);
    expect(text.body.code).toBe('invalid_json');
  });

  it('needs an API key', async () => {
    const res = await request(h.app).post('/api/image/quote').send({ model: 'image-b-2.5', prompt: 'p' });
    expect(res.status).toBe(401);
  });
});

describe('max_cost_cents', () => {
  it('a dearer task is refused with 422 cost_above_limit and costCents: no task, no charge, no job, no idempotency record kept', async () => {
    const a = await h.newAccount({ balanceCents: 1000 });
    const body = { model: 'video-b-2.0', prompt: 'p', duration: 4, max_cost_cents: 64 };
    const before = await counts(a.id);
    const res = await request(h.app).post('/api/video/generate').set(a.auth).set('Idempotency-Key', 'ceiling-1').send(body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(/65 cents/), code: 'cost_above_limit', costCents: 65, maxCostCents: 64 });
    expect(await counts(a.id)).toEqual(before);
    expect(await balance(a.auth)).toBe(1000);
    // The quote of the same body says the same.
    const q = await post(a.auth, '/api/video/quote', body);
    expect([q.status, q.body.code, q.body.costCents]).toEqual([422, 'cost_above_limit', 65]);
    // The key was released: the same key with a ceiling that fits creates the task, charged once.
    const ok = await request(h.app).post('/api/video/generate').set(a.auth).set('Idempotency-Key', 'ceiling-1').send({ ...body, max_cost_cents: 65 });
    expect(ok.status).toBe(200);
    expect(ok.body.costCents).toBe(65);
    expect(await balance(a.auth)).toBe(935);
  });

  it('is checked against the measured cost, before the charge (and before a 402)', async () => {
    const poor = await h.newAccount({ balanceCents: 200 });
    const body = { model: 'video-b-2.5', prompt: 'p', duration: 5, media: refVideos(), max_cost_cents: 487 };
    const res = await post(poor.auth, '/api/video/generate', body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'cost_above_limit', costCents: 488 });
    expect(await balance(poor.auth)).toBe(200);
  });

  it('0 refuses every priced task; null means no ceiling', async () => {
    const a = await h.newAccount({ balanceCents: 100 });
    expect((await post(a.auth, '/api/image/generate', { model: 'image-b-2.5', prompt: 'p', max_cost_cents: 0 })).status).toBe(422);
    const res = await post(a.auth, '/api/image/generate', { model: 'image-b-2.5', prompt: 'p', max_cost_cents: null });
    expect(res.status).toBe(200);
    expect(res.body.costCents).toBe(3);
  });

  it('a replay carries the task\'s costCents', async () => {
    const a = await h.newAccount({ balanceCents: 100 });
    const body = { model: 'image-b-2.5', prompt: 'p', max_cost_cents: 3 };
    const first = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'r-1').send(body);
    const again = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'r-1').send(body);
    expect(again.body).toMatchObject({ taskId: first.body.taskId, idempotentReplay: true, costCents: 3 });
    expect(await balance(a.auth)).toBe(97);
  });
});

it('quote answers, submit answers with costCents and the 422 cost_above_limit match the OpenAPI document', async () => {
  const { check } = createResponseChecker();
  const a = await h.newAccount({ balanceCents: 100 });
  const cases: [string, object][] = [
    ['/api/image/quote', { model: 'image-b-2.5', prompt: 'p' }],
    ['/api/video/quote', { model: 'video-b-2.0', prompt: 'p', duration: 4 }],
    ['/api/video/quote', { model: 'video-c-3.1', prompt: 'p', max_cost_cents: 1 }],
    ['/api/image/quote', { model: 'image-b-2.5', prompt: 'p', max_cost_cents: -1 }],
    ['/api/image/generate', { model: 'image-b-2.5', prompt: 'p' }],
    ['/api/image/generate', { model: 'image-b-2.5', prompt: 'p', max_cost_cents: 2 }],
  ];
  const problems: string[] = [];
  for (const [p, body] of cases) {
    const res = await post(a.auth, p, body);
    const headers = new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)] as [string, string]));
    problems.push(...check({ method: 'POST', path: p, status: res.status, headers, body: res.body }));
  }
  expect(problems).toEqual([]);
});
