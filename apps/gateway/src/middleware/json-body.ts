// JSON bodies of the submit routes, up to 40 MB. Same contract as express.json({ strict: false })
// (limits, charset, empty body -> {}, error types the error handler maps), but a large body costs
// about twice its size in memory instead of about eight times: the body is read as bytes and
// decoded once (express.json joins one string per 64 KiB chunk and then flattens them into a
// second copy), and each stage drops the previous one before the next allocates.
//
// Hostile bodies (issue 11.2, 11.9, 11.10):
// - Compressed bodies are refused (415) before a byte is inflated: 40 KB of gzip inflates to 40 MB,
//   so the 40 MB limit would otherwise be bought with a thousandth of the bandwidth.
// - Large bodies (LARGE_BODY_BYTES or more, or of unknown length) pass a per-process gate: at most
//   LARGE_BODY_SLOTS are read and held at once, the rest wait their turn without being read (TCP
//   backpressure holds them at the client) and give up with 503 after LARGE_BODY_WAIT_MS. Memory
//   of large submits is then bounded by slots x size, not by how many a client opens.
// - Large bodies are decoded and parsed on a worker thread (json-parse-pool.ts): JSON.parse of a
//   30 MB body is one step of 30-100 ms on the main thread, four at once held it ~290 ms. Bodies
//   under OFF_THREAD_PARSE_BYTES (every ordinary submit) stay on the main thread: no thread hop there.
// - No forced garbage collection: a full GC on the request path stops every request of the
//   process for tens of milliseconds, which one client could trigger at will.
// Content types other than plain `application/json` (with at most charset=utf-8) go through
// express.json unchanged (inflate off). See docs/benchmark.md and docs/security.md.
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '@mediagen/errors';
import { cpuTurn } from '@mediagen/media';
import { JsonNulError, JsonParsePool, JsonStringTooLong, ownedCopy, sharedJsonParsePool } from './json-parse-pool';

/** Bodies from this size on (or of unknown size) are "large": gated, see above. */
export const LARGE_BODY_BYTES = 1024 * 1024;
export const LARGE_BODY_SLOTS = 4;
export const LARGE_BODY_QUEUE = 64;
export const LARGE_BODY_WAIT_MS = 10_000;
/** Bodies from this size on are decoded and parsed on a worker thread (1 MB of emoji: ~15 ms to decode). */
export const OFF_THREAD_PARSE_BYTES = 256 * 1024;

const httpError = (status: number, message: string, type: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { status, statusCode: status, expose: true, type, ...extra });

/** The plain forms clients send; anything else (other charsets, other parameters) takes the general path. */
const PLAIN_JSON = /^application\/json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i;

/** A counting semaphore with a bounded, time-limited wait queue. */
export class Gate {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly slots: number, readonly queue: number, readonly waitMs: number) {}
  get inUse(): number {
    return this.busy;
  }
  /** Resolves with a release function, or null when the queue is full or the wait timed out. */
  acquire(): Promise<(() => void) | null> {
    if (this.busy < this.slots) {
      this.busy++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.queue) return Promise.resolve(null);
    return new Promise((resolve) => {
      const go = () => {
        clearTimeout(timer);
        this.busy++;
        resolve(this.releaser());
      };
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(null);
      }, this.waitMs);
      this.waiting.push(go);
    });
  }
  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.busy--;
      this.waiting.shift()?.();
    };
  }
}

