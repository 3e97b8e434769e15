// The simulator's memory: renders by id, the idempotency keys that created them, and per-task
// state (a task is the provider's `client_ref`) for the directives that span calls and channels.
import { randomUUID } from 'node:crypto';
import { Directives } from './directives';

export interface Render {
  id: string;
  channelId: string;
  ref: string;
  type: 'image' | 'video';
  ratio: unknown;
  resolution: unknown;
  createdAt: number;
  renderMs: number;
  directives: Directives;
  /** Requested seconds of a video (the file is made this long), when the protocol sends it. */
  duration?: unknown;
  /** Upstream model name the render was asked for. */
  model?: string;
  /** Whatever the protocol keeps per render (metadata, callback URL, its own request). */
  meta?: Record<string, unknown>;
  /** Set by a protocol's cancel call. */
  cancelledAt?: number;
  /** When the render's finish callback ran (wall clock, fractional ms; whenFinished). */
  finishedFnAt?: number;
  /** The HTTP status the finish callback was answered with, 0 when it got no answer (protocols that record it). */
  callbackStatus?: number;
}
/** How long before a render's end its finish callback stops waiting on a timer (whenFinished). */
const SPIN_MS = 2;

interface RefState {
  /** Upstream calls seen for this task, over all channels (#sim:flaky, #sim:rate-limit). */
  calls: number;
  /** The channel of the task's first render (#sim:fail-first). */
  firstChannel?: string;
  submits: number;
  renders: string[];
  lastSeen: number;
}

export type RenderView =
  | { status: 'running'; progress: number }
  | { status: 'succeeded'; outputs: number }
  | { status: 'failed'; code: 'content_policy' | 'render_error'; message: string }
  | { status: 'cancelled' };

/** Finished renders and idle tasks are forgotten after this long, so memory stays bounded. */
const RETENTION_MS = 60 * 60_000;

export class RenderStore {
  private readonly renders = new Map<string, Render>();
  private readonly byIdempotencyKey = new Map<string, string>();
  private readonly refs = new Map<string, RefState>();
  readonly totals = { submits: 0, replays: 0, renders: 0, rejectedCalls: 0 };

  private refState(ref: string, now: number): RefState {
    let s = this.refs.get(ref);
    if (!s) {
      s = { calls: 0, submits: 0, renders: [], lastSeen: now };
      this.refs.set(ref, s);
    }
    s.lastSeen = now;
    return s;
  }

  /** Counts a call for the task and says whether the directives make it fail: 429, 503 or not at all. */
  countCall(ref: string, d: Directives, now = Date.now()): 429 | 503 | null {
    const s = this.refState(ref, now);
    s.calls += 1;
    if (s.calls <= d.rateLimit) return 429;
    if (s.calls <= d.rateLimit + d.flaky) return 503;
    return null;
  }

  /** A new render, or the one an earlier submit with the same idempotency key created. */
  submit(
    channelId: string,
    idempotencyKey: string | undefined,
    init: Omit<Render, 'id' | 'channelId' | 'createdAt'>,
    now = Date.now(),
  ): { render: Render; replay: boolean } {
    this.totals.submits += 1;
    const s = this.refState(init.ref, now);
    s.submits += 1;
    const idemKey = idempotencyKey ? `${channelId}\u0000${idempotencyKey}` : undefined;
    const existing = idemKey ? this.renders.get(this.byIdempotencyKey.get(idemKey) ?? '') : undefined;
    if (existing) {
      this.totals.replays += 1;
      return { render: existing, replay: true };
    }
    const render: Render = { ...init, id: `r_${randomUUID()}`, channelId, createdAt: now };
    this.renders.set(render.id, render);
    if (idemKey) this.byIdempotencyKey.set(idemKey, render.id);
    s.firstChannel ??= channelId;
    s.renders.push(render.id);
    this.totals.renders += 1;
    return { render, replay: false };
  }

  /** A render by id, whatever its channel (result files). */
  byId(id: string): Render | undefined {
    return this.renders.get(id);
  }

  get(channelId: string, id: string): Render | undefined {
    const r = this.renders.get(id);
    return r && r.channelId === channelId ? r : undefined;
  }

