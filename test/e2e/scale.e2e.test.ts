// Horizontal scale: two worker processes on one Redis share the tasks, and no task is processed
// twice (one submit, one render, one attempt, one settlement each).
import { apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';

jest.setTimeout(90_000);

let stack: Stack;

// Sixty pollers every 100 ms on one account: the per-account request limit (600 a minute by
// default) is not what this file is about, and on Node 24 the polls come fast enough to reach it.
e2eSuite('scale', { stack: { workers: 2, env: { WORKER_CONCURRENCY: '4', RATE_LIMIT_PER_MINUTE: '100000' } } }, (s) => ({ stack } = s));

it('two workers share 60 tasks, each processed exactly once', async () => {
  const api = apiClient(stack);
  const account = await api.newAccount(1_000_000, 100);
  // Submitted in waves of 10: a burst of 60 concurrent submits on one account serialises on its
  // row in the gateway, which is not what this test is about.
  const tasks: { kind: 'image' | 'video'; taskId: string }[] = [];
  for (let wave = 0; wave < 6; wave++)
    tasks.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => submitOne(wave * 10 + j)))));

  async function submitOne(i: number) {
    const kind = i % 3 === 0 ? ('image' as const) : ('video' as const);
    const body =
      kind === 'image'
        ? { model: 'image-a-5.0', prompt: `tile ${i} #sim:delay=${200 + (i % 5) * 100}`, ratio: '1:1' }
        : { model: i % 2 ? 'video-a-h3' : 'video-b-2.0', prompt: `clip ${i} #sim:delay=${300 + (i % 7) * 100}`, duration: 4, resolution: i % 2 ? '480p' : '720p' };
    const res = await api.submit(account, kind, body);
    if (res.status !== 200) throw new Error(`submit ${i}: ${res.status} ${JSON.stringify(res.body)}\n${stack.logs()}`);
    return { kind, taskId: String(res.body.taskId) };
  }
  const finals = await Promise.all(tasks.map(async (t) => (await api.untilSettled(account, t.kind, t.taskId, 60_000)).at(-1)!));
  expect(finals.map((f) => f.status)).toEqual(tasks.map(() => 'completed'));

  for (const t of tasks) {
    const sim = await api.simTask(t.taskId);
    expect({ task: t.taskId, submits: sim.submits, renders: sim.renders.length }).toEqual({ task: t.taskId, submits: 1, renders: 1 });
  }
  expect(await stack.db.taskAttempt.count()).toBe(60);
  expect(await stack.db.ledgerEntry.count({ where: { kind: 'refund' } })).toBe(0);

  // Both processes did real work, and their submits add up to one per task.
  type Stats = { submits: number; completed: number };
  const stats = await Promise.all(
    stack.workers.map(async (w) => ((await (await fetch(`${stack.workerUrl(w)}/stats`)).json()) as { stats: Stats }).stats),
  );
  expect(stats.every((s) => s.submits > 0 && s.completed > 0)).toBe(true);
  expect(stats.reduce((n, s) => n + s.submits, 0)).toBe(60);
  expect(stats.reduce((n, s) => n + s.completed, 0)).toBe(60);
});
