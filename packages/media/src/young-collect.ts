// Socket reads of a download leave garbage outside the JS heap: Node gives every read a fresh
// ArrayBuffer (undici's body chunks are views of it, and we copy them into pooled buffers), which
// only a collection frees. Each read adds a few hundred bytes to the young generation, so a
// scavenge comes rarely, and V8 waits for about 64 MiB of such external bytes before it collects
// for them: at 10 concurrent 500 MiB downloads the worker held 60-100 MiB of dead read buffers
// (docs/benchmark.md "Large results and scale"). A minor collection every 16 MiB of downloaded
// bytes in the process frees them while they are still young; the worker's CPU per MB went down
// with it, since no large collection of a heap full of dead buffers follows.

import v8 from 'node:v8';
import vm from 'node:vm';

/** Bytes read by the process's downloads between two minor collections. */
export const COLLECT_EVERY = 16 * 1024 * 1024;

type Collect = () => void;

let collect: Collect | null = null;
let since = 0;

/**
 * The engine's `gc`, taken once without exposing it to the process: the flag is on only while a
 * fresh context is made, so globalThis.gc stays undefined everywhere else.
 */
function minorCollector(): Collect {
  v8.setFlagsFromString('--expose-gc');
  try {
    const gc = vm.runInNewContext('gc') as (opts: { type: 'minor' }) => void;
    return () => gc({ type: 'minor' });
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/** Counts bytes read from a socket; collects the young generation every COLLECT_EVERY of them. */
export function noteBytesRead(n: number): void {
  since += n;
  if (since < COLLECT_EVERY) return;
  since = 0;
  (collect ??= minorCollector())();
}
