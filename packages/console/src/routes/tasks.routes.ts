// Tasks: search by id, account, status, model and creation time (keyset pages on the
// (filter, createdAt, id) indexes), and one task's timeline.
import { Router } from 'express';
import { TASK_STATUSES as STATUSES } from '@mediagen/catalog';
import { effectivePromptOf, findTaskWithAttempts, ledgerForTask, listTasks } from '@mediagen/db';
import type { ConsoleDeps } from '../deps';
import type { Render } from '../render';
import { ConsoleError } from '../console-error';
import { decodePageCursor, encodePageCursor } from '../page-cursor';
import { taskTimeline } from '../timeline';

const PAGE = 50;

const text = (v: unknown, max = 200) => (typeof v === 'string' ? v.trim().slice(0, max) : '');
/** A datetime-local value sent with the browser's UTC offset in minutes (console.js fills `tz`). */
function instant(v: string, tzOffsetMin: number): Date | undefined {
  if (!v) return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}))?$/.exec(v);
  if (!m) throw new ConsoleError(422, 'Times are dates such as 2026-11-23 or 2026-11-23T14:30.');
  const utc = Date.parse(`${m[1]}T${m[2] ?? '00:00'}:00.000Z`);
  return new Date(utc + tzOffsetMin * 60_000);
}

export function taskRoutes(deps: ConsoleDeps, render: Render): Router {
  const r = Router();

  r.get('/tasks', async (req, res) => {
    const f = {
      id: text(req.query.id),
      account: text(req.query.account),
      status: text(req.query.status),
      model: text(req.query.model, 100),
      from: text(req.query.from, 20),
      to: text(req.query.to, 20),
      tz: text(req.query.tz, 6),
    };
    if (f.id) return res.redirect(303, `/console/tasks/${encodeURIComponent(f.id)}`);
    if (f.status && !STATUSES.includes(f.status as never)) throw new ConsoleError(422, `Status is one of ${STATUSES.join(', ')}.`);
    const tz = Number.isInteger(Number(f.tz)) && Math.abs(Number(f.tz)) <= 900 ? Number(f.tz) : 0;
    const page = await listTasks(deps.db, {
      accountId: f.account || undefined,
      status: (f.status || undefined) as (typeof STATUSES)[number] | undefined,
      model: f.model || undefined,
      createdFrom: instant(f.from, tz),
      createdTo: instant(f.to, tz),
      before: decodePageCursor(req.query.cursor),
      limit: PAGE,
    });
    render(res, 'tasks', { title: 'Tasks', f, statuses: STATUSES, tasks: page.rows, nextCursor: encodePageCursor(page.next) });
  });

  r.get('/tasks/:id', async (req, res) => {
    const id = String(req.params.id);
    const task = await findTaskWithAttempts(deps.db, id);
    if (!task) throw new ConsoleError(404, `No task ${id}. Check the id, or search the Tasks page by account.`);
    const ledger = await ledgerForTask(deps.db, id);
    // optimize_prompt: the prompt that went upstream, and for operators whether the optimizer wrote it.
    const prompt = { effective: effectivePromptOf(task), asked: (task.params as { optimizePrompt?: unknown })?.optimizePrompt === true };
    render(res, 'task', { title: `Task ${id}`, task, prompt, events: taskTimeline(task, ledger), params: JSON.stringify(task.params, null, 2) });
  });

  return r;
}