  view(r: Render, reportsViolations: boolean, now = Date.now()): RenderView {
    const d = r.directives;
    const elapsed = now - r.createdAt;
    if (r.cancelledAt !== undefined) return { status: 'cancelled' };
    if (d.hang) return { status: 'running', progress: Math.min(50, Math.floor(elapsed / 1000)) };
    if (elapsed < r.renderMs) return { status: 'running', progress: Math.min(99, Math.floor((elapsed / Math.max(1, r.renderMs)) * 100)) };
    if (d.violation)
      // Only providers that report refusals say why; the others just fail the render.
      return reportsViolations
        ? { status: 'failed', code: 'content_policy', message: 'The prompt or reference media violate the content policy.' }
        : { status: 'failed', code: 'render_error', message: 'Render failed.' };
    if (d.fail) return { status: 'failed', code: 'render_error', message: 'Render failed.' };
    if (d.failFirst && this.refs.get(r.ref)?.firstChannel === r.channelId)
      return { status: 'failed', code: 'render_error', message: 'Render failed on this channel.' };
    return { status: 'succeeded', outputs: d.noFile ? 0 : 1 };
  }

  /** Marks a render cancelled (it then views as `cancelled`); false when unknown. */
  cancel(channelId: string, id: string, now = Date.now()): boolean {
    const r = this.get(channelId, id);
    if (!r) return false;
    r.cancelledAt ??= now;
    return true;
  }

  /** Renders of a channel matching `pred`, oldest first (list/filter endpoints, orphan searches). */
  find(channelId: string, pred: (r: Render) => boolean): Render[] {
    return [...this.renders.values()].filter((r) => r.channelId === channelId && pred(r));
  }

  /**
   * Runs `fn` once the render's time is up (callbacks); never for hanging renders. The timer does
   * not keep the process alive (its last SPIN_MS of waiting do).
   *
   * On time, to a fraction of a millisecond: Node's timers count whole milliseconds and fire up
   * to a millisecond or more late, and the benchmark's time-to-result figure charged that
   * lateness (0.9 ms p50, docs/benchmark.md) to the service, while the bare client it is
   * compared with reads the status, which turns `succeeded` at the exact millisecond. So the
   * timer is set for 2 ms before the end and the rest is waited out in event-loop turns
   * (setImmediate: other requests are still served in between), a couple of milliseconds of the
   * simulator's CPU per callback.
   */
  whenFinished(r: Render, fn: (r: Render) => void, now = Date.now()): void {
    if (r.directives.hang) return;
    const at = r.createdAt + r.renderMs;
    // Date.now() >= at is also when the render starts to view as finished (view): a callback
    // that left before would carry 'processing'.
    const fire = () => {
      const left = at - Date.now();
      if (left > SPIN_MS) setTimeout(fire, left - SPIN_MS).unref();
      // Not unref'd: an unref'd immediate lets the loop block in its poll phase, and it then ran
      // only when other I/O woke the loop (callbacks 4.7 ms late, p50).
      else if (left > 0) setImmediate(fire);
      else {
        r.finishedFnAt = performance.timeOrigin + performance.now();
        fn(r);
      }
    };
    // Never from inside this call: a render that is already done (renderMs 0) must not call back
    // before the protocol has answered the submit that asked for the callback.
    if (at - now > SPIN_MS) setTimeout(fire, at - now - SPIN_MS).unref();
    else setImmediate(fire);
  }

  /**
   * When a render was created and when its time is up, by id (the benchmark's time-to-result
   * figures compare the moment a task becomes visible with this); null for unknown or hanging ones.
   */
  timing(id: string): { id: string; createdAt: number; renderMs: number; finishesAt: number; callbackAt: number | null; callbackStatus: number | null } | null {
    const r = this.renders.get(id);
    if (!r || r.directives.hang) return null;
    return {
      id: r.id, createdAt: r.createdAt, renderMs: r.renderMs, finishesAt: r.createdAt + r.renderMs,
      callbackAt: r.finishedFnAt ?? null, callbackStatus: r.callbackStatus ?? null,
    };
  }

  /** Number of renders not finished yet (hanging ones included). */
  inFlight(now = Date.now()): number {
    let n = 0;
    for (const r of this.renders.values()) if (r.directives.hang || now - r.createdAt < r.renderMs) n++;
    return n;
  }

  refSummary(ref: string) {
    const s = this.refs.get(ref);
    if (!s) return { calls: 0, submits: 0, renders: [] };
    return {
      calls: s.calls,
      submits: s.submits,
      renders: s.renders.map((id) => this.renders.get(id)).filter((r): r is Render => !!r).map((r) => ({ id: r.id, channelId: r.channelId })),
    };
  }

  sweep(now = Date.now()): void {
    for (const [id, r] of this.renders) {
      const end = r.directives.hang ? r.createdAt + 7 * RETENTION_MS : r.createdAt + r.renderMs;
      if (end + RETENTION_MS < now) this.renders.delete(id);
    }
    for (const [k, id] of this.byIdempotencyKey) if (!this.renders.has(id)) this.byIdempotencyKey.delete(k);
    for (const [ref, s] of this.refs) if (s.lastSeen + RETENTION_MS < now) this.refs.delete(ref);
  }
}