export function jsonBody(limit: number, gate = new Gate(LARGE_BODY_SLOTS, LARGE_BODY_QUEUE, LARGE_BODY_WAIT_MS), pool: JsonParsePool = sharedJsonParsePool): RequestHandler[] {
  const general = express.json({ limit, strict: false, inflate: false });
  const readBytes = express.raw({ type: 'application/json', limit, inflate: false });

  const refuseCompressed: RequestHandler = (req, _res, next) => {
    const enc = String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (enc === '' || enc === 'identity') return next();
    next(httpError(415, `Content-Encoding "${enc.slice(0, 40)}" is not accepted; send the body uncompressed`, 'encoding.unsupported'));
  };

  const admitLarge: RequestHandler = (req, res, next) => {
    const len = Number(req.headers['content-length']);
    const known = req.headers['content-length'] !== undefined && Number.isFinite(len);
    if (known && (len < LARGE_BODY_BYTES || len > limit)) return next(); // small, or refused by the reader at once
    void gate.acquire().then((release) => {
      if (!release) {
        return next(new AppError('service_unavailable', 'Too many large request bodies are being read; retry shortly', undefined, undefined, { 'Retry-After': '2' }));
      }
      // Held until the response is done: the parsed body (and what the submit decodes from it) lives that long.
      res.once('close', release);
      res.once('finish', release);
      next();
    });
  };

  const pick: RequestHandler = (req, res, next) => {
    if (PLAIN_JSON.test(req.headers['content-type'] ?? '')) {
      const len = Number(req.headers['content-length']);
      const known = req.headers['content-length'] !== undefined && Number.isFinite(len);
      const chunked = !known && req.headers['transfer-encoding'] !== undefined;
      if ((known && len >= OFF_THREAD_PARSE_BYTES) || chunked) return readPieces(req, known ? len : undefined, limit, next);
      return readBytes(req, res, next);
    }
    // Everything else, including the refusal of non-UTF charsets, exactly as express.json does it.
    return general(req, res, next);
  };

  const parse = async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    // Not read as bytes: no body, or parsed by the general path already (parsed JSON is never a Buffer).
    const pieces = (req as PiecesRequest)[PIECES];
    if (pieces) {
      (req as PiecesRequest)[PIECES] = undefined;
      try {
        req.body = await pool.parse(pieces); // handed over: detached here afterwards
      } catch (e) {
        if (e instanceof JsonNulError) return next(httpError(400, e.message, 'entity.nul'));
        if (e instanceof JsonStringTooLong) return next(new AppError('validation_error', e.message));
        return next(httpError(400, (e as Error).message.slice(0, 200), 'entity.parse.failed'));
      }
      // The parsed value arrived in one step (a copy); the route's own checks on it (the catalog's
      // walk of a multi-MB data URI) are another. They take their own turn of the loop, one large
      // body at a time (cpuTurn), instead of running back to back with other large bodies'.
      const release = await cpuTurn();
      try {
        return next();
      } finally {
        release();
      }
    }
    if (!Buffer.isBuffer(req.body)) return next();
    const bytes = req.body as Buffer;
    req.body = undefined;
    let text: string | null = bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a leading BOM, dropped as body-parser does
    let body: unknown;
    try {
      body = text.length === 0 ? {} : JSON.parse(text);
    } catch (e) {
      return next(httpError(400, (e as Error).message.slice(0, 200), 'entity.parse.failed'));
    }
    // Postgres text and jsonb cannot hold U+0000: refused here as the client's mistake, not a 500 later.
    if (text.includes('\\u0000') && containsNul(body)) {
      return next(httpError(400, 'Request body contains a NUL character (\\u0000)', 'entity.nul'));
    }
    text = null;
    req.body = body;
    next();
  };
  return [refuseCompressed, admitLarge, pick, parse];
}

const PIECES = Symbol('json body pieces');
type PiecesRequest = Request & { [PIECES]?: ArrayBuffer[] };

/**
 * Reads a large body as it arrives, each piece copied into memory the parse worker will own, so
 * the main thread never joins tens of MB in one step (Buffer.concat of 30 MB: ~25 ms of CPU, more
 * with page faults). A known length is refused at once when over `limit`; a body that runs past
 * its Content-Length or the limit is cut. Error types are raw-body's, which the error handler maps.
 */
function readPieces(req: Request, declared: number | undefined, limit: number, next: NextFunction): void {
  if (declared !== undefined && declared > limit) {
    return next(httpError(413, 'request entity too large', 'entity.too.large', { expected: declared, limit }));
  }
  const pieces: ArrayBuffer[] = [];
  let received = 0;
  let done = false;
  const finish = (err?: Error) => {
    if (done) return;
    done = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('aborted', onAborted);
    req.off('error', onError);
    if (err) {
      req.pause(); // what raw-body does: stop reading, the response decides about the connection
      return next(err);
    }
    (req as PiecesRequest)[PIECES] = pieces;
    next();
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) return finish(httpError(413, 'request entity too large', 'entity.too.large', { limit, received }));
    if (declared !== undefined && received > declared) return finish(httpError(400, 'request size did not match content length', 'request.size.invalid'));
    pieces.push(ownedCopy(chunk));
  };
  const onEnd = () => {
    if (declared !== undefined && received !== declared) return finish(httpError(400, 'request size did not match content length', 'request.size.invalid'));
    finish();
  };
  const onAborted = () => finish(httpError(400, 'request aborted', 'request.aborted'));
  const onError = (e: Error) => finish(httpError(400, e.message, 'request.error'));
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('aborted', onAborted);
  req.on('error', onError);
}

function containsNul(v: unknown): boolean {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string') {
      if (x.includes('\u0000')) return true;
    } else if (x && typeof x === 'object') {
      for (const [k, val] of Object.entries(x)) {
        if (k.includes('\u0000')) return true;
        stack.push(val);
      }
    }
  }
  return false;
}
