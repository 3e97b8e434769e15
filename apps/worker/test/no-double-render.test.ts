// No render is sent twice on a protocol without idempotent submits nor an orphan search (MiniMax, through
// the simulator and the real adapter): the windows in which one job could send a render twice.
// - A second run of the job while the first is inside a slow submit (its lock lapsed: a stalled
//   event loop; or called directly) sends nothing before the submit's deadline: one render.
// - The write of the upstream id fails after the upstream answered: retried; past the retries the
//   id is kept in the job's data and the next run writes it: one render.
// - A run after the deadline with no id still submits again (counted `blind`).
// - A render no attempt keeps (another id written first, or the attempt closed) is cancelled.
import { createHash } from 'node:crypto';
import { Attempt, createTaskWithCharge, ledgerDiscrepancies, markSubmitSent, newId, recordUpstreamId, startAttempt, abandonOpenAttempt } from '@mediagen/db';
import { enqueueTask } from '@mediagen/queue';
import { advanceTask } from '../src/run-task';
import { recordRender } from '../src/render-ids';
import { eventually } from '../../../test/e2e/support/wait';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(60_000);

const SUBMIT_MS = 4_000;

/** The simulator groups a task's calls by its prompt. */
const taskRef = (prompt: string) => `prompt:${createHash('sha256').update(prompt).digest('hex').slice(0, 32)}`;

let w: InProcess;
let schema: string;
beforeAll(async () => {
  w = await startInProcess(
    (base) => ({
      channels: [
        {
          id: 'mm', protocol: 'minimax', baseUrl: `${base}/minimax`, apiKey: 'mm-key', costOrder: 1, models: { 'video-a-h3': 'MiniMax-H3' }, effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3-Max' },
          poll: { firstMs: 50, minMs: 50, maxMs: 200 }, timeouts: { submitMs: SUBMIT_MS },
        },
      ],
    }),
    // Short locks, so that a blocked event loop lets the job's lock lapse (as under load); short
    // id-write retries, so that "Postgres stays down" fits in a test.
    { WORKER_LOCK_MS: '500', WORKER_STALLED_INTERVAL_MS: '200', WORKER_ID_WRITE_RETRY_MS: '1000' },
  );
  schema = new URL(w.app.ctx.config.DATABASE_URL).searchParams.get('schema')!;
  // Fails the write of an upstream id on one task: its first `fail_first` tries, or while `down`.
  await w.db.$executeRawUnsafe(`CREATE SEQUENCE "${schema}".id_write_tries`);
  await w.db.$executeRawUnsafe(`CREATE TABLE "${schema}".id_write_block (task_id text, fail_first int NOT NULL, down boolean NOT NULL)`);
  await w.db.$executeRawUnsafe(`INSERT INTO "${schema}".id_write_block VALUES (NULL, 0, false)`);
  await w.db.$executeRawUnsafe(`
    CREATE FUNCTION "${schema}".fail_id_write() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE b record;
    BEGIN
      SELECT * INTO b FROM "${schema}".id_write_block;
      IF NEW."upstreamId" IS NOT NULL AND OLD."upstreamId" IS NULL AND NEW."taskId" = b.task_id
         AND (b.down OR nextval('"${schema}".id_write_tries') <= b.fail_first) THEN
        RAISE EXCEPTION 'injected: the write of an upstream id failed';
      END IF;
      RETURN NEW;
    END $$`);
  await w.db.$executeRawUnsafe(
    `CREATE TRIGGER fail_id_write BEFORE UPDATE ON "${schema}"."TaskAttempt" FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_id_write()`,
  );
});
afterAll(async () => {
  if (!w) return;
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

const SPEC = { type: 'video', model: 'video-a-h3', duration: 2, ratio: '16:9', resolution: '480p', tier: null, variant: null, refMode: null,
  effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, outputSeconds: 2 };

let n = 0;
/** A charged task, not enqueued yet; prompts are unique (the simulator groups calls by prompt). */
async function task(prompt: string): Promise<{ taskId: string; prompt: string }> {
  const taskId = newId();
  const p = `${prompt} (${++n} ${Date.now()})`;
  await createTaskWithCharge(w.db, { taskId, accountId: w.accountId, type: 'video', model: 'video-a-h3', params: { ...SPEC, prompt: p }, costCents: 7,
    costMicros: 70_000n, billedSeconds: 2, deadlineAt: new Date(Date.now() + 60_000) });
  return { taskId, prompt: p };
}

const counter = async (name: 'resubmits' | 'extraRenders', labels: Record<string, string>) =>
  (await w.app.ctx.metrics.upstream[name].get()).values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k as keyof typeof v.labels] === l))
    .reduce((s, v) => s + v.value, 0);


