// mediagen models [--json]: the models this service sells (it may sell a subset of the catalog),
// with their tiers or variants.
import { parseArgs } from 'node:util';
import type { Context } from '../context';
import { EXIT } from '../exit-codes';

export const usage = 'mediagen models [--json]';

export async function run(ctx: Context, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  const list = await ctx.client().models({ signal: ctx.signal() });
  if (values.json) ctx.io.out(JSON.stringify(list));
  else for (const m of list.models) ctx.io.out([m.id, m.type, ...(m.tiers ? [`tiers: ${m.tiers.join(', ')}`] : []), ...(m.variants ? [`variants: ${m.variants.join(', ')}`] : [])].join('  '));
  return EXIT.ok;
}
