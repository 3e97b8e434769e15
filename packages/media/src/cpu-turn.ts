// One heavy synchronous step at a time per process, each in its own turn of the event loop
// so that large bodies arriving together do not hold the event loop for their sum. Large inline files cost the main thread tens of milliseconds each (the
// base64 alphabet check, decoding, the catalog's checks); when several large bodies reached that
// point in the same event-loop phase their steps ran back to back and held the loop for their sum
// (~120 ms at load 25). A step takes a turn here: the next waiter starts only from a fresh timer
// after the previous one released, so other requests' timers and I/O run in between.
// Small inputs never come here.

let busy = false;
const waiting: (() => void)[] = [];

/** Resolves with `release` once this caller may run its heavy step; call release right after it. */
export function cpuTurn(): Promise<() => void> {
  return new Promise((resolve) => {
    const grant = () => {
      busy = true;
      let released = false;
      resolve(() => {
        if (released) return;
        released = true;
        // A timer, not setImmediate: an immediate queued from the poll phase runs in the same
        // loop iteration, before any timer had its chance.
        setTimeout(() => {
          const next = waiting.shift();
          if (next) next();
          else busy = false;
        }, 0);
      });
    };
    if (busy) waiting.push(grant);
    else grant();
  });
}

/** Inputs from this size on take a turn (a 1 MiB data URI: a few ms of checks). */
export const CPU_TURN_CHARS = 1024 * 1024;
