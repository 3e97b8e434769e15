// mediagen quote video|image "<prompt>" [the options of `mediagen video` / `mediagen image` that
// make the body] [--json]: what that generate call would cost; nothing is created or charged.
import { parseArgs } from 'node:util';
import type { Quote } from '../../types';
import type { Context } from '../context';
import { cents } from '../context';
import { EXIT, UsageError } from '../exit-codes';
import * as image from './image';
import * as video from './video';

export const usage = 'mediagen quote video|image "<prompt>" [--model <id>] [the body options of mediagen video / image] [--max-cost <cents>] [--json]';

export async function run(ctx: Context, args: string[]): Promise<number> {
  const [kind, ...rest] = args;
  if (kind !== 'video' && kind !== 'image') throw new UsageError(`Say what to price, video or image: ${usage}`);
  const options = { ...(kind === 'video' ? video.bodyOptions : image.bodyOptions), json: { type: 'boolean', default: false } } as const;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options });
  if (positionals.length !== 1) throw new UsageError(`Give the prompt as one quoted argument: ${usage}`);
  const v = values as Record<string, string | string[] | boolean | undefined>;
  const maxCostCents = cents('max-cost', v['max-cost'] as string | undefined);
  const mg = ctx.client();
  const q: Quote =
    kind === 'video'
      ? await mg.videos.quote(video.videoParams(v as never, positionals[0]), { maxCostCents, signal: ctx.signal() })
      : await mg.images.quote(image.imageParams(v as never, positionals[0]), { maxCostCents, signal: ctx.signal() });
  if (v.json) ctx.io.out(JSON.stringify(q));
  else {
    const seconds = q.billedSeconds !== undefined ? ` for ${q.billedSeconds} s billed` : '';
    ctx.io.out(`${q.model}  ${q.costCents} cents (${(q.costCents / 100).toFixed(2)} USD)${seconds}; nothing was charged`);
  }
  return EXIT.ok;
}
