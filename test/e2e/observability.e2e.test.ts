// Operations, end to end on real processes: the gateway's and the worker's /metrics move with real
// traffic, the worker's /readyz turns 503 while its Redis or Postgres is unreachable, and no log
// line of any process carries a client API key, the admin token, an upstream key or inline file data.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { metricValue } from './support/prom-text';
import { startTcpProxy } from './support/tcp-proxy';
import { stopProcess } from './support/processes';
import { eventually, waitFor } from './support/wait';

jest.setTimeout(60_000);

const UPSTREAM_KEY = `upstream-secret-${randomBytes(12).toString('hex')}`;
const PNG = fs.readFileSync(path.resolve(__dirname, '../../packages/media/test/fixtures/image.png'));
const PNG_B64 = PNG.toString('base64');

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let dir: string;

// Channels whose key comes from the environment, as in production (`${NAME}` in the file).
e2eSuite(
  'obs',
  {
    balanceCents: 100_000,
    maxConcurrentTasks: 50,
    stack: () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-obs-'));
      const poll = { firstMs: 100, minMs: 200, maxMs: 1000 };
      const channel = (id: string, models: string[], extra = {}) => ({
        id, baseUrl: `http://127.0.0.1:\${SIM_PORT}/ch/${id}`, apiKey: '${OBS_UPSTREAM_KEY}', costOrder: 10, poll,
        models: Object.fromEntries(models.map((m) => [m, `sim/${m}`])), ...extra,
      });
      fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify({
        channels: [channel('obs-video', ['video-a-h3'], { reportsViolations: true }), channel('obs-image', ['image-b-2.5', 'image-a-5.0'])],
      }));
      // Info lines: the test reads the task transitions the logs describe.
      return { env: { PROVIDER_CONFIG: path.join(dir, 'channels.json'), OBS_UPSTREAM_KEY: UPSTREAM_KEY, SIM_RENDER_MS: '200', LOG_LEVEL: 'info' } };
    },
  },
  (s) => ({ stack, api, account } = s),
);
afterAll(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

const scrapeGateway = async () => {
  const res = await fetch(`${stack.gatewayUrl}/metrics`, { headers: { Authorization: `Bearer ${stack.adminToken}` } });
  expect(res.status).toBe(200);
  return res.text();
};
const scrapeWorker = async () => {
  const res = await fetch(`${stack.workerUrl(stack.workers[0])}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};
const video = (prompt: string) => ({ model: 'video-a-h3', prompt, duration: 2, resolution: '480p' });

it('metrics of the gateway and the worker move with real traffic', async () => {
  const [g0, w0] = [await scrapeGateway(), await scrapeWorker()];
  const submits = await Promise.all([
    api.submit(account, 'video', video('a lighthouse #sim:delay=300')),
    api.submit(account, 'video', video('a harbour #sim:delay=300')),
    api.submit(account, 'video', video('something forbidden #sim:violation')),
    api.submit(account, 'image', { model: 'image-b-2.5', prompt: 'a cat like this one', images: [`data:image/png;base64,${PNG_B64}`] }),
  ]);
  for (const s of submits) expect(s.status).toBe(200);
  const ids = submits.map((s) => String(s.body.taskId));
  const last = await Promise.all(ids.map((id, i) => api.untilSettled(account, i < 3 ? 'video' : 'image', id).then((b) => b.at(-1)!)));
  expect(last.map((b) => b.status)).toEqual(['completed', 'completed', 'failed', 'completed']);

  // A task settles before its attempt closes and gives its channel slot back: on a loaded machine
  // the scrape can come in between. Wait for that (a condition), then read both.
  await eventually('the attempts to close', async () => (await stack.db.taskAttempt.count({ where: { taskId: { in: ids }, finishedAt: null } })) === 0, 30_000);
  const g1 = await eventually('no render in flight at scrape time', async () => {
    const text = await scrapeGateway();
    return /mediagen_renders_in_flight\{channel="obs-video",app="gateway"\} 0/.test(text) ? text : undefined;
  }, 30_000);
  const w1 = await scrapeWorker();
  const moved = (a: string, b: string, name: string, labels: Record<string, string>) => metricValue(b, name, labels) - metricValue(a, name, labels);
  expect(moved(g0, g1, 'mediagen_tasks_created_total', { model: 'video-a-h3' })).toBe(3);
  expect(moved(g0, g1, 'mediagen_tasks_created_total', { model: 'image-b-2.5' })).toBe(1);
  expect(moved(g0, g1, 'mediagen_http_requests_total', { method: 'POST', route: '/api/video/generate', status: '200' })).toBe(3);
  expect(moved(g0, g1, 'mediagen_http_requests_total', { method: 'GET', route: '/api/video/tasks/:taskId', status: '200' })).toBeGreaterThanOrEqual(3);
  expect(moved(w0, w1, 'mediagen_tasks_completed_total', { model: 'video-a-h3' })).toBe(2);
  expect(moved(w0, w1, 'mediagen_tasks_completed_total', { model: 'image-b-2.5' })).toBe(1);
  expect(moved(w0, w1, 'mediagen_tasks_failed_total', { model: 'video-a-h3', error_code: 'content_violation' })).toBe(1);
  expect(moved(w0, w1, 'mediagen_refunds_total', { model: 'video-a-h3', error_code: 'content_violation' })).toBe(1);
  expect(moved(w0, w1, 'mediagen_refunded_cents_total', { model: 'video-a-h3' })).toBeGreaterThan(0);
  expect(moved(w0, w1, 'mediagen_channel_outcomes_total', { channel: 'obs-video', outcome: 'succeeded' })).toBe(2);
  expect(moved(w0, w1, 'mediagen_channel_outcomes_total', { channel: 'obs-video', outcome: 'violation' })).toBe(1);
  expect(moved(w0, w1, 'mediagen_channel_outcomes_total', { channel: 'obs-image', outcome: 'succeeded' })).toBe(1);
  expect(moved(w0, w1, 'mediagen_channel_call_duration_seconds_count', { channel: 'obs-video', call: 'submit', result: 'ok' })).toBe(3);
  expect(moved(w0, w1, 'mediagen_channel_call_duration_seconds_count', { channel: 'obs-image', call: 'download', result: 'ok' })).toBe(1);
  expect(moved(w0, w1, 'mediagen_task_steps_total', {})).toBeGreaterThanOrEqual(8);
  // Gauges read from Redis at scrape time: everything settled, nothing in flight or waiting.
  expect(g1).toMatch(/mediagen_renders_in_flight\{channel="obs-video",app="gateway"\} 0/);
  expect(g1).toMatch(/mediagen_channel_state\{channel="obs-video",app="gateway"\} 0/);
  expect(metricValue(g1, 'mediagen_queue_jobs', { queue: 'tasks', state: 'waiting' })).toBe(0);
  // Process metrics come with both.
  expect(w1).toContain('mediagen_process_resident_memory_bytes');
  expect(g1).toContain('mediagen_nodejs_eventloop_lag_seconds');
});

it('GET /admin/channels shows the channels the worker registered, with recent outcomes', async () => {
  const res = await api.admin('GET', '/channels');
  expect(res.status).toBe(200);
  const channels = res.body.channels as Record<string, unknown>[];
  expect(channels.map((c) => c.id)).toEqual(['obs-image', 'obs-video']);
  expect(channels[1]).toMatchObject({ state: 'closed', models: ['video-a-h3'], recent: { succeeded: 2, violation: 1, failed: 0, transient: 0 }, rendersInFlight: 0 });
  expect(JSON.stringify(res.body)).not.toContain(UPSTREAM_KEY);
});

it("the worker's /readyz turns 503 naming Redis, then Postgres, while each is unreachable", async () => {
  const redis = new URL(stack.env.REDIS_URL);
  const pg = new URL(stack.env.DATABASE_URL);
  const redisProxy = await startTcpProxy(Number(redis.port || 6379), redis.hostname);
  const pgProxy = await startTcpProxy(Number(pg.port || 5432), pg.hostname);
  pg.hostname = '127.0.0.1';
  pg.port = String(pgProxy.port);
  const w = await stack.startWorker({ REDIS_URL: redisProxy.url('redis'), DATABASE_URL: pg.toString() });
  // With the admin token /readyz names the reason; without, only ok/unavailable.
  const readyz = async (detail = true) => {
    const r = await fetch(`${stack.workerUrl(w)}/readyz`, { headers: detail ? { Authorization: `Bearer ${stack.adminToken}` } : {} });
    return { status: r.status, body: (await r.json()) as Record<string, string> };
  };
  try {
    // A worker just started may still be opening its first connections (slow on a loaded machine).
    await eventually('ready at start', async () => (await readyz()).status === 200);
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } });
    await redisProxy.cut();
    const noRedis = await eventually('503 without Redis', async () => ((await readyz()).status === 503 ? readyz() : null));
    expect(noRedis.body).toMatchObject({ status: 'not_ready', postgres: 'ok' });
    expect(noRedis.body.redis).toMatch(/connection|timed out|closed/);
    expect((await readyz(false)).body).toMatchObject({ status: 'not_ready', redis: 'unavailable' });
    expect((await fetch(`${stack.workerUrl(w)}/healthz`)).status).toBe(200); // alive, just not ready
    await redisProxy.restore();
    await eventually('ready again', async () => (await readyz()).status === 200);

    await pgProxy.cut();
    const noPg = await readyz();
    expect(noPg.status).toBe(503);
    expect(noPg.body).toMatchObject({ redis: 'ok' });
    expect(noPg.body.postgres).not.toBe('ok');
    await pgProxy.restore();
    await eventually('ready again', async () => (await readyz()).status === 200);
  } finally {
    await redisProxy.restore().catch(() => undefined);
    await pgProxy.restore().catch(() => undefined);
    await stopProcess(w);
    await Promise.all([redisProxy.close(), pgProxy.close()]);
  }
});

it('no log line carries an API key, the admin token, the upstream key or inline file data', async () => {
  // Traffic that puts secrets on the wire: a key in every request, an admin call, an inline file,
  // a refused inline file, and a key that does not exist.
  const inline = await api.submit(account, 'image', { model: 'image-b-2.5', prompt: 'inline again', images: [`data:image/png;base64,${PNG_B64}`] });
  expect(inline.status).toBe(200);
  const refused = await api.submit(account, 'image', { model: 'image-b-2.5', prompt: 'p', images: [`data:image/jpeg;base64,${PNG_B64}`] });
  expect(refused.status).toBe(400);
  const bogus = { accountId: account.accountId, apiKey: `mg_${randomBytes(32).toString('base64url')}` };
  expect((await api.poll(bogus, 'image', 'whatever')).status).toBe(401);
  const taskId = String(inline.body.taskId);
  await api.untilSettled(account, 'image', taskId);
  // The last lines reach the files a little after the answers: wait for the worker's completion
  // line of that task and the gateway's line of the last poll.
  const read = () => stack.procs.map((p) => fs.readFileSync(p.logFile, 'utf8')).join('\n');
  await waitFor(() => {
    const lines = read().split('\n');
    return lines.some((l) => l.includes('"msg":"task completed"') && l.includes(taskId)) && lines.some((l) => l.includes(`/api/image/tasks/${taskId}`));
  }, 15_000, 'the last log lines written');
  const logs = read();
  // The logs do describe the traffic: request lines and task transitions with their ids...
  expect(logs).toContain('"msg":"task created"');
  expect(logs).toContain(`"accountId":"${account.accountId}"`);
  for (const msg of ['attempt started', 'task processing', 'task completed', 'task failed', 'task refunded']) expect(logs).toContain(`"msg":"${msg}"`);
  // ...and none of the secrets.
  for (const secret of [account.apiKey, bogus.apiKey, stack.adminToken, UPSTREAM_KEY]) expect(logs).not.toContain(secret);
  expect(logs).not.toContain(PNG_B64.slice(100, 160));
  expect(logs).not.toMatch(/data:image\/png;base64,[A-Za-z0-9+/]{20}/);
});
