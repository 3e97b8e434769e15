// mediagen task <id> [--type video|image] [--wait] [-o file] [--timeout S] [--json]: one task's state.
import { parseArgs } from 'node:util';
import type { TaskType } from '../../types';
import type { Context } from '../context';
import { positive } from '../context';
import { UsageError } from '../exit-codes';
import { finishTask } from '../finish-task';

export const usage = 'mediagen task <taskId> [--type video|image] [--wait] [-o file] [--timeout <s>] [--json]';

export async function run(ctx: Context, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      type: { type: 'string' },
      wait: { type: 'boolean', default: false },
      output: { type: 'string', short: 'o' },
      timeout: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError(`Give one task id: ${usage}`);
  if (values.type !== undefined && values.type !== 'video' && values.type !== 'image') throw new UsageError('--type must be video or image');
  const mg = ctx.client();
  const taskId = positionals[0];
  const type = (values.type as TaskType | undefined) ?? (await mg.tasks.get(taskId)).type;
  return finishTask(ctx, mg, { taskId, type, wait: values.wait || Boolean(values.output), output: values.output, json: values.json, timeoutSeconds: positive('timeout', values.timeout) });
}
