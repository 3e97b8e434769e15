// A downloaded result's bytes as the worker hands them to storage: lent one chunk at a time, so a
// URL result's chunks can be pooled buffers used again (packages/media pooled-request.ts), with the
// byte cap counted and the type checked on the way (download.ts says which).
import type { PooledResponse } from '@mediagen/media';
import { UpstreamError } from './upstream-error';

/**
 * A result's bytes, lent one chunk at a time: a chunk is valid until the next nextChunk() or
 * close(), so a URL result's chunks are pooled buffers used again (packages/media
 * pooled-request.ts). This is the shape @mediagen/storage's put() takes as a ChunkSource.
 */
export interface ResultBody {
  /** The next bytes, null at the end; rejects with UpstreamError. One call at a time. */
  nextChunk(): Promise<Buffer | null>;
  /** Ends the download (idempotent) and gives its buffers and connection back. */
  close(): void;
}

const deadlineError = () => new UpstreamError('transient', 'download: the result did not arrive within the download deadline');

export interface BodyChecks {
  /** Largest body; over it the download fails as unusable. */
  cap: number;
  /** The media type, for messages. */
  type: string;
  /** Bytes `check` needs to see. */
  headBytes: number;
  /** The sniffed content type of the head; throws when it is not allowed. */
  check(head: Buffer): string;
}

/**
 * Reads the head, checks its type, then lends out the body chunk by chunk, counting bytes against
 * the cap. The deadline is the response's (it fails the transfer on the signal); errors become
 * UpstreamErrors here. Pull-based: the socket reads only as fast as the consumer asks.
 */
export async function checkedBody(res: PooledResponse, { cap, type, headBytes, check }: BodyChecks, signal: AbortSignal): Promise<{ contentType: string; body: ResultBody }> {
  let seen = 0;
  const next = async (): Promise<Buffer | null> => {
    let c: Buffer | null;
    try {
      c = await res.body.nextChunk();
    } catch (e) {
      res.body.close();
      if (signal.aborted) throw deadlineError();
      throw e instanceof UpstreamError ? e : new UpstreamError('transient', `download: the connection was cut (${(e as Error).message})`);
    }
    if (c === null) return null;
    seen += c.length;
    if (seen > cap) {
      res.body.close();
      throw new UpstreamError('unusable', `download: the result is larger than the ${type} cap of ${cap} bytes`);
    }
    return c;
  };

  // The first chunk stays lent to us until the consumer has taken it, so when it holds the sniffed
  // bytes it is handed on as it is; only a head split over several reads is copied together.
  let first: Buffer | null;
  let ended = false;
  try {
    first = await next();
    if (first === null) ended = true;
    else if (first.length < headBytes) {
      const parts = [Buffer.from(first)];
      let n = first.length;
      while (n < headBytes) {
        const c = await next();
        if (!c) {
          ended = true;
          break;
        }
        parts.push(Buffer.from(c));
        n += c.length;
      }
      first = Buffer.concat(parts);
    }
  } catch (e) {
    res.body.close();
    throw e;
  }
  let contentType: string;
  try {
    contentType = check(first ?? Buffer.alloc(0));
  } catch (e) {
    res.body.close();
    throw e;
  }
  const body: ResultBody = {
    nextChunk: async () => {
      if (first) {
        const f = first;
        first = null;
        return f;
      }
      if (ended) return null;
      const c = await next();
      if (c === null) ended = true;
      return c;
    },
    close: () => {
      first = null;
      res.body.close();
    },
  };
  return { contentType, body };
}

/** An inline result as a body of one chunk. */
export function bufferBody(data: Buffer): ResultBody {
  let left: Buffer | null = data;
  return {
    nextChunk: async () => {
      const c = left;
      left = null;
      return c;
    },
    close: () => {
      left = null;
    },
  };
}
