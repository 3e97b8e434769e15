// What one step of a task works with, and what a step decides.
import type { TaskSpec } from '@mediagen/catalog';
import type { TaskStep } from '@mediagen/queue';
import type { ChannelAdapter } from '@mediagen/providers';
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

export interface TaskRun {
  ctx: WorkerContext;
  task: TaskRow;
  spec: TaskSpec;
  outputSeconds: number | null;
  /** Consecutive transient errors of the current step (job payload), for backoff. */
  transientErrors: number;
  /** The channel whose slot this step acquired already (a new attempt): the submit need not ask again. */
  slotHeldOn?: string;
}

/** Run the job again at `at`, at `step`; null means the task is settled and the job is done. */
export type Next = { at: number; step: TaskStep; transientErrors: number } | null;

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
export const after = (step: TaskStep, delayMs: number, transientErrors = 0): Next => ({ at: Date.now() + delayMs, step, transientErrors });

export const wait = (step: TaskStep, delayMs: number, transientErrors = 0): StepOutcome => ({ kind: 'next', next: after(step, delayMs, transientErrors) });

export const settled: StepOutcome = { kind: 'next', next: null };

/** No free slot on the channel: the submit comes back in a while, its transient count kept. */
export const slotWait = (run: Pick<TaskRun, 'transientErrors'>): Next => after('submit', slotWaitMs(), run.transientErrors);