async function expectOneRender(taskId: string, prompt: string) {
  expect(await w.settled(taskId, 30_000)).toMatchObject({ status: 'completed' });
  const sim = w.sim.refSummary(taskRef(prompt));
  expect({ submits: sim.submits, renders: sim.renders.length }).toEqual({ submits: 1, renders: 1 });
  const attempts = await w.closedAttempts(taskId);
  expect(attempts.map((a) => [a.status, a.upstreamId])).toEqual([['completed', sim.renders[0].id]]);
  expect((await w.db.ledgerEntry.findMany({ where: { taskId } })).map((l) => l.kind)).toEqual(['charge']);
}

it('a job whose lock lapsed inside a slow submit (blocked event loop) is run again; the second run sends nothing before the deadline: one render', async () => {
  const inFlight = await counter('resubmits', { how: 'in_flight' });
  const { taskId, prompt } = await task('a lock that lapses #sim:slow-submit=3000 #sim:delay=200');
  await enqueueTask(w.queue, taskId);
  await eventually('the upstream to receive the submit', async () => w.sim.refSummary(taskRef(prompt)).submits >= 1);
  // What a loaded machine does: nothing runs for twice the lock's length, so the lock lapses and
  // the stalled check hands the job to another run while the first still waits for its answer.
  const stop = Date.now() + 1_000;
  while (Date.now() < stop) {
    /* the event loop is blocked */
  }
  await eventually('a second run to find the submit open', async () => (await counter('resubmits', { how: 'in_flight' })) > inFlight);
  await expectOneRender(taskId, prompt);
  expect(await counter('resubmits', { how: 'blind' })).toBe(0);
});

it('a second run called while the first is inside the submit waits for the deadline, and the first run writes the id', async () => {
  const { taskId, prompt } = await task('two runs at once #sim:slow-submit=1500 #sim:delay=200');
  await enqueueTask(w.queue, taskId);
  await eventually('the upstream to receive the submit', async () => w.sim.refSummary(taskRef(prompt)).submits >= 1);
  const t0 = Date.now();
  const next = await advanceTask(w.app.ctx, { taskId, step: 'submit', transientErrors: 0 });
  expect(next).toMatchObject({ step: 'submit' });
  // Comes back once the first submit's deadline (its call's deadline plus the slack) has passed.
  expect(next!.at - t0).toBeGreaterThan(SUBMIT_MS - 1_500);
  expect(w.sim.refSummary(taskRef(prompt)).submits).toBe(1);
  await expectOneRender(taskId, prompt);
});

