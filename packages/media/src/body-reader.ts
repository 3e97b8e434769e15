// Pulling a response body piece by piece, so a reader takes only the bytes it needs and a slow or
// endless body is cut by the deadline instead of holding the submit.

import type { IncomingMessage } from 'node:http';
import { MediaProblem, deadlineProblem } from './problem';

export class BodyReader {
  private readonly it: AsyncIterator<Buffer>;
  private done = false;
  private readonly onAbort: () => void;

  constructor(private readonly res: IncomingMessage, private readonly signal: AbortSignal) {
    this.it = res[Symbol.asyncIterator]();
    // Destroying the stream makes a pending next() reject, even while the server sends nothing.
    this.onAbort = () => res.destroy(deadlineProblem(signal));
    if (signal.aborted) this.onAbort();
    else signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The next piece of the body, or null at its end. */
  async pull(): Promise<Buffer | null> {
    if (this.done) return null;
    try {
      const r = await this.it.next();
      if (r.done) {
        this.close();
        return null;
      }
      return r.value;
    } catch (e) {
      this.close();
      if (this.signal.aborted) throw deadlineProblem(this.signal);
      throw e instanceof MediaProblem ? e : new MediaProblem('the connection was cut while reading it');
    }
  }

  /** Stops reading; the connection is dropped rather than drained. */
  close(): void {
    if (this.done) return;
    this.done = true;
    this.signal.removeEventListener('abort', this.onAbort);
    this.res.destroy();
  }
}

/** The first `limit` bytes of a body (all of it when shorter); the rest is never read. */
export async function readAtMost(res: IncomingMessage, limit: number, signal: AbortSignal): Promise<Buffer> {
  const reader = new BodyReader(res, signal);
  const parts: Buffer[] = [];
  let have = 0;
  try {
    while (have < limit) {
      const piece = await reader.pull();
      if (!piece) break;
      parts.push(piece);
      have += piece.length;
    }
  } finally {
    reader.close();
  }
  const all = Buffer.concat(parts);
  return all.length > limit ? all.subarray(0, limit) : all;
}
