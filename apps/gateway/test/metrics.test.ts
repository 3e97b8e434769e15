// GET /metrics on the gateway: behind the admin token, Prometheus text, counters that move with
// real requests, route patterns (never task ids) as labels, and queue depth read at scrape time.
import request from 'supertest';
import { metricValue, allLabelValues } from '../../../test/e2e/support/prom-text';
import { RUNNING_TASK_PRIORITY } from '@mediagen/queue';
import { startHarness, Harness } from './harness';

jest.setTimeout(30_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness('metrics');
});
afterAll(async () => {
  await h.assertLedgerInvariant();
  await h.close();
});

const scrape = async () => {
  const res = await request(h.app).get('/metrics').set(h.admin());
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
};

it('refuses a scrape without the admin token', async () => {
  expect((await request(h.app).get('/metrics')).status).toBe(401);
  expect((await request(h.app).get('/metrics').set({ Authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
});

it('counts requests by route pattern and status, tasks created by model, and reads queue depth', async () => {
  const before = await scrape();
  const acc = await h.newAccount({ balanceCents: 10_000 });
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await request(h.app).post('/api/video/generate').set(acc.auth).send({ model: 'video-a-h3', prompt: `a kite ${i}`, duration: 2, resolution: '480p' });
    expect(res.status).toBe(200);
    ids.push(res.body.taskId);
  }
  for (const id of ids) expect((await request(h.app).get(`/api/video/tasks/${id}`).set(acc.auth)).status).toBe(200);
  expect((await request(h.app).get('/api/video/tasks/not-a-task').set(acc.auth)).status).toBe(404);
  expect((await request(h.app).post('/api/video/generate').set(acc.auth).send({ model: 'video-a-h3' })).status).toBe(400);
  expect((await request(h.app).get('/nowhere/at/all')).status).toBe(404);
  expect((await request(h.app).get('/admin/accounts/whoever')).status).toBe(401);

  const text = await scrape();
  const moved = (name: string, labels: Record<string, string>) => metricValue(text, name, labels) - metricValue(before, name, labels);
  expect(moved('mediagen_tasks_created_total', { model: 'video-a-h3' })).toBe(2);
  const req = (method: string, route: string, status: string) => moved('mediagen_http_requests_total', { method, route, status });
  expect(req('POST', '/api/video/generate', '200')).toBe(2);
  expect(req('POST', '/api/video/generate', '400')).toBe(1);
  expect(req('GET', '/api/video/tasks/:taskId', '200')).toBe(2);
  expect(req('GET', '/api/video/tasks/:taskId', '404')).toBe(1);
  expect(req('POST', '/admin/accounts', '201')).toBe(1);
  expect(req('GET', 'unmatched', '404')).toBe(1);
  expect(req('GET', 'unmatched', '401')).toBe(1); // refused before any route matched
  // Each request lands in the latency histogram of its route.
  expect(moved('mediagen_http_request_duration_seconds_count', { route: '/api/video/tasks/:taskId' })).toBe(3);
  expect(metricValue(text, 'mediagen_http_request_duration_seconds_bucket', { route: '/api/video/tasks/:taskId', le: '+Inf' })).toBeGreaterThanOrEqual(3);

  // No worker runs here: both jobs wait in the queue.
  expect(metricValue(text, 'mediagen_queue_jobs', { queue: 'tasks', state: 'waiting' })).toBe(2);
  expect(metricValue(text, 'mediagen_queue_jobs', { queue: 'tasks', state: 'delayed' })).toBe(0);
  expect(text).toContain('mediagen_queue_jobs{queue="maintenance",state="active",app="gateway"} 0');
  // A job whose render runs upstream waits in BullMQ's prioritized set (RUNNING_TASK_PRIORITY):
  // it is still counted as waiting.
  await (await h.deps.queue.getJob(ids[0]))!.changePriority({ priority: RUNNING_TASK_PRIORITY });
  const later = await scrape();
  expect(metricValue(later, 'mediagen_queue_jobs', { queue: 'tasks', state: 'waiting' })).toBe(2);
  expect(later).not.toContain('state="prioritized"');

  // Labels name routes, never a task, an account or a key.
  const labels = allLabelValues(text);
  for (const secret of [...ids, acc.id, acc.key, 'not-a-task', '/nowhere/at/all', 'whoever']) expect(labels.join('\n')).not.toContain(secret);
});

it('shows no channels before any worker registered them', async () => {
  const res = await request(h.app).get('/admin/channels').set(h.admin());
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ channels: [] });
  expect((await request(h.app).get('/admin/channels')).status).toBe(401);
});
