// mediagen tasks [--status S] [--type video|image] [--model M] [--limit N] [--all] [--json]:
// the account's tasks, newest first (one page unless --all).
import { parseArgs } from 'node:util';
import type { TaskListItem, TaskListParams } from '../../types';
import type { Context } from '../context';
import { positive } from '../context';
import { UsageError } from '../exit-codes';
import { EXIT } from '../exit-codes';

export const usage = 'mediagen tasks [--status pending|processing|completed|failed] [--type video|image] [--model <id>] [--limit <n>] [--all] [--json]';

export async function run(ctx: Context, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      status: { type: 'string' },
      type: { type: 'string' },
      model: { type: 'string' },
      limit: { type: 'string' },
      all: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}": ${usage}`);
  const mg = ctx.client();
  const params = { status: values.status, type: values.type, model: values.model, limit: positive('limit', values.limit) } as TaskListParams;
  const items: TaskListItem[] = [];
  let nextCursor: string | null = null;
  for await (const page of mg.tasks.list(params, { signal: ctx.signal() })) {
    items.push(...page.data);
    nextCursor = page.nextCursor;
    if (!values.all) break;
  }
  if (values.json) {
    ctx.io.out(JSON.stringify({ data: items, nextCursor }));
    return EXIT.ok;
  }
  for (const t of items) ctx.io.out([t.taskId, t.type, t.model, t.status + (t.status === 'failed' ? `:${t.errorCode}` : ''), t.createdAt].join('  '));
  if (!items.length) ctx.io.out('no tasks');
  if (nextCursor && !values.all) ctx.io.out('(more: --all)');
  return EXIT.ok;
}
