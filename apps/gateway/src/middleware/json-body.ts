// JSON bodies of the submit routes, up to 40 MB. Same contract as express.json({ strict: false })
// (limits, charset, empty body -> {}, error types the error handler maps), at a fraction of the
// memory:
// - Small bodies (under STREAM_PARSE_BYTES, every ordinary submit) are read as bytes, decoded once
//   and parsed with JSON.parse on the main thread.
// - Large bodies (from STREAM_PARSE_BYTES on, or chunked) are parsed as they arrive
//   (json-stream.ts): no piece of the body is kept once parsed, so the body never exists whole, as
//   bytes or as text. With a storage driver (the submit routes), inline images of such a body are
//   decoded straight into storage as they arrive (inline-staging.ts) and the parsed body holds a
//   stand-in for each; a 40 MB submit then holds about one 64 KiB piece and a 1 MiB write buffer
//   at a time. The per-stage memory figures are in docs/benchmark.md.
//
// Hostile bodies:
// - Compressed bodies are refused (415) before a byte is inflated: 40 KB of gzip inflates to 40 MB,
//   so the 40 MB limit would otherwise be bought with a thousandth of the bandwidth.
// - Large bodies (LARGE_BODY_BYTES or more, or of unknown length) pass a per-process gate: at most
//   LARGE_BODY_SLOTS are read at once, the rest wait their turn without being read (TCP
//   backpressure holds them at the client) and give up with 503 after LARGE_BODY_WAIT_MS.
// - Each piece of a streamed body is parsed in its own step (a few hundred microseconds per
//   64 KiB): no body holds the event loop. A storage write that falls behind pauses the reading.
// - No forced garbage collection: a full GC on the request path stops every request of the
//   process for tens of milliseconds, which one client could trigger at will.
// Content types other than plain `application/json` (with at most charset=utf-8) go through
// express.json unchanged (inflate off). See docs/benchmark.md and docs/security.md.
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '@mediagen/errors';
import type { StorageDriver } from '@mediagen/storage';
import { JsonNulError, JsonStreamParser, JsonStringTooLong } from './json-stream';
import { InlineStager, STAGE_FROM } from './inline-staging';

/** Bodies from this size on (or of unknown size) are "large": gated, see above. */
export const LARGE_BODY_BYTES = 1024 * 1024;
export const LARGE_BODY_SLOTS = 4;
export const LARGE_BODY_QUEUE = 64;
export const LARGE_BODY_WAIT_MS = 10_000;
/** Bodies from this size on are parsed as they arrive (1 MB of emoji: ~15 ms to decode in one step). */
export const STREAM_PARSE_BYTES = 256 * 1024;

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

export interface JsonBodyOptions {
  /** Where inline images of streamed bodies are written while they arrive; unset: kept as strings. */
  storage?: StorageDriver;
}

export function jsonBody(limit: number, gate = new Gate(LARGE_BODY_SLOTS, LARGE_BODY_QUEUE, LARGE_BODY_WAIT_MS), opts: JsonBodyOptions = {}): RequestHandler[] {
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
      if ((known && len >= STREAM_PARSE_BYTES) || chunked) return readStreaming(req, res, known ? len : undefined, limit, opts.storage, next);
      return readBytes(req, res, next);
    }
    // Everything else, including the refusal of non-UTF charsets, exactly as express.json does it.
    return general(req, res, next);
  };

  const parse = (req: Request, _res: Response, next: NextFunction): void => {
    // Not read as bytes: no body, streamed (parsed already), or parsed by the general path.
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

const STAGED = Symbol('staged inline files');
type StagedRequest = Request & { [STAGED]?: { stager: InlineStager; taken: boolean } };

/**
 * The request's inline files written to storage while its body arrived, for the route to hand to
 * the submit; the route then owns them (discard() when done). Null when there are none. Files no
 * route takes are deleted when the response closes.
 */
export function takeStagedInline(req: Request): InlineStager | null {
  const s = (req as StagedRequest)[STAGED];
  if (!s) return null;
  s.taken = true;
  return s.stager;
}

/**
 * Parses a large body as it arrives (see the file's opening comment). A known length is refused at
 * once when over `limit`; a body that runs past its Content-Length or the limit is cut. A body that
 * turns out malformed is still read to its end (discarded) before the answer, as a whole-body
 * parser answers. Error types are raw-body's, which the error handler maps.
 */
function readStreaming(req: Request, res: Response, declared: number | undefined, limit: number, storage: StorageDriver | undefined, next: NextFunction): void {
  if (declared !== undefined && declared > limit) {
    return next(httpError(413, 'request entity too large', 'entity.too.large', { expected: declared, limit }));
  }
  const stager = storage ? new InlineStager(storage) : null;
  const parser = new JsonStreamParser(stager ? { divertFrom: STAGE_FROM, divert: stager.divert } : {});
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let first = true;
  let broken: unknown = null;
  let received = 0;
  let done = false;
  const feed = (text: string) => {
    if (broken || text.length === 0) return;
    if (first) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a leading BOM, dropped as body-parser does
    }
    try {
      parser.write(text);
    } catch (e) {
      broken = e;
      void stager?.discard();
    }
  };
  const finish = (err?: Error) => {
    if (done) return;
    done = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('aborted', onAborted);
    req.off('error', onError);
    if (err) {
      req.pause(); // what raw-body does: stop reading, the response decides about the connection
      parser.abort();
      void stager?.discard();
      return next(err);
    }
    void settle();
  };
  const settle = async () => {
    let body: unknown;
    try {
      feed(decoder.decode());
      if (broken) throw broken;
      body = parser.end();
    } catch (e) {
      void stager?.discard();
      if (e instanceof JsonNulError) return next(httpError(400, e.message, 'entity.nul'));
      if (e instanceof JsonStringTooLong) return next(new AppError('validation_error', e.message));
      return next(httpError(400, (e as Error).message.slice(0, 200), 'entity.parse.failed'));
    }
    try {
      await stager?.settle(); // every inline file written before the route looks at them
    } catch (e) {
      void stager?.discard();
      return next(e);
    }
    req.body = body;
    if (stager && stager.files.size > 0) {
      const held = { stager, taken: false };
      (req as StagedRequest)[STAGED] = held;
      res.once('close', () => {
        if (!held.taken) void stager.discard();
      });
    }
    next();
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) return finish(httpError(413, 'request entity too large', 'entity.too.large', { limit, received }));
    if (declared !== undefined && received > declared) return finish(httpError(400, 'request size did not match content length', 'request.size.invalid'));
    feed(decoder.decode(chunk, { stream: true }));
    const wait = stager?.backpressure();
    if (wait) {
      req.pause();
      void wait.then(() => {
        if (!done) req.resume();
      });
    }
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
