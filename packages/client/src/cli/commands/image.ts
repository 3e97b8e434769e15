// mediagen image "<prompt>" [--model image-b-2.5] [--ratio 16:9] [--resolution 1k] [--image URL]...
//   [--max-cost CENTS] [-o fox.png] [--no-wait] [--timeout S] [--idempotency-key K] [--json]
// Waits for the image by default (most take seconds); -o saves it.
import { parseArgs } from 'node:util';
import type { ImageGenerateParams } from '../../types';
import type { Context } from '../context';
import { cents, positive } from '../context';
import { UsageError } from '../exit-codes';
import { finishTask } from '../finish-task';

export const usage =
  'mediagen image "<prompt>" [--model image-b-2.5] [--ratio 16:9] [--resolution 1k] [--image <url>]... [--max-cost <cents>] [-o file.png] [--no-wait] [--timeout <s>] [--json]';

/** The options that make the generate body (shared with `mediagen quote image`). */
export const bodyOptions = {
  model: { type: 'string', default: 'image-b-2.5' },
  ratio: { type: 'string' },
  resolution: { type: 'string' },
  image: { type: 'string', multiple: true },
  'max-cost': { type: 'string' },
} as const;

export function imageParams(values: { model?: string; ratio?: string; resolution?: string; image?: string[] }, prompt: string): ImageGenerateParams {
  return {
    model: values.model,
    prompt,
    ...(values.ratio ? { ratio: values.ratio } : {}),
    ...(values.resolution ? { resolution: values.resolution } : {}),
    ...(values.image?.length ? { images: values.image } : {}),
  } as ImageGenerateParams;
}

export async function run(ctx: Context, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...bodyOptions,
      output: { type: 'string', short: 'o' },
      'no-wait': { type: 'boolean', default: false },
      timeout: { type: 'string' },
      'idempotency-key': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError(`Give the prompt as one quoted argument: ${usage}`);
  const params = imageParams(values, positionals[0]);
  const mg = ctx.client();
  const sub = await mg.images.generate(params, { idempotencyKey: values['idempotency-key'], maxCostCents: cents('max-cost', values['max-cost']), signal: ctx.signal() });
  return finishTask(ctx, mg, {
    taskId: sub.taskId,
    type: 'image',
    task: sub.status === 'completed' ? { status: sub.status, resultUrls: sub.resultUrls, type: 'image' } : undefined,
    wait: !values['no-wait'],
    output: values.output,
    json: values.json,
    timeoutSeconds: positive('timeout', values.timeout),
    extra: { costCents: sub.costCents, ...(sub.idempotentReplay ? { idempotentReplay: true } : {}) },
  });
}
