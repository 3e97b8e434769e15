// What goes wrong with one reference file. Helpers throw MediaProblem with text meant for the
// client ("HTTP 404", "not a video"); inspect.ts turns it into the 400 `invalid_media` detail that
// names the reference. Anything else thrown (a parser choking on garbage) is reported as
// unreadable rather than as a 500: reference files are client input.

export class MediaProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MediaProblem';
  }
}

export const isMediaProblem = (e: unknown): e is MediaProblem => e instanceof MediaProblem;

/** Thrown on the inspection deadline; kept apart so every unfinished ref says "timed out". */
export class DeadlineExceeded extends MediaProblem {}

/** Rethrows when the shared deadline has passed, so loops stop at the next step. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw deadlineProblem(signal);
}

export function deadlineProblem(signal: AbortSignal): DeadlineExceeded {
  const r = signal.reason;
  return r instanceof DeadlineExceeded ? r : new DeadlineExceeded('timed out while reading it');
}
