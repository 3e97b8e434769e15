// Server-Sent Events of task progress (GET /api/tasks/{taskId}/events, docs/api.md): one hub per
// gateway process holds every open stream.
//   - Terminal events come from the task events this gateway already receives (packages/queue
//     pub/sub, services/task-events.ts), the moment a settlement is announced; the settled poll
//     entry the event carries is the terminal body, so most need no read.
//   - Status and progress changes: workers announce only settlements, so the hub reads the state
//     of every task its streams follow every SSE_REFRESH_MS, in one batched statement for all of
//     them (services/task-reads.ts), and sends what changed. A missed pub/sub message is caught
//     by the same read.
//   - Event ids order a task's states (pending 0, processing 1000 + progress, terminal 2000), so a
//     client resuming with Last-Event-ID is sent only a state after the one it saw, from any gateway.
//   - One heartbeat timer for all streams (a comment line every SSE_HEARTBEAT_MS).
//   - A stream whose unsent bytes pass SSE_BUFFER_BYTES (a client that does not read) is cut, so a
//     stalled client holds at most that much memory here.
import type express from 'express';
import type { SettledPollEntry } from '@mediagen/queue';
import { pollBody } from './task-view';
import type { OwnedTaskView, TaskReads } from './task-reads';
import type { GatewayCore } from '../core';

export const TERMINAL_EVENT_ID = 2000;

/** The event id of a task state: larger means later. */
export function stateId(body: { status: string; progress?: unknown }): number {
  if (body.status === 'completed' || body.status === 'failed') return TERMINAL_EVENT_ID;
  if (body.status === 'processing') return 1000 + Math.max(0, Math.min(99, Math.floor(Number(body.progress) || 0)));
  return 0;
}

/** Last-Event-ID as a state id, or -1 when absent or not one of ours. */
export function parseLastEventId(header: string | undefined): number {
  if (header === undefined || !/^\d{1,4}$/.test(header.trim())) return -1;
  const n = Number(header.trim());
  return n <= TERMINAL_EVENT_ID ? n : -1;
}

interface Stream {
  taskId: string;
  accountId: string;
  res: express.Response;
  /** The id of the last state sent (or that the client said it saw). */
  lastId: number;
  closed: boolean;
}

export class TaskStreams {
  private readonly byTask = new Map<string, Set<Stream>>();
  private readonly perAccount = new Map<string, number>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly refresh: NodeJS.Timeout;
  private open = 0;
  /** Streams cut because their client did not read (for the benchmark and tests). */
  cut = 0;

  constructor(
    private readonly deps: Pick<GatewayCore, 'config' | 'events' | 'log'>,
    private readonly reads: TaskReads,
  ) {
    const c = deps.config;
    deps.events.onTaskSettled((taskId, entry) => this.onSettled(taskId, entry));
    this.heartbeat = setInterval(() => this.forEach((s) => this.write(s, ': heartbeat\n\n')), c.SSE_HEARTBEAT_MS).unref();
    this.refresh = setInterval(() => this.refreshAll(), c.SSE_REFRESH_MS).unref();
  }

  get size(): number {
    return this.open;
  }

  /** Whether the account may open one more stream on this gateway. */
  hasRoom(accountId: string): boolean {
    return (this.perAccount.get(accountId) ?? 0) < this.deps.config.SSE_MAX_STREAMS_PER_ACCOUNT;
  }

  /**
   * Starts the stream of a task the account owns (checked by the caller), from its current state:
   * the state is sent unless the client saw it already (Last-Event-ID), a terminal state ends it.
   */
  start(res: express.Response, task: OwnedTaskView, lastEventId: number): void {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('X-Accel-Buffering', 'no'); // nginx: pass events through as they are written
    res.flushHeaders();
    const s: Stream = { taskId: task.id, accountId: task.accountId, res, lastId: lastEventId, closed: false };
    // Reconnect after 3 s when the connection drops (EventSource and the SDKs resume with Last-Event-ID).
    this.write(s, 'retry: 3000\n\n');
    let set = this.byTask.get(s.taskId);
    if (!set) this.byTask.set(s.taskId, (set = new Set()));
    set.add(s);
    this.open++;
    this.perAccount.set(s.accountId, (this.perAccount.get(s.accountId) ?? 0) + 1);
    res.once('close', () => this.remove(s));
    this.send(s, pollBody(task));
  }

  /** Ends every stream (gateway shutdown): clients resume on another gateway with Last-Event-ID. */
  closeAll(): void {
    clearInterval(this.heartbeat);
    clearInterval(this.refresh);
    this.forEach((s) => s.res.end());
  }

  private forEach(fn: (s: Stream) => void): void {
    for (const set of this.byTask.values()) for (const s of [...set]) fn(s);
  }

  private remove(s: Stream): void {
    if (s.closed) return;
    s.closed = true;
    const set = this.byTask.get(s.taskId);
    set?.delete(s);
    if (set && set.size === 0) this.byTask.delete(s.taskId);
    this.open--;
    const n = (this.perAccount.get(s.accountId) ?? 1) - 1;
    if (n <= 0) this.perAccount.delete(s.accountId);
    else this.perAccount.set(s.accountId, n);
  }

  /** Sends the state when it is later than the last one sent; a terminal state ends the stream. */
  private send(s: Stream, body: Record<string, unknown>): void {
    if (s.closed) return;
    const id = stateId(body as { status: string; progress?: unknown });
    if (id <= s.lastId) {
      if (id === TERMINAL_EVENT_ID) s.res.end(); // the client has the end already
      return;
    }
    s.lastId = id;
    const terminal = id === TERMINAL_EVENT_ID;
    this.write(s, `id: ${id}\nevent: ${terminal ? 'done' : 'status'}\ndata: ${JSON.stringify(body)}\n\n`);
    if (terminal && !s.closed) s.res.end();
  }

  private write(s: Stream, chunk: string): void {
    if (s.closed) return;
    s.res.write(chunk);
    // What the client has not taken yet stays in this process: past the bound, the stream is cut.
    if (s.res.writableLength > this.deps.config.SSE_BUFFER_BYTES) {
      this.cut++;
      this.remove(s);
      s.res.destroy();
    }
  }

  private onSettled(taskId: string, entry?: SettledPollEntry): void {
    const set = this.byTask.get(taskId);
    if (!set) return;
    for (const s of [...set]) {
      if (entry && entry.accountId === s.accountId) this.send(s, entry.body);
      else this.readAndSend(s);
    }
  }

  private refreshAll(): void {
    for (const set of this.byTask.values()) {
      const s = set.values().next().value;
      if (s) this.readAndSend(s, set);
    }
  }

  /** Reads the task (batched with every other read of this turn) and sends its state to `targets`. */
  private readAndSend(s: Stream, targets: Iterable<Stream> = [s]): void {
    this.reads
      .get(s.taskId)
      .then(
        (task) => {
          for (const t of [...targets]) {
            if (!task || task.accountId !== t.accountId) {
              t.res.end(); // gone (it cannot be: tasks are not deleted) or not theirs: nothing to say
              continue;
            }
            this.send(t, pollBody(task));
          }
        },
        (err) => this.deps.log.warn({ err, taskId: s.taskId }, 'task stream read failed; retried at the next refresh'),
      );
  }
}