it('the write of the upstream id fails three times after the upstream answered: retried within the step, one render', async () => {
  const kept = await counter('resubmits', { how: 'kept' });
  const { taskId, prompt } = await task('a database blip #sim:delay=200');
  await w.db.$executeRawUnsafe(`SELECT setval('"${schema}".id_write_tries', 1, false)`);
  await w.db.$executeRawUnsafe(`UPDATE "${schema}".id_write_block SET task_id = $1, fail_first = 3, down = false`, taskId);
  await enqueueTask(w.queue, taskId);
  await expectOneRender(taskId, prompt);
  expect(await w.db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT last_value AS n FROM "${schema}".id_write_tries`)).toEqual([{ n: 4n }]);
  // Written by the step's own retries: the job data never had to carry it.
  expect(await counter('resubmits', { how: 'kept' })).toBe(kept);
});

it('Postgres refuses the id for longer than the retries: the id waits in the job data and the next run writes it, one render', async () => {
  const kept = await counter('resubmits', { how: 'kept' });
  const { taskId, prompt } = await task('a longer outage #sim:delay=200');
  await w.db.$executeRawUnsafe(`UPDATE "${schema}".id_write_block SET task_id = $1, fail_first = 0, down = true`, taskId);
  await enqueueTask(w.queue, taskId);
  const job = await eventually('the id in the job data', async () => {
    const j = await w.queue.getJob(taskId);
    return j?.data.render ? j : null;
  });
  const sim = w.sim.refSummary(taskRef(prompt));
  expect(job.data.render).toEqual({ attemptId: expect.any(String), upstreamId: sim.renders[0].id });
  // Past the submit's deadline: a run without the kept id would submit again.
  await new Promise((r) => setTimeout(r, SUBMIT_MS + 2_500));
  expect(w.sim.refSummary(taskRef(prompt)).submits).toBe(1);
  await w.db.$executeRawUnsafe(`UPDATE "${schema}".id_write_block SET down = false`);
  await expectOneRender(taskId, prompt);
  expect(await counter('resubmits', { how: 'kept' })).toBe(kept + 1);
});

it('a run after the deadline of a submit whose answer never came (a killed worker) submits again, counted blind', async () => {
  const blind = await counter('resubmits', { how: 'blind' });
  const { taskId, prompt } = await task('a worker killed in the submit #sim:delay=200');
  // What the killed worker left: the attempt marked sent, open for another 1.5 s, no id.
  const started = await startAttempt(w.db, newId('att'), taskId, 1, 'mm');
  const sent = (await markSubmitSent(w.db, started, 1_500))!;
  await enqueueTask(w.queue, taskId);
  await expectOneRender(taskId, prompt);
  const [render] = w.sim.refSummary(taskRef(prompt)).renders;
  // Sent only once the earlier submit's deadline had passed.
  expect(w.sim.timing(render.id)!.createdAt).toBeGreaterThanOrEqual(sent.submitOpenUntil!.getTime());
  expect(await counter('resubmits', { how: 'blind' })).toBe(blind + 1);
});

it('a render no attempt keeps (the attempt names another render, or was closed) is cancelled upstream and counted', async () => {
  const cancelled = await counter('extraRenders', { result: 'cancelled' });
  const adapter = w.app.ctx.adapters.get('mm')!;
  const render = async (prompt: string) =>
    (await adapter.submit({ taskId: 'x', attemptId: newId('att'), spec: { ...SPEC, prompt } as never, outputSeconds: 2, references: [] })).upstreamId;

  const a = await task('two answers #sim:delay=60000');
  const first = await startAttempt(w.db, newId('att'), a.taskId, 1, 'mm');
  const kept = await render(a.prompt);
  const extra = await render(a.prompt);
  await recordUpstreamId(w.db, first, kept);
  // The slower run's answer arrives second: it must not replace the id written first.
  expect(await recordRender(w.app.ctx, first, adapter, extra)).toBeNull();
  expect(await w.db.taskAttempt.findUniqueOrThrow({ where: { id: first.id } })).toMatchObject({ upstreamId: kept, status: 'running' });
  // The same id written again (a retried write whose first try committed) is no extra render.
  expect(await recordRender(w.app.ctx, first, adapter, kept)).toMatchObject({ upstreamId: kept, status: 'running' });

  const b = await task('an answer after the task ended #sim:delay=60000');
  const closed: Attempt = await startAttempt(w.db, newId('att'), b.taskId, 1, 'mm');
  await abandonOpenAttempt(w.db, closed);
  const late = await render(b.prompt);
  expect(await recordRender(w.app.ctx, closed, adapter, late)).toBeNull();
  expect(await w.db.taskAttempt.findUniqueOrThrow({ where: { id: closed.id } })).toMatchObject({ upstreamId: null, status: 'abandoned' });

  expect(await counter('extraRenders', { result: 'cancelled' })).toBe(cancelled + 2);
  const views = [extra, late].map((id) => w.sim.view(w.sim.byId(id)!, true).status);
  expect(views).toEqual(['cancelled', 'cancelled']);
});
