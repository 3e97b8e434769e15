// mediagen balance [--json]: the account's balance and where to top it up.
import { parseArgs } from 'node:util';
import type { Context } from '../context';
import { EXIT } from '../exit-codes';

export const usage = 'mediagen balance [--json]';

export async function run(ctx: Context, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  const b = await ctx.client().balance({ signal: ctx.signal() });
  if (values.json) ctx.io.out(JSON.stringify(b));
  else ctx.io.out(`${(b.balanceCents / 100).toFixed(2)} USD (${b.balanceCents} cents); top up: ${b.topUpUrl}`);
  return EXIT.ok;
}
