// A new task's first step is taken before the polls of renders already running: with more polls due
// than the worker can run, its render must not start only after all of them (the benchmark's 10,000
// renders in flight: the last submits of the burst queued behind the polls of the first ones and
// started after the first renders had ended).
import { ledgerDiscrepancies } from '@mediagen/db';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(60_000);

const RUNNING = 40;

let w: InProcess;
beforeAll(async () => {
  w = await startInProcess(
    (base) => ({
      channels: [{ id: 'single', baseUrl: `${base}/ch/single`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 20, minMs: 20, maxMs: 20 } }],
    }),
    // One step at a time, so the order in which the worker takes its jobs is the order they run in.
    { WORKER_CONCURRENCY: '1' },
  );
});
afterAll(async () => {
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('a new task starts its render before the polls already due of renders that run', async () => {
  const running = await Promise.all(Array.from({ length: RUNNING }, (_, i) => w.submit(`running ${i} #sim:delay=600000`)));
  // Every render runs upstream and its job has polled it at least once (it now waits for its next poll).
  await until('renders running', () => running.every((id) => w.sim.refSummary(id).calls >= 2));

  // With the worker stopped, every running task's poll falls due and joins the queue ahead of the new task.
  await w.app.taskWorker.pause();
  await w.queue.promoteJobs();
  const stats = w.app.ctx.stats;
  const pollsBefore = stats.polls;
  let pollsAtNewSubmit: number | undefined;
  const fresh = await w.submit('a new task #sim:delay=600000');
  const submit = w.sim.submit.bind(w.sim);
  w.sim.submit = (...args: Parameters<typeof submit>) => {
    if (args[2].ref === fresh) pollsAtNewSubmit ??= stats.polls;
    return submit(...args);
  };
  w.app.taskWorker.resume();

  await until('the new task\'s render', () => w.sim.refSummary(fresh).renders.length === 1);
  // FIFO would have run all RUNNING polls first. On a quiet machine none runs before it; on a loaded
  // one (CI), a few polls that BullMQ had already handed to the worker when it paused run first
  // (seen: 8 of 20), so the bound is half of FIFO's count rather than zero.
  expect(pollsAtNewSubmit! - pollsBefore).toBeLessThan(RUNNING / 2);
  // The polls then run as before.
  await until('the running renders polled again', () => stats.polls >= pollsBefore + RUNNING);
});
