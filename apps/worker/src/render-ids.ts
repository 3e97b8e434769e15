// Writing a render's upstream id: the one write that keeps a resumed job polling the render instead
// of starting another (docs/providers.md, "No double render"). Retried with backoff while Postgres
// fails it; past WORKER_ID_WRITE_RETRY_MS the id goes into the job's data (run-task.ts), the second
// place, and the next run writes it from there. A compare-and-set: when the attempt already names
// another render or was closed meanwhile, the render in hand is one nobody keeps, and it is
// cancelled upstream where the protocol can.
import { setTimeout as sleep } from 'node:timers/promises';
import { Attempt, AttemptStatus, latestAttempt, recordUpstreamId, type RenderUsage } from '@mediagen/db';
import type { ChannelAdapter } from '@mediagen/providers';
import { type Backoff, exponentialBackoffMs } from '@mediagen/queue';
import type { WorkerContext } from './context';

/** 100 ms doubling to 2 s, no jitter: one job waits, nothing to spread. */
const ID_WRITE_BACKOFF: Backoff = { baseMs: 100, maxMs: 2_000, jitter: 0 };

export interface KeptRender {
  attemptId: string;
  upstreamId: string;
}

/** A render Postgres would not take within the retries: run-task.ts keeps it in the job's data. */
export class UnrecordedRender extends Error {
  constructor(
    readonly render: KeptRender,
    cause: unknown,
  ) {
    super(`upstream id ${render.upstreamId} of attempt ${render.attemptId} not written: ${(cause as Error)?.message ?? cause}`);
  }
}

/**
 * Writes `upstreamId` on the attempt: the attempt now running on it, or null when the row names
 * another render or was closed (this render was cancelled where possible; the next run follows the
 * row). `finished`: a synchronous upstream's render, done already (nothing to cancel); `succeeded`
 * with its usage makes the same write record the attempt as succeeded (its file is downloaded next).
 */
export async function recordRender(
  ctx: WorkerContext,
  attempt: Attempt,
  adapter: ChannelAdapter | undefined,
  upstreamId: string,
  finished: boolean | { succeeded: { usage?: RenderUsage } } = false,
): Promise<Attempt | null> {
  return (await writeRender(ctx, attempt, adapter, upstreamId, finished)).attempt;
}

/** recordRender, also saying whether this call made the write (false: another run had written the same id). */
async function writeRender(
  ctx: WorkerContext,
  attempt: Attempt,
  adapter: ChannelAdapter | undefined,
  upstreamId: string,
  finished: boolean | { succeeded: { usage?: RenderUsage } },
): Promise<{ attempt: Attempt | null; won: boolean }> {
  const until = Date.now() + ctx.config.WORKER_ID_WRITE_RETRY_MS;
  let result: Awaited<ReturnType<typeof recordUpstreamId>>;
  for (let n = 1; ; n++) {
    try {
      result = await recordUpstreamId(ctx.db, attempt, upstreamId, typeof finished === 'object' ? finished.succeeded : undefined);
      break;
    } catch (err) {
      const left = until - Date.now();
      const fields = { taskId: attempt.taskId, channel: attempt.channelId, attemptNo: attempt.attemptNo, upstreamId, err: (err as Error).message };
      if (left <= 0) {
        ctx.log.error(fields, 'upstream id not written; kept in the job data for the next run');
        throw new UnrecordedRender({ attemptId: attempt.id, upstreamId }, err);
      }
      ctx.log.warn({ ...fields, try: n }, 'upstream id not written; retrying');
      await sleep(Math.min(left, exponentialBackoffMs(n, ID_WRITE_BACKOFF)));
    }
  }
  if ('recorded' in result) return { attempt: result.recorded, won: result.won };
  await dropRender(ctx, attempt, adapter, upstreamId, result.other, !!finished);
  return { attempt: null, won: false };
}

/**
 * A render an earlier run of the job kept in the job's data (Postgres was down when it answered):
 * written now, never submitted again. Returns the task's attempt as it stands after.
 */
export async function writeKeptRender(ctx: WorkerContext, attempt: Attempt | null, kept: KeptRender): Promise<Attempt | null> {
  if (!attempt || attempt.id !== kept.attemptId || attempt.upstreamId === kept.upstreamId) return attempt;
  const { attempt: running, won } = await writeRender(ctx, attempt, ctx.adapters.get(attempt.channelId), kept.upstreamId, false);
  if (!running) return latestAttempt(ctx.db, attempt.taskId);
  // Counted by the run that wrote it: two runs of a stalled job may both carry the kept id.
  if (!won) return running;
  ctx.metrics.upstream.resubmits.inc({ channel: attempt.channelId, how: 'kept' });
  ctx.log.info({ taskId: attempt.taskId, channel: attempt.channelId, upstreamId: kept.upstreamId }, 'upstream id kept in the job data written; not submitted again');
  return running;
}

async function dropRender(
  ctx: WorkerContext,
  attempt: Attempt,
  adapter: ChannelAdapter | undefined,
  upstreamId: string,
  row: { upstreamId: string | null; status: AttemptStatus },
  finished: boolean,
): Promise<void> {
  const channel = attempt.channelId;
  ctx.log.warn(
    { taskId: attempt.taskId, channel, attemptNo: attempt.attemptNo, upstreamId, recorded: row.upstreamId, attemptStatus: row.status },
    'a render no attempt keeps (the attempt names another render or was closed); cancelling it upstream where possible',
  );
  if (finished || !adapter?.capabilities.cancel || !adapter.cancel) {
    ctx.metrics.upstream.extraRenders.inc({ channel, result: 'not_cancellable' });
    return;
  }
  try {
    await adapter.cancel(upstreamId);
    ctx.metrics.upstream.extraRenders.inc({ channel, result: 'cancelled' });
  } catch (err) {
    ctx.metrics.upstream.extraRenders.inc({ channel, result: 'cancel_failed' });
    ctx.log.warn({ taskId: attempt.taskId, channel, upstreamId, err: (err as Error).message }, 'cancel of a render no attempt keeps failed');
  }
}
