import { type IQueueBackend, Queue } from 'bullmq';
import { queuePrefix, RedisClient } from './connection';
import { type CallbackClaim, DeliverWebhookPayload, JOBS, QUEUES, RunTaskPayload } from './contracts';

export type TaskQueue = Queue<RunTaskPayload>;

export function createTaskQueue(connection: RedisClient, prefix: string): TaskQueue {
  return new Queue<RunTaskPayload>(QUEUES.tasks, {
    connection,
    prefix: queuePrefix(connection, prefix),
    defaultJobOptions: { removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 7 * 86400 } },
  });
}

/** jobId = taskId makes enqueueing idempotent: the reconciler may call it again safely. */
export async function enqueueTask(queue: TaskQueue, taskId: string, requestId?: string): Promise<void> {
  await queue.add(JOBS.runTask, { taskId, step: 'submit', transientErrors: 0, ...(requestId ? { requestId: requestId.slice(0, 200) } : {}) }, { jobId: taskId });
}

/**
 * The BullMQ priority of a task's job once its render runs upstream (its steps are polls and the
 * result's collection). Jobs without a priority (a new task's first step, added by enqueueTask) are
 * always taken before prioritized ones, so a new task's submit never queues behind the polls of
 * renders already running: with thousands of young renders the polls ask for more steps than a
 * worker can run, and in one FIFO list the last submits of a burst started a minute late (the
 * benchmark's 10,000 renders in flight peaked below 10,000). A running render loses nothing but
 * time to result by being asked about later; an unsent one has not started. Among themselves the
 * prioritized jobs keep their order (same priority: first in, first out). The price: while new
 * tasks keep a worker fully busy, running renders are not polled (bounded by the accounts'
 * in-progress limits, which bound the new tasks).
 */
export const RUNNING_TASK_PRIORITY = 1;

/** The part of a running BullMQ job that delayStep uses. */
export interface DelayableJob<T> {
  id?: string;
  data: T;
  priority: number;
  delay: number;
}

/**
 * Ends a running step: the job goes to the delayed set until `at`, with `data` as its new data and,
 * when given, `priority` (a poll's RUNNING_TASK_PRIORITY), in one Redis script. It was three:
 * job.changePriority (once per task), job.updateData and job.moveToDelayed, a round trip and a
 * socket write each, the last two on every poll step of every render in flight. BullMQ's moveToDelayed
 * script takes the job's hash fields to write with it (its own retries write the failed reason
 * that way, Job.moveToFailed); the job is active and locked by `token`, so writing the `priority`
 * field is all changePriority does to it (changePriority-7.lua: the job is in neither the wait
 * list nor the prioritized set), and a promoted job's priority is read from that field
 * (promoteDelayedJobs, promote-9.lua). The job's backend is not part of Job's typed surface, hence
 * the cast; packages/queue/test/delay-step.test.ts reads the job back from Redis, so an upgrade
 * that changes this fails there.
 */
export async function delayStep<T>(job: DelayableJob<T>, at: number, token: string | undefined, data: T, priority?: number): Promise<void> {
  if (!job.id) throw new Error('delayStep: the job has no id');
  const backend = (job as unknown as { backend: Pick<IQueueBackend, 'moveToDelayed'> }).backend;
  const now = Date.now();
  const delay = Math.max(0, at - now);
  const fieldsToUpdate: Record<string, string | number> = { data: JSON.stringify(data) };
  if (priority !== undefined && priority !== job.priority) fieldsToUpdate.priority = priority;
  await backend.moveToDelayed(job.id, now, delay, token, { skipAttempt: true, fieldsToUpdate });
  job.data = data;
  if (priority !== undefined) job.priority = priority;
  job.delay = delay;
}

/**
 * Runs a task's job now instead of at its next scheduled step (an upstream callback said the render
 * moved). A job waiting in the delayed set is promoted. A job that is running a step right now
 * cannot be: its step may already have read the upstream as still running, and would then sleep a
 * whole poll interval with the callback lost (most callbacks of short renders came in
 * while the poll step ran). So the wake is written down (a flag key, kept a minute) and the
 * running step's end takes it (takeWake) and runs the job again at once. A missing job is left
 * alone (the reconciler re-creates lost jobs).
 * Ordering: the check and the flag are one script (wakeCheck), so a job is either found delayed
 * (and promoted here) or flagged while it is not; the worker moves it to delayed, then takes the
 * flag. Whichever way the two interleave, one of them finds the job delayed with the flag set.
 * The check and BullMQ's promote are sent together, one round trip whether the job is delayed (an
 * upstream callback between two polls) or not (an answers-at-once submit: the worker holds the
 * render's step when its webhook comes). On one connection (the gateway's queue uses its command
 * connection) Redis runs the check first, so a delayed job is promoted and not flagged, and a job
 * that is not delayed is flagged and its promote fails. Were they to run the other way round, a
 * promoted job would also be flagged: one poll more, never a wake lost. It was a job read, a flag
 * write, the promote and a flag delete, then the check and a promote one after the other
 * (docs/benchmark.md, "Answers at once" and "Time to result").
 * `claim`: the result files the callback says the render finished with; the check writes them into
 * the data of a job it finds delayed (the job's `claim`, contracts.ts), so the step it promotes can
 * start their downloads beside its status read. A job that is not delayed gets none: its running
 * step rewrites the data at its end, and the flag's poll reads the upstream as always.
 */
