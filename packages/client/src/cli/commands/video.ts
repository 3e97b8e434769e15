// mediagen video "<prompt>" [--model video-a-h3] [--duration 5] [--ratio 16:9] [--resolution 768p]
//   [--max-cost CENTS] [--optimize-prompt] [--wait] [-o fox.mp4] [--timeout S] [--idempotency-key K] [--json]
// --json prints the task with `effectivePrompt`, the prompt sent upstream (optimize_prompt's rewrite).
// Without --wait it prints the task id and returns; -o implies --wait.
import { parseArgs } from 'node:util';
import type { VideoGenerateParams } from '../../types';
import type { Context } from '../context';
import { cents, positive } from '../context';
import { UsageError } from '../exit-codes';
import { finishTask } from '../finish-task';

export const usage =
  'mediagen video "<prompt>" [--model video-a-h3] [--duration <s>] [--ratio 16:9] [--resolution 768p] [--max-cost <cents>] [--optimize-prompt] [--wait] [-o file.mp4] [--timeout <s>] [--json]';

/** The options that make the generate body (shared with `mediagen quote video`). */
export const bodyOptions = {
  model: { type: 'string', default: 'video-a-h3' },
  duration: { type: 'string' },
  ratio: { type: 'string' },
  resolution: { type: 'string' },
  'max-cost': { type: 'string' },
} as const;

export function videoParams(values: { model?: string; duration?: string; ratio?: string; resolution?: string }, prompt: string): VideoGenerateParams {
  const duration = positive('duration', values.duration);
  if (duration !== undefined && !Number.isInteger(duration)) throw new UsageError('--duration must be a whole number of seconds');
  return {
    model: values.model,
    prompt,
    ...(duration !== undefined ? { duration } : {}),
    ...(values.ratio ? { ratio: values.ratio } : {}),
    ...(values.resolution ? { resolution: values.resolution } : {}),
  } as VideoGenerateParams;
}

export async function run(ctx: Context, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...bodyOptions,
      'optimize-prompt': { type: 'boolean', default: false },
      wait: { type: 'boolean', default: false },
      output: { type: 'string', short: 'o' },
      timeout: { type: 'string' },
      'idempotency-key': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError(`Give the prompt as one quoted argument: ${usage}`);
  const params = { ...videoParams(values, positionals[0]), ...(values['optimize-prompt'] ? { optimize_prompt: true } : {}) } as VideoGenerateParams;
  const mg = ctx.client();
  const sub = await mg.videos.generate(params, { idempotencyKey: values['idempotency-key'], maxCostCents: cents('max-cost', values['max-cost']), signal: ctx.signal() });
  return finishTask(ctx, mg, {
    taskId: sub.taskId,
    type: 'video',
    task: values.wait || values.output ? undefined : { status: sub.status, type: 'video' },
    wait: values.wait || Boolean(values.output),
    output: values.output,
    json: values.json,
    timeoutSeconds: positive('timeout', values.timeout),
    extra: { costCents: sub.costCents, ...(sub.idempotentReplay ? { idempotentReplay: true } : {}) },
  });
}
