// Every upstream failure is classified once, here, into what the worker does next.

export type UpstreamErrorKind =
  /** Timeouts, connection errors, 429, 5xx: try the same call on the same channel again later. */
  | 'transient'
  /** The provider explicitly flagged the prompt or media (reporting channels only): fail, no fallback. */
  | 'violation'
  /** The render failed or the channel refused it: move on to the next channel. */
  | 'failed'
  /** The provider's result is not a usable file: fail with no_result. */
  | 'unusable'
  /**
   * The upstream no longer knows an id it gave us (404 on poll, expired task): the render is gone,
   * not failed. One fresh attempt on the same channel, visible as its own TaskAttempt.
   */
  | 'lost'
  /**
   * A submit that never reached the upstream: the name did not resolve, the connection was refused
   * or unreachable, or TLS failed before the request was written. No render can have started, so
   * another channel is tried at once, with no risk of a double render (classify-error.ts).
   */
  | 'unsent'
  /**
   * The upstream says the model itself does not exist or is no longer available (retired, not
   * enabled for this key): no render of it will work on this channel. The task moves to the next
   * channel at once, and the channel is not tried for that upstream model again until an operator
   * re-enables it or a channel check passes (channel-health model-unavailable.ts).
   */
  | 'unknown_model';

export class UpstreamError extends Error {
  /**
   * The upstream answered with a shape no source describes (a field of the wrong type, an unknown
   * status word): read again like a dropped connection, but logged, and after
   * WORKER_MAX_TRANSIENT_ERRORS in a row the worker moves on instead of waiting for the deadline.
   */
  unknownShape = false;

  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
    /** From Retry-After, for transient errors that carried it. */
    readonly retryAfterMs?: number,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

export const isUpstreamError = (e: unknown): e is UpstreamError => e instanceof UpstreamError;

/** A `transient` error for an answer of a shape we do not know (see UpstreamError.unknownShape). */
export function unknownAnswer(message: string): UpstreamError {
  const err = new UpstreamError('transient', message);
  err.unknownShape = true;
  return err;
}
