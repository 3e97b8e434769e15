// mediagen cancel <id> [--type video|image] [--json]: cancels a task (extension); a task not yet
// rendering ends `failed` with errorCode `cancelled` and is refunded.
import { parseArgs } from 'node:util';
import type { TaskType } from '../../types';
import type { Context } from '../context';
import { EXIT, UsageError } from '../exit-codes';

export const usage = 'mediagen cancel <taskId> [--type video|image] [--json]';

export async function run(ctx: Context, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { type: { type: 'string' }, json: { type: 'boolean', default: false } } });
  if (positionals.length !== 1) throw new UsageError(`Give one task id: ${usage}`);
  if (values.type !== undefined && values.type !== 'video' && values.type !== 'image') throw new UsageError('--type must be video or image');
  const taskId = positionals[0];
  const task = await ctx.client().tasks.cancel(taskId, { type: values.type as TaskType | undefined, signal: ctx.signal() });
  if (values.json) ctx.io.out(JSON.stringify(task));
  else ctx.io.out(task.status === 'failed' ? `${taskId}  cancelled (refunded)` : `${taskId}  ${task.status}: cancelling at the provider; see mediagen task ${taskId} --wait`);
  return EXIT.ok;
}
