// tasks.get / list / cancel / wait. A task id alone does not say whether it is a video or an image
// task, and the poll paths differ: the kind is remembered from generate and list calls, taken from
// `opts.type`, or found by trying the video path and then the image path. wait follows the task's
// event stream when the service offers it (GET /api/tasks/{taskId}/events) and polls otherwise.
import type { HttpClient } from '../http';
import { sleep } from '../http';
import { NotFoundError } from '../errors';
import { readEvents } from './event-stream';
import type { CancelResult, Task, TaskListItem, TaskListParams, TaskPage, TaskType } from '../types';

export interface TaskOptions {
  type?: TaskType;
  signal?: AbortSignal;
}

export interface WaitOptions extends TaskOptions {
  /** Called with each poll whose status or progress changed. */
  onProgress?: (task: Task) => void;
  /** Poll interval in ms, kept within the service's advice of 5-10 s (default 5000). */
  intervalMs?: number;
  /** Follow the task's event stream when the service offers one (default true); false: poll only. */
  stream?: boolean;
}

/** Reconnections of a broken event stream (resumed with Last-Event-ID) before falling back to polling. */
const STREAM_RECONNECTS = 3;

export const MIN_POLL_MS = 5_000;
export const MAX_POLL_MS = 10_000;
const isTerminal = (t: Task) => t.status === 'completed' || t.status === 'failed';

export class Tasks {
  private readonly kinds = new Map<string, TaskType>();

  constructor(private readonly http: HttpClient) {}

  /** @internal Called by generate and list so later calls know the task's kind. */
  remember = (taskId: string, type: TaskType): void => {
    if (this.kinds.size >= 10_000) this.kinds.clear();
    this.kinds.set(taskId, type);
  };

  /** Polls a task once (GET /api/{type}/tasks/{taskId}). */
  async get(taskId: string, opts: TaskOptions = {}): Promise<Task> {
    return this.withType(taskId, opts, (type) =>
      this.http.request<Task>({ method: 'GET', path: `/api/${type}/tasks/${encodeURIComponent(taskId)}`, signal: opts.signal }),
    );
  }

  /**
   * One task as the listing shows it (extension: GET /api/tasks/{taskId}), whatever its kind: the
   * poll body plus taskId, model, createdAt and `effectivePrompt`, the prompt sent upstream (with
   * `optimize_prompt`, the structured rewrite; null while the rewrite is pending).
   */
  async retrieve(taskId: string, opts: { signal?: AbortSignal } = {}): Promise<TaskListItem> {
    const t = await this.http.request<TaskListItem>({ method: 'GET', path: `/api/tasks/${encodeURIComponent(taskId)}`, signal: opts.signal });
    this.remember(t.taskId, t.type);
    return t;
  }

  /**
   * Cancels a task (extension: POST /api/{type}/tasks/{taskId}/cancel). Answers the task failed with
   * errorCode `cancelled` (refunded), or still processing with `cancelRequested` while the provider
   * cancels the render (wait for it). A finished task, or a render its provider cannot stop, is a
   * ConflictError with code `not_cancellable`.
   */
  async cancel(taskId: string, opts: TaskOptions = {}): Promise<CancelResult> {
    return this.withType(taskId, opts, (type) =>
      this.http.request<CancelResult>({ method: 'POST', path: `/api/${type}/tasks/${encodeURIComponent(taskId)}/cancel`, signal: opts.signal }),
    );
  }

  /**
   * The account's tasks, newest first, one page per iteration (extension: GET /api/tasks):
   * `for await (const page of mg.tasks.list({ status: 'failed' })) for (const t of page.data) ...`
   */
  async *list(params: TaskListParams = {}, opts: { signal?: AbortSignal } = {}): AsyncGenerator<TaskPage, void, undefined> {
    let cursor = params.cursor;
    for (;;) {
      const page = await this.http.request<TaskPage>({ method: 'GET', path: '/api/tasks', query: { ...params, cursor }, signal: opts.signal });
      for (const t of page.data) this.remember(t.taskId, t.type);
      yield page;
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  /**
   * Waits until the task is completed or failed and returns it (a failed task is returned, not
   * thrown: branch on `errorCode` and `retryable`): follows the task's event stream, or polls
   * every 5-10 s where there is none. Stops with the signal's reason when `signal` aborts, e.g.
   * `AbortSignal.timeout(600_000)`. 429s of polls are waited out as their Retry-After says.
   */
  async wait(taskId: string, opts: WaitOptions = {}): Promise<Task> {
    let seen = '';
    const report = (task: Task) => {
      const key = `${task.status}:${task.progress ?? ''}`;
      if (key === seen) return;
      seen = key;
      opts.onProgress?.(task);
    };
    if (opts.stream !== false) {
      const done = await this.followStream(taskId, opts, report);
      if (done) return done;
    }
    const interval = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, opts.intervalMs ?? MIN_POLL_MS));
    for (;;) {
      const task = await this.get(taskId, opts);
      report(task);
      if (isTerminal(task)) return task;
      await sleep(interval, opts.signal);
    }
  }

  /**
   * The terminal task from the event stream, or undefined when the service does not offer one for
   * this call (not an event stream: an older service, a 404, 429 too_many_streams) or it kept
   * breaking: the caller then polls, which also raises the proper error for a task that is not there.
   */
  private async followStream(taskId: string, opts: WaitOptions, report: (t: Task) => void): Promise<Task | undefined> {
    let lastEventId: string | undefined;
    for (let attempt = 0; attempt <= STREAM_RECONNECTS; attempt++) {
      let res: Response;
      try {
        res = await this.http.openStream(`/api/tasks/${encodeURIComponent(taskId)}/events`, lastEventId ? { 'Last-Event-ID': lastEventId } : {}, opts.signal);
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        continue; // no answer: try again, then poll
      }
      if (!res.ok || !res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        await res.body?.cancel().catch(() => undefined);
        return undefined;
      }
      try {
        for await (const ev of readEvents(res.body)) {
          if (ev.id) lastEventId = ev.id;
          const task = JSON.parse(ev.data) as Task;
          if (task.type) this.remember(taskId, task.type);
          report(task);
          if (ev.event === 'done' || isTerminal(task)) return task;
        }
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason;
      }
      // Ended without the terminal event (a gateway shutting down, a dropped connection): resume.
    }
    return undefined;
  }

  private async withType<T>(taskId: string, opts: TaskOptions, call: (type: TaskType) => Promise<T>): Promise<T> {
    const known = opts.type ?? this.kinds.get(taskId);
    if (known) return call(known);
    try {
      const out = await call('video');
      this.remember(taskId, 'video');
      return out;
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      const out = await call('image');
      this.remember(taskId, 'image');
      return out;
    }
  }
}
