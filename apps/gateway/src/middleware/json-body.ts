// JSON bodies of the submit routes, up to 40 MB. Same contract as express.json({ strict: false })
// (limits, Content-Encoding, charset, empty body -> {}, error types the error handler maps), but
// a large body costs about twice its size in memory instead of about eight times:
// - the body is read as bytes and decoded once (express.json joins one string per 64 KiB chunk
//   and then flattens them into a second copy);
// - each stage drops the previous one before the next allocates (bytes -> text -> parsed), and
//   for bodies of LARGE_BODY_BYTES or more a full GC runs between the stages and after the
//   response, so the copies do not pile up until V8 next feels like collecting.
// Content types other than plain `application/json` (with at most charset=utf-8) go through
// express.json unchanged. See docs/benchmark.md.
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import v8 from 'node:v8';
import vm from 'node:vm';

/** Bodies from this size on are collected eagerly: a full GC costs ~10-20 ms, such a submit far more. */
export const LARGE_BODY_BYTES = 8 * 1024 * 1024;

let fullGc: (() => void) | null = null;
/** A full garbage collection, without starting Node with --expose-gc. */
function collectGarbage(): void {
  if (!fullGc) {
    v8.setFlagsFromString('--expose-gc');
    fullGc = vm.runInNewContext('gc') as () => void;
  }
  fullGc();
}

/** Lets the callers' stack frames (the body reader's) return, so what only they held can be freed. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const httpError = (status: number, message: string, type: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { status, statusCode: status, expose: true, type, ...extra });

/** The plain forms clients send; anything else (other charsets, other parameters) takes the general path. */
const PLAIN_JSON = /^application\/json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i;

export function jsonBody(limit: number): RequestHandler[] {
  const general = express.json({ limit, strict: false });
  const readBytes = express.raw({ type: 'application/json', limit });

  const pick: RequestHandler = (req, res, next) => {
    if (PLAIN_JSON.test(req.headers['content-type'] ?? '')) return readBytes(req, res, next);
    // Everything else, including the refusal of non-UTF charsets, exactly as express.json does it.
    return general(req, res, next);
  };

  const parse = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    // Not read as bytes: no body, or parsed by the general path already (parsed JSON is never a Buffer).
    if (!Buffer.isBuffer(req.body)) return next();
    const large = (req.body as Buffer).length >= LARGE_BODY_BYTES;
    // The socket chunks the body was joined from are garbage now; free them before the text.
    if (large) collectGarbage();
    let text: string | null = (req.body as Buffer).toString('utf8');
    req.body = undefined;
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a leading BOM, dropped as body-parser does
    if (large) {
      // The bytes are still referenced from the reader's stack: free them once it has returned.
      await nextTurn();
      collectGarbage();
      res.once('finish', () => setImmediate(collectGarbage));
    }
    let body: unknown;
    try {
      body = text.length === 0 ? {} : JSON.parse(text);
    } catch (e) {
      return next(httpError(400, (e as Error).message, 'entity.parse.failed'));
    }
    text = null;
    if (large) collectGarbage();
    req.body = body;
    next();
  };

  return [pick, parse];
}
