// The end every task command shares: wait for the task when asked (progress shown), save its file
// with -o, print it (human text or --json) and choose the exit code by outcome.
import type { MediaGen } from '../client';
import type { Task, TaskType } from '../types';
import type { Context } from './context';
import { EXIT } from './exit-codes';
import { startProgress } from './progress';
import { saveResult } from './save';

export interface FinishOptions {
  taskId: string;
  type: TaskType;
  /** What is known already (the submit answer, or nothing). */
  task?: Task | { status: string; resultUrls?: string[] };
  wait: boolean;
  output?: string;
  json: boolean;
  timeoutSeconds?: number;
  extra?: Record<string, unknown>;
}

export async function finishTask(ctx: Context, mg: MediaGen, o: FinishOptions): Promise<number> {
  let task = o.task as Task | undefined;
  const settled = (t?: { status: string }) => t?.status === 'completed' || t?.status === 'failed';
  if (o.wait && !settled(task)) {
    const progress = startProgress(ctx.io, o.taskId, o.json);
    try {
      task = await mg.tasks.wait(o.taskId, { type: o.type, signal: ctx.signal(o.timeoutSeconds), onProgress: (t) => progress.update(t) });
    } catch (err) {
      if (!o.json) ctx.io.err(`The task goes on; resume with: mediagen task ${o.taskId} --wait`);
      throw err;
    } finally {
      progress.stop();
    }
  } else if (!task) {
    task = await mg.tasks.get(o.taskId, { type: o.type });
  }
  let saved: { file: string; bytes: number } | undefined;
  if (o.output && task.status === 'completed' && task.resultUrls?.length) {
    saved = { file: o.output, bytes: await saveResult(task.resultUrls[0], o.output, ctx.signal()) };
  }
  if (o.json) {
    // The prompt that went upstream (optimize_prompt's rewrite); left out when the service has no such read.
    const effectivePrompt = await mg.tasks.retrieve(o.taskId, { signal: ctx.signal() }).then((t) => t.effectivePrompt, () => undefined);
    ctx.io.out(JSON.stringify({ taskId: o.taskId, ...o.extra, ...task, ...(effectivePrompt !== undefined ? { effectivePrompt } : {}), ...(saved ? { file: saved.file } : {}) }));
  } else {
    ctx.io.out(`${o.taskId}  ${task.type ?? o.type}  ${task.status}${task.progress !== undefined ? ` ${task.progress}%` : ''}`);
    if (task.status === 'failed') ctx.io.out(`failed: ${task.errorCode}${task.retryable ? ' (retryable)' : ''}: ${task.errorMessage ?? ''} (refunded)`);
    for (const url of task.resultUrls ?? []) ctx.io.out(url);
    if (task.status === 'completed' && 'expiresAt' in task && task.expiresAt) ctx.io.out(`expires ${task.expiresAt}`);
    if (saved) ctx.io.out(`saved ${saved.file} (${saved.bytes} bytes)`);
    else if (o.output && task.status !== 'failed' && !o.wait) ctx.io.out(`not finished yet: nothing saved; run mediagen task ${o.taskId} --wait -o ${o.output}`);
  }
  return task.status === 'failed' ? EXIT.taskFailed : EXIT.ok;
}
