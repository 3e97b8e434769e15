// The holder's tasks: a list with filters (status, model, time), image thumbnails and a video
// player for results, and a task page with what the holder may see (submitted, status changes,
// failure code and message, charge and refund): never channel names, upstream ids or keys.
import { Router } from 'express';
import { TASK_STATUSES as STATUSES } from '@mediagen/catalog';
import { findHolderTask, listTasks } from '@mediagen/db';
import { ConsoleError, decodePageCursor, encodePageCursor, Render } from '@mediagen/console';
import type { AccountDeps } from '../deps';
import { accountOf } from '../holder-session';

const PAGE = 30;
const text = (v: unknown, max = 100) => (typeof v === 'string' ? v.trim().slice(0, max) : '');

/** A date (YYYY-MM-DD, UTC day) from a filter, or undefined; anything else is a clear 422. */
function day(v: string, end: boolean): Date | undefined {
  if (!v) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`))) throw new ConsoleError(422, 'Dates are written as 2026-11-23.');
  const d = new Date(`${v}T00:00:00Z`);
  return end ? new Date(d.getTime() + 86_400_000) : d;
}

export function taskRoutes(deps: AccountDeps, render: Render): Router {
  const r = Router();

  r.get('/tasks', async (req, res) => {
    const f = { status: text(req.query.status, 20), model: text(req.query.model), from: text(req.query.from, 10), to: text(req.query.to, 10) };
    if (f.status && !STATUSES.includes(f.status as never)) throw new ConsoleError(422, `Status is one of ${STATUSES.join(', ')}.`);
    const page = await listTasks(deps.db, {
      accountId: accountOf(res),
      status: (f.status || undefined) as (typeof STATUSES)[number] | undefined,
      model: f.model || undefined,
      createdFrom: day(f.from, false),
      createdTo: day(f.to, true),
      before: decodePageCursor(req.query.cursor),
      limit: PAGE,
    });
    render(res, 'tasks', { title: 'Tasks', f, statuses: STATUSES, tasks: page.rows, nextCursor: encodePageCursor(page.next) });
  });

  r.get('/tasks/:id', async (req, res) => {
    const task = await findHolderTask(deps.db, accountOf(res), String(req.params.id).slice(0, 100));
    if (!task) throw new ConsoleError(404, 'No such task in your account. Find it on the Tasks page.');
    render(res, 'task', { title: 'Task', task });
  });

  return r;
}
