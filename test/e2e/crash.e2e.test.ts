// Crash safety: a worker killed with SIGKILL mid-submit or mid-render leaves a task that another
// worker finishes, with one upstream render, one charge and no refund; SIGTERM drains cleanly. A
// worker killed while the upstream holds the submit: the resumed attempt sends nothing before that
// submit's deadline (it could still be answered elsewhere); then a protocol with an orphan search
// (ModelArk) adopts the render, one without (MiniMax) submits again, counted as a possible double
// render. (Replicate's mid-render crash: replicate.e2e.test.ts.)
import { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { eventually } from './support/wait';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;

e2eSuite('crash', { stack: { workers: 1 } }, (s) => ({ stack, api, account } = s));

const submitVideo = async (prompt: string) => {
  const res = await api.submit(account, 'video', { model: 'video-a-h3', prompt, duration: 2, resolution: '480p' });
  expect(res.status).toBe(200);
  return String(res.body.taskId);
};
const live = () => stack.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
const ledgerKinds = async (taskId: string) => (await stack.db.ledgerEntry.findMany({ where: { taskId } })).map((l) => l.kind);

it('SIGKILL while the upstream holds the submit: the stalled job is resumed elsewhere; without upstream idempotency the submit goes out again, counted as a possible double render, and the task is charged once', async () => {
  const [w1] = live();
  // The simulator starts the render at once but answers only after 3 s: the crash window between
  // the provider accepting a render and the worker recording its id. video-a-h3 runs on MiniMax,
  // which takes no idempotency key and offers no way to find the render (docs/providers.md).
  const taskId = await submitVideo('a glacier #sim:slow-submit=3000 #sim:delay=300');
  await eventually('the upstream to receive the submit', async () => (await api.simTask(taskId)).submits >= 1);
  w1.child.kill('SIGKILL');
  await w1.exited;
  const orphan = await stack.db.taskAttempt.findFirstOrThrow({ where: { taskId } });
  // The attempt says a submit was sent: the resumed one must not pass for a first submit.
  expect(orphan).toMatchObject({ status: 'submitting', upstreamId: null, submitSentAt: expect.any(Date), submitOpenUntil: expect.any(Date) });

  const w2 = await stack.startWorker();
  const last = (await api.untilSettled(account, 'video', taskId, 30_000)).at(-1)!;
  expect(last.status).toBe('completed');
  // Not before the killed submit's deadline (the channel's 10 s submit timeout and a slack).
  expect(Date.now()).toBeGreaterThan(orphan.submitOpenUntil!.getTime());
  const sim = await api.simTask(taskId);
  expect(sim.submits).toBe(2);
  expect(sim.renders).toHaveLength(2); // the measured window: one extra upstream render
  expect(await stack.db.taskAttempt.count({ where: { taskId } })).toBe(1);
  expect(await ledgerKinds(taskId)).toEqual(['charge']);
  const metrics = await (await fetch(`${stack.workerUrl(w2)}/metrics`)).text();
  expect(metrics).toMatch(/mediagen_upstream_resubmits_total\{channel="sim-video-a",how="blind"[^}]*\} 1/);
});

it('SIGKILL while ModelArk holds the submit: the resumed attempt finds the render in the task list (by the seed of its attempt) and adopts it: one render, one charge', async () => {
  const [w1] = live();
  // video-b runs on ModelArk (default channels): no idempotency key, but a list that echoes each
  // task's seed, and a request without a client seed carries one derived from the attempt.
  const res = await api.submit(account, 'video', { model: 'video-b-2.0', prompt: 'a heron #sim:slow-submit=3000 #sim:delay=300', duration: 4, resolution: '720p' });
  expect(res.status).toBe(200);
  const taskId = String(res.body.taskId);
  await eventually('the upstream to receive the submit', async () => (await api.simTask(taskId)).submits >= 1);
  w1.child.kill('SIGKILL');
  await w1.exited;
  expect(await stack.db.taskAttempt.findFirstOrThrow({ where: { taskId } })).toMatchObject({ status: 'submitting', upstreamId: null, submitSentAt: expect.any(Date) });

  const w2 = await stack.startWorker();
  const last = (await api.untilSettled(account, 'video', taskId, 30_000)).at(-1)!;
  expect(last.status).toBe('completed');
  const sim = await api.simTask(taskId);
  expect(sim.submits).toBe(1);
  expect(sim.renders).toHaveLength(1);
  // The attempt closes just after the task settles.
  const attempts = await eventually('the attempt to close', async () => {
    const rows = await stack.db.taskAttempt.findMany({ where: { taskId } });
    return rows.every((a) => a.status === 'completed') ? rows : null;
  });
  expect(attempts.map((a) => [a.status, a.upstreamId])).toEqual([['completed', sim.renders[0].id]]);
  expect(await ledgerKinds(taskId)).toEqual(['charge']);
  const metrics = await (await fetch(`${stack.workerUrl(w2)}/metrics`)).text();
  expect(metrics).toMatch(/mediagen_upstream_resubmits_total\{channel="sim-video-b-lowcost",how="orphan_found"[^}]*\} 1/);
});

it('SIGKILL mid-render: another worker polls the recorded render to the end', async () => {
  const [w] = live();
  const taskId = await submitVideo('a desert #sim:delay=3000');
  const attempt = await eventually('the upstream id to be recorded', () =>
    stack.db.taskAttempt.findFirst({ where: { taskId, upstreamId: { not: null } } }),
  );
  w.child.kill('SIGKILL');
  await w.exited;
  await stack.startWorker();
  const last = (await api.untilSettled(account, 'video', taskId, 30_000)).at(-1)!;
  expect(last.status).toBe('completed');
  const sim = await api.simTask(taskId);
  expect(sim.submits).toBe(1);
  expect(sim.renders).toEqual([{ id: attempt.upstreamId, channelId: 'sim-video-a' }]);
  expect(await ledgerKinds(taskId)).toEqual(['charge']);
});

it('SIGTERM lets the running step finish, exits 0, and the task completes on another worker', async () => {
  const [w] = live();
  const taskId = await submitVideo('a forest #sim:slow-submit=1500 #sim:delay=300');
  await eventually('the upstream to receive the submit', async () => (await api.simTask(taskId)).submits >= 1);
  const t0 = Date.now();
  w.child.kill('SIGTERM');
  const { code } = await w.exited;
  expect(code).toBe(0);
  expect(Date.now() - t0).toBeLessThan(5_000);
  // The step in progress ran to its end during the drain: its upstream id is recorded.
  expect(await stack.db.taskAttempt.findFirst({ where: { taskId } })).toMatchObject({ status: 'running', upstreamId: expect.any(String) });

  await stack.startWorker();
  expect((await api.untilSettled(account, 'video', taskId, 30_000)).at(-1)!.status).toBe('completed');
  expect(await api.simTask(taskId)).toMatchObject({ submits: 1, renders: [expect.anything()] });
  expect(await ledgerKinds(taskId)).toEqual(['charge']);
});
