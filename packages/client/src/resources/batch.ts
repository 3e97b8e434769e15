// mg.batch(items, { concurrency }): many generate calls, each submitted and waited for, with at
// most `concurrency` tasks in progress at once (default: the service's default in-progress limit,
// lowered to the account's own limit when a 429 too_many_tasks names it). 429s are waited out and
// the same item retried, never dropped. Each item's Idempotency-Key is derived from the item itself
// (its kind, its body, and which repeat of an identical item it is), so running the same batch
// again after a crash replays the tasks already created instead of creating and charging them twice;
// the Python SDK derives the same keys.
import { createHash } from 'node:crypto';
import { ApiError, RateLimitError } from '../errors';
import { sleep } from '../http';
import type { ImageGenerateParams, Task, TaskType, VideoGenerateParams } from '../types';
import type { Images, Videos } from './generate';
import type { Tasks } from './tasks';

export type BatchItem = VideoGenerateParams | ImageGenerateParams;

export interface BatchOutcome {
  index: number;
  item: BatchItem;
  /** completed / failed: the task ended so (failed tasks are refunded); refused: the submit was refused. */
  status: 'completed' | 'failed' | 'refused';
  taskId?: string;
  task?: Task;
  /** The refusal (400, 402, 422 ...) when status is refused. */
  error?: ApiError | Error;
  idempotencyKey: string;
}

export interface BatchProgress {
  total: number;
  done: number;
  completed: number;
  failed: number;
  refused: number;
  inFlight: number;
}

export interface BatchOptions {
  /** Tasks in progress at most (default 20, the service's default limit; lowered to the account's limit when a 429 names it). */
  concurrency?: number;
  /** Namespace of the derived keys: a different prefix runs the same items again as new tasks. */
  keyPrefix?: string;
  onProgress?: (p: BatchProgress, outcome?: BatchOutcome) => void;
  signal?: AbortSignal;
}

export const DEFAULT_BATCH_CONCURRENCY = 20;

/** JSON with object keys sorted at every level: the same item always gives the same text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v as object)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

export const kindOf = (item: BatchItem): TaskType => (String(item.model).startsWith('image-') ? 'image' : 'video');

/** Each item's key: sha256 of prefix, kind, canonical body and the repeat number of identical items. */
export function batchKeys(items: readonly BatchItem[], keyPrefix = ''): string[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const text = `${kindOf(item)}\n${canonicalJson(item)}`;
    const n = seen.get(text) ?? 0;
    seen.set(text, n + 1);
    const hash = createHash('sha256').update(`${keyPrefix}\n${text}\n${n}`).digest('hex');
    return `batch-${hash.slice(0, 48)}`;
  });
}

export async function runBatch(
  deps: { videos: Videos; images: Images; tasks: Tasks },
  items: readonly BatchItem[],
  opts: BatchOptions = {},
): Promise<BatchOutcome[]> {
  const keys = batchKeys(items, opts.keyPrefix);
  const outcomes: BatchOutcome[] = new Array(items.length);
  const progress: BatchProgress = { total: items.length, done: 0, completed: 0, failed: 0, refused: 0, inFlight: 0 };
  let limit = Math.max(1, Math.floor(opts.concurrency ?? DEFAULT_BATCH_CONCURRENCY));
  let next = 0;
  opts.onProgress?.({ ...progress });

  const finish = (o: BatchOutcome) => {
    outcomes[o.index] = o;
    progress.done++;
    progress[o.status]++;
    opts.onProgress?.({ ...progress }, o);
  };

  const runOne = async (index: number): Promise<void> => {
    const item = items[index];
    const idempotencyKey = keys[index];
    const kind = kindOf(item);
    for (;;) {
      try {
        const sub =
          kind === 'image'
            ? await deps.images.generate(item as ImageGenerateParams, { idempotencyKey, signal: opts.signal })
            : await deps.videos.generate(item as VideoGenerateParams, { idempotencyKey, signal: opts.signal });
        progress.inFlight++;
        try {
          const task = await deps.tasks.wait(sub.taskId, { type: kind, signal: opts.signal });
          return finish({ index, item, status: task.status === 'completed' ? 'completed' : 'failed', taskId: sub.taskId, task, idempotencyKey });
        } finally {
          progress.inFlight--;
        }
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        if (err instanceof RateLimitError) {
          // At the account's in-progress limit (or the request rate): fewer at once, wait, same key again.
          const max = Number(err.body?.maxConcurrentTasks);
          if (err.code === 'too_many_tasks' && Number.isInteger(max) && max > 0) limit = Math.min(limit, max);
          await sleep((err.retryAfterSeconds ?? 5) * 1000, opts.signal);
          continue;
        }
        if (err instanceof ApiError && err.status < 500) return finish({ index, item, status: 'refused', error: err, idempotencyKey });
        throw err; // no answer or 5xx after the SDK's retries: stop; a re-run resumes with the same keys
      }
    }
  };

  // A pool whose size follows `limit`: a worker that finds more workers than the limit stops.
  let workers = 0;
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const spawn = () => {
      while (!failed && workers < limit && next < items.length) {
        const index = next++;
        workers++;
        runOne(index).then(
          () => {
            workers--;
            if (next >= items.length && workers === 0) resolve();
            else spawn();
          },
          (err) => {
            failed = true;
            reject(err);
          },
        );
      }
      if (items.length === 0) resolve();
    };
    spawn();
  });
  return outcomes;
}
