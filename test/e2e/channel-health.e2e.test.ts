// A channel that keeps failing is taken out of rotation for its cool-down (its tasks go to the next
// channel), then one task probes it and, when that render succeeds, it is back in rotation. The
// cheap channel reaches the simulator through a proxy the test cuts (connection refused: a submit
// that never left, so the task moves to the next channel at once and the breaker counts it transient).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Account, apiClient } from './support/api';
import { freePort } from './support/processes';
import { metricValue } from './support/prom-text';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { startTcpProxy, TcpProxy } from './support/tcp-proxy';
import { eventually } from './support/wait';
import { closedAttemptRows } from './support/task-checks';

jest.setTimeout(60_000);

// Long enough that the breaker is still open while the second test runs its own steps on a loaded
// machine (two tasks after the trip); the third test waits it out.
const COOLDOWN_MS = 12_000;
let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let proxy: TcpProxy;
let dir: string;
let lastTaskId = '';

e2eSuite(
  'breaker',
  {
    balanceCents: 100_000,
    maxConcurrentTasks: 50,
    stack: async () => {
      const simPort = await freePort();
      proxy = await startTcpProxy(simPort);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-breaker-'));
      const poll = { firstMs: 100, minMs: 200, maxMs: 1000 };
      const models = { 'video-a-h3': 'sim/video-a-h3' };
      fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify({
        channels: [
          { id: 'cheap', baseUrl: `http://127.0.0.1:${proxy.port}/ch/cheap`, apiKey: 'k', costOrder: 10, models, poll },
          { id: 'backup', baseUrl: `http://127.0.0.1:${simPort}/ch/backup`, apiKey: 'k', costOrder: 20, models, poll },
        ],
      }));
      return {
        env: {
          PROVIDER_CONFIG: path.join(dir, 'channels.json'),
          SIM_PORT: String(simPort),
          SIM_RENDER_MS: '200',
          CHANNEL_BREAKER_FAILURES: '3',
          CHANNEL_BREAKER_WINDOW_MS: '20000',
          CHANNEL_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS),
        },
      };
    },
  },
  (s) => ({ stack, api, account } = s),
);
afterAll(async () => {
  await proxy?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const run = async (prompt: string) => {
  const res = await api.submit(account, 'video', { model: 'video-a-h3', prompt, duration: 2, resolution: '480p' });
  expect(res.status).toBe(200);
  const taskId = String(res.body.taskId);
  lastTaskId = taskId;
  expect((await api.untilSettled(account, 'video', taskId)).at(-1)!.status).toBe('completed');
  return (await closedAttempts(taskId)).map((a) => [a.channelId, a.status]);
};
/** The task's attempts once the last one is closed (the task settles first, then its attempt row). */
const closedAttempts = (taskId: string) => closedAttemptRows(stack.db, taskId);
const channel = async (id: string) => {
  const res = await api.admin('GET', '/channels');
  return (res.body.channels as Record<string, any>[]).find((c) => c.id === id)!;
};

it('a healthy cheap channel renders first', async () => {
  expect(await run('a calm sea')).toEqual([['cheap', 'completed']]);
  expect(await channel('cheap')).toMatchObject({ state: 'closed', recent: { succeeded: 1 } });
});

it('trips after repeated failures; its tasks fall back to the next channel meanwhile', async () => {
  await proxy.cut();
  // A refused submit never reached the upstream: the task moves to `backup` at once (no retry on
  // `cheap`, no "possible double render"), and the first attempt keeps its error for the timeline.
  for (const prompt of ['storm one', 'storm two', 'storm three']) expect(await run(prompt)).toEqual([['cheap', 'failed'], ['backup', 'completed']]);
  const task = await api.admin('GET', `/tasks/${lastTaskId}`);
  expect((task.body.attempts as Record<string, unknown>[])[0]).toMatchObject({ channelId: 'cheap', status: 'failed', errorKind: 'unsent', errorMessage: expect.stringMatching(/ECONNREFUSED.*never reached the upstream/) });
  expect(fs.readFileSync(stack.workers[0].logFile, 'utf8')).not.toContain('possible double render');
  const open = await channel('cheap');
  expect(open).toMatchObject({ state: 'open', recent: { transient: 3 }, lastError: { kind: 'transient' } });
  expect(open.lastError.message).toMatch(/ECONNREFUSED/);
  expect(Date.parse(open.openUntil) - Date.parse(open.openedAt)).toBe(COOLDOWN_MS);

  // Out of rotation: the next task goes straight to the backup channel.
  expect(await run('storm four')).toEqual([['backup', 'completed']]);
  const metrics = await (await fetch(`${stack.gatewayUrl}/metrics`, { headers: { Authorization: `Bearer ${stack.adminToken}` } })).text();
  expect(metricValue(metrics, 'mediagen_channel_state', { channel: 'cheap' })).toBe(2);
  const workerMetrics = await (await fetch(`${stack.workerUrl(stack.workers[0])}/metrics`)).text();
  expect(metricValue(workerMetrics, 'mediagen_channel_breaker_transitions_total', { channel: 'cheap', state: 'open' })).toBe(1);
  expect(metricValue(workerMetrics, 'mediagen_channel_outcomes_total', { channel: 'cheap', outcome: 'transient' })).toBe(3);
});

it('after the cool-down one task probes it; its success puts the channel back in rotation', async () => {
  await proxy.restore();
  const cooled = await eventually('the cool-down to end', async () => {
    const c = await channel('cheap');
    return c.state === 'half-open' ? c : null;
  }, COOLDOWN_MS + 3_000);
  expect(cooled.probeTaskId).toBeNull(); // no task has asked yet
  expect(await run('the probe')).toEqual([['cheap', 'completed']]);
  expect(await channel('cheap')).toMatchObject({ state: 'closed', openedAt: null, consecutiveFailures: 0 });
  expect(await run('business as usual')).toEqual([['cheap', 'completed']]);
  const log = fs.readFileSync(stack.workers[0].logFile, 'utf8');
  expect(log).toContain('"msg":"channel taken out of rotation"');
  expect(log).toContain('"msg":"channel breaker closed"');
});
