// What one step of a task works with, and what a step decides.
import type { TaskSpec } from '@mediagen/catalog';
import type { PollHint, TaskStep } from '@mediagen/queue';
import type { ChannelAdapter, OpenedResult, RenderStatus } from '@mediagen/providers';
import type { Attempt } from '@mediagen/db';
import type { WorkerContext } from './context';
import { slotWaitMs } from './schedule';

export interface TaskRow {
  id: string;
  accountId: string;
  status: string;
  model: string;
  progress: number;
  deadlineAt: Date;
}

/** Downloads of claimed result files by URL, each opened (headers checked, first bytes sniffed), not read (early-status.ts). */
export type ClaimedDownloads = Map<string, Promise<OpenedResult>>;

/** A status read started before the rows were loaded, for the attempt `hint` names (early-status.ts). */
export interface EarlyStatus {
  hint: PollHint;
  /** Its failure is handled (never unhandled); awaiting it rethrows the adapter's error. */
  status: Promise<RenderStatus>;
  /** Downloads of the files an upstream callback claimed, started beside the read (the job's `claim`). */
  claimed?: ClaimedDownloads;
}

export interface TaskRun {
  ctx: WorkerContext;
  task: TaskRow;
  spec: TaskSpec;
  outputSeconds: number | null;
  /** Consecutive transient errors of the current step (job payload), for backoff. */
  transientErrors: number;
  /** The channel whose slot this step acquired already (a new attempt): the submit need not ask again. */
  slotHeldOn?: string;
  /** The status read this poll step started beside loadTask from the job's hint (early-status.ts), until a poll step takes it. */
  early?: EarlyStatus;
}

/**
 * Run the job again at `at`, at `step`; null means the task is settled and the job is done. `poll`:
 * the running attempt that step will read, kept in the job's data (early-status.ts).
 */
export type Next = { at: number; step: TaskStep; transientErrors: number; poll?: PollHint } | null;

export type StepOutcome =
  | { kind: 'next'; next: Next }
  /** The attempt failed on its channel: the caller moves on to the next channel. */
  | { kind: 'next-channel'; attempt: Attempt };

export interface StepInput {
  run: TaskRun;
  attempt: Attempt;
  adapter: ChannelAdapter;
}

/** Run `step` again after `delayMs`. */
export const after = (step: TaskStep, delayMs: number, transientErrors = 0, poll?: PollHint): Next => ({ at: Date.now() + delayMs, step, transientErrors, ...(poll ? { poll } : {}) });

export const wait = (step: TaskStep, delayMs: number, transientErrors = 0, poll?: PollHint): StepOutcome => ({ kind: 'next', next: after(step, delayMs, transientErrors, poll) });

/** The hint of a poll of `attempt`: only a running attempt with its upstream id has a status to read. */
export const pollHintOf = (run: Pick<TaskRun, 'task' | 'spec'>, attempt: Attempt): PollHint | undefined =>
  attempt.status === 'running' && attempt.upstreamId
    ? { attemptId: attempt.id, channelId: attempt.channelId, upstreamId: attempt.upstreamId, accountId: run.task.accountId, type: run.spec.type }
    : undefined;

export const settled: StepOutcome = { kind: 'next', next: null };

/** No free slot on the channel: the submit comes back in a while, its transient count kept. */
export const slotWait = (run: Pick<TaskRun, 'transientErrors'>): Next => after('submit', slotWaitMs(), run.transientErrors);
