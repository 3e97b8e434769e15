// What the worker does with an upstream failure, as data: one table from (the step that failed, the
// error's kind) to an outcome. The steps in attempt-steps.ts classify the failure (the adapter's
// classifyError or a status answer) and act on what `decideOnError` returns; none of them tests
// error kinds itself. The table is checked by the compiler: a new step or a new UpstreamErrorKind
// does not compile until every cell of its row or column says what happens.
import { UpstreamError, type UpstreamErrorKind } from '@mediagen/providers';
import type { TaskStep } from '@mediagen/queue';
import { backoffMs } from './schedule';

/** Where in an attempt a failure happened. */
export type AttemptStep =
  /** Sending the render request (and the search for an earlier submit's render before it). */
  | 'submit'
  /** Asking about a running render: the call itself failed. */
  | 'poll'
  /** Asking about a running render: the upstream answered that the render failed. */
  | 'render'
  /** A resumed attempt whose render succeeded asks for its outputs again. */
  | 'collect'
  /** Downloading and storing the result files. */
  | 'download';

/** What happens once a retried step has failed WORKER_MAX_TRANSIENT_ERRORS times in a row. */
export type WhenSpent = 'next-channel' | 'no-result';

export type ErrorOutcome =
  /**
   * The same call on the same channel again after a backoff (Retry-After as a floor), coming back
   * as job step `step`. `spends`: which failures use up the WORKER_MAX_TRANSIENT_ERRORS budget in a
   * row: `every` one, or only answers of an unknown shape (a poll waits out any outage until the
   * deadline, the render runs upstream whatever our connection does). `whenSpent`: what then.
   */
  | { kind: 'retry'; step: TaskStep; spends: 'every' | 'unknown-shape'; whenSpent: WhenSpent }
  /** The attempt closes `failed`; the task moves on to the next channel of its order at once. */
  | { kind: 'next-channel' }
  /** As next-channel, and the channel is skipped for that upstream model from now on (unknown-model.ts). */
  | { kind: 'model-unavailable' }
  /** The upstream forgot the render: the attempt closes `lost`, one fresh attempt on the same channel. */
  | { kind: 'lost' }
  /** The task fails with content_violation (no other channel is tried); the attempt closes `violation`. */
  | { kind: 'violation' }
  /** The task fails with no_result; the attempt closes `no_result`. */
  | { kind: 'no-result' };

const nextChannel = { kind: 'next-channel' } as const;
const noResult = { kind: 'no-result' } as const;
const violation = { kind: 'violation' } as const;
const lost = { kind: 'lost' } as const;
const modelUnavailable = { kind: 'model-unavailable' } as const;

/** Every (step, error kind) and its outcome; docs/workers-and-channels.md shows the same table. */
export const ERROR_OUTCOMES = {
  submit: {
    transient: { kind: 'retry', step: 'submit', spends: 'every', whenSpent: 'next-channel' },
    violation,
    failed: nextChannel,
    unusable: nextChannel,
    lost: nextChannel,
    // Nothing reached the upstream, so nothing can have started: no retry here, no double render.
    unsent: nextChannel,
    unknown_model: modelUnavailable,
  },
  poll: {
    transient: { kind: 'retry', step: 'poll', spends: 'unknown-shape', whenSpent: 'next-channel' },
    violation,
    failed: nextChannel,
    unusable: nextChannel,
    lost,
    unsent: nextChannel,
    unknown_model: modelUnavailable,
  },
  render: {
    transient: nextChannel,
    violation,
    failed: nextChannel,
    unusable: nextChannel,
    lost,
    unsent: nextChannel,
    unknown_model: modelUnavailable,
  },
  collect: {
    transient: { kind: 'retry', step: 'poll', spends: 'every', whenSpent: 'no-result' },
    // The render succeeded and is billed: no other channel is tried, a failure ends in no_result.
    // Except `lost`: a synchronous upstream's result lived only in the lost submit answer, so it
    // is rendered again.
    violation: noResult,
    failed: noResult,
    unusable: noResult,
    lost,
    unsent: noResult,
    unknown_model: noResult,
  },
  download: {
    // Storage failures (disk full, permissions) count like transient download errors.
    transient: { kind: 'retry', step: 'poll', spends: 'every', whenSpent: 'no-result' },
    violation: noResult,
    failed: noResult,
    unusable: noResult,
    lost: noResult,
    unsent: noResult,
    unknown_model: noResult,
  },
} as const satisfies Record<AttemptStep, Record<UpstreamErrorKind, ErrorOutcome>>;

/** The outcome with its budget applied: what the step does now. */
export type ErrorAction =
  | { kind: 'retry'; step: TaskStep; delayMs: number; transientErrors: number }
  | { kind: Exclude<ErrorOutcome, { kind: 'retry' }>['kind']; err: UpstreamError };

/**
 * The action for `err` at `step`, after `transientErrors` failures in a row of this step: a retry
 * within its budget (with its backoff), or the table's final outcome. An answer of an unknown shape
 * that spent a poll's budget moves on as a failed render, its message saying how often it came.
 */
export function decideOnError(step: AttemptStep, err: UpstreamError, transientErrors: number, maxTransientErrors: number): ErrorAction {
  const outcome: ErrorOutcome = ERROR_OUTCOMES[step][err.kind];
  if (outcome.kind !== 'retry') return { kind: outcome.kind, err };
  const n = transientErrors + 1;
  const counts = outcome.spends === 'every' || err.unknownShape;
  if (!counts || n <= maxTransientErrors) return { kind: 'retry', step: outcome.step, delayMs: backoffMs(n, err.retryAfterMs), transientErrors: n };
  if (outcome.spends === 'unknown-shape') return { kind: outcome.whenSpent, err: new UpstreamError('failed', `${err.message} (${n} times in a row)`) };
  return { kind: outcome.whenSpent, err };
}