export async function wakeTask(queue: TaskQueue, redis: WakeRedis, taskId: string, claim?: CallbackClaim): Promise<boolean> {
  const key = wakeKey(queue, taskId);
  const checked = redis.wakeCheck(queue.toKey(taskId), queue.keys.delayed, key, taskId, WAKE_FLAG_MS, claim ? JSON.stringify(claim) : '');
  const promoted = queue.backend.promote(taskId).then(
    () => true,
    () => false, // not in the delayed set (waiting, running, finished or gone)
  );
  const [found, moved] = await Promise.all([checked, promoted]);
  if (moved || found !== WAKE_DELAYED) return moved; // promoted, or no job, or flagged: its step's end takes the wake
  // Delayed at the check, yet not promoted: the promote ran first, while the job was not delayed
  // yet, or the job left the delayed set in between.
  try {
    await queue.backend.promote(taskId);
    return true;
  } catch {
    // It left the delayed set (its delay ran out, or another wake promoted it): it runs, or is
    // about to; the flag covers a step that had read the upstream before the callback came.
    await redis.set(key, '1', 'PX', WAKE_FLAG_MS);
    return false;
  }
}

/** The plain command connection of the process (the gateway's or the worker's), same Redis as the queue. */
export interface WakeFlags {
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
  del(key: string): Promise<number>;
}

/**
 * KEYS: the job's hash, the queue's delayed set, the wake flag; ARGV: job id, flag lifetime (ms),
 * the claim as JSON or ''. 0: no such job. 1: delayed (the caller promotes it; a claim is written
 * into the job's data first). 2: not delayed (running, waiting or finished): the flag is set for
 * its step's end. On a cluster the three keys share the queue prefix's hash tag (connection.ts
 * queuePrefix), so the script may touch them together. The data is rewritten through cjson (Redis's
 * own): our payloads hold strings, integers and objects, which it gives back as they were; data
 * it cannot decode is left alone (the step then runs without the claim).
 */
const WAKE_CHECK = `
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
if redis.call("ZSCORE", KEYS[2], ARGV[1]) then
  if ARGV[3] ~= "" then
    local ok, data = pcall(cjson.decode, redis.call("HGET", KEYS[1], "data") or "")
    if ok and type(data) == "table" then
      data["claim"] = cjson.decode(ARGV[3])
      redis.call("HSET", KEYS[1], "data", cjson.encode(data))
    end
  end
  return 1
end
redis.call("SET", KEYS[3], "1", "PX", ARGV[2])
return 2`;
const WAKE_DELAYED = 1;

export type WakeRedis = RedisClient & {
  wakeCheck(jobKey: string, delayedKey: string, flagKey: string, jobId: string, flagMs: number, claim: string): Promise<number>;
};

/**
 * The connection with the wake script defined. Call it where the connection is made, before its
 * first command (apps/gateway redis-scripts.ts): ioredis drops a command defined while an
 * auto-pipeline is being filled (redis/ioredis#1931).
 */
export function wakeRedis(redis: RedisClient): WakeRedis {
  const r = redis as WakeRedis;
  if (typeof r.wakeCheck !== 'function') r.defineCommand('wakeCheck', { numberOfKeys: 3, lua: WAKE_CHECK });
  return r;
}

const WAKE_FLAG_MS = 60_000;
const wakeKey = (queue: TaskQueue, taskId: string) => `${queue.opts.prefix ?? 'bull'}:wake:${taskId}`;

/**
 * Called by the worker right after a step moved the job to the delayed set: when a wake came in
 * while the step ran, the job is promoted now. True when it was.
 */
export async function takeWake(queue: TaskQueue, redis: WakeFlags, job: { id?: string; promote(): Promise<void> }): Promise<boolean> {
  if (!job.id) return false;
  if ((await redis.del(wakeKey(queue, job.id))) === 0) return false;
  try {
    await job.promote();
    return true;
  } catch {
    // Already promoted by the callback itself, or running again: the wake is delivered either way.
    return false;
  }
}

export type WebhookQueue = Queue<DeliverWebhookPayload>;

export function createWebhookQueue(connection: RedisClient, prefix: string): WebhookQueue {
  // Finished jobs are removed at once: a re-sent delivery gets a new job under the same jobId.
  return new Queue<DeliverWebhookPayload>(QUEUES.webhooks, {
    connection,
    prefix: queuePrefix(connection, prefix),
    defaultJobOptions: { removeOnComplete: true, removeOnFail: { age: 7 * 86400 } },
  });
}

/**
 * jobId = deliveryId: enqueueing a delivery that already has a live job is a no-op, so the settle
 * path, the reconciler and a resend may all call it. `delayMs` defers the first run.
 */
export async function enqueueDelivery(queue: WebhookQueue, deliveryId: string, delayMs = 0): Promise<void> {
  await queue.add(JOBS.deliverWebhook, { deliveryId }, { jobId: deliveryId, delay: Math.max(0, delayMs) });
}
