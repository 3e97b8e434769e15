// Stored files at /files/<key>. Who may read what (issue 11.8, docs/security.md):
// - results (`results/<taskId>/...`) are capability URLs: whoever holds the link reads the file,
//   as clients expect of a result URL they pass to a player or a CDN; task ids are random UUIDs
//   (122 bits), so links cannot be guessed. Cached publicly: a result never changes.
// - inputs (`inputs/<random>/...`, the client's inline reference files) are private: served only
//   with an unexpired signature (storage/signed-url.ts; the URL the provider is given), with
//   `Cache-Control: private, no-store`, and deleted when their task settles.
// Streams are joined with pipeline() (or the driver's sendTo, with the same semantics): when the client goes away (a player seeking aborts every
// time), the stored file's stream is destroyed at once, so no descriptor or S3 socket is left
// held (issue 11.7); a response that makes no progress for IDLE_MS is cut the same way.
import { pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import express, { Request, Response } from 'express';
import { AppError } from '@mediagen/errors';
import { isPrivateKey, isValidKey, StorageDriver, verifyFileSignature } from '@mediagen/storage';

/** A download that neither takes nor gets bytes for this long is dropped (its stream closed). */
export const IDLE_MS = 30_000;

const notFound = (res: Response): void => {
  res.status(404).json(new AppError('not_found', 'File not found').toBody());
};

/** Parses a single `bytes=` range; null means "serve the whole file" (absent, malformed or multi-range). */
function parseRange(req: Request, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!req.headers.range) return null;
  const ranges = req.range(size, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  // Malformed headers are ignored (RFC 9110 14.2); several ranges get the whole file rather than
  // a multipart body, which the RFC also allows and every client handles.
  if (ranges === -2 || ranges === undefined || ranges.type !== 'bytes' || ranges.length !== 1) return null;
  return { start: ranges[0].start, end: ranges[0].end };
}

/** `results/<taskId>/...`: the task whose result a key holds (null for other keys, e.g. inline files). */
const RESULT_KEY = /^results\/([^/]+)\//;

/**
 * Results are served only for completed tasks (issue 12, point 6): the worker stores a result
 * before the completing compare-and-set, which can lose (a timeout or another settlement won), and
 * a failed, refunded task must not give its result away at a predictable URL. Completion is
 * terminal, so a positive answer is remembered; a negative one is asked again next time.
 */
function resultGate(isCompleted: (taskId: string) => Promise<boolean>, max = 50_000) {
  const completed = new Set<string>();
  return async (key: string): Promise<boolean> => {
    const taskId = RESULT_KEY.exec(key)?.[1];
    if (taskId === undefined || completed.has(taskId)) return true;
    if (!(await isCompleted(taskId))) return false;
    if (completed.size >= max) completed.clear();
    completed.add(taskId);
    return true;
  };
}

export interface FilesRouterOptions {
  /** HMAC key of signed input URLs; without it inputs are never served. */
  signingSecret?: string;
  /** Results of tasks not (yet) completed are not served. */
  isTaskCompleted?: (taskId: string) => Promise<boolean>;
  idleMs?: number;
}

export function createFilesRouter(storage: StorageDriver, opts: FilesRouterOptions = {}): express.Router {
  const router = express.Router();
  const idleMs = opts.idleMs ?? IDLE_MS;
  const visible = opts.isTaskCompleted ? resultGate(opts.isTaskCompleted) : async () => true;
  const serve = async (req: Request, res: Response): Promise<void> => {
    const segments = (req.params as { key?: string | string[] }).key;
    const key = Array.isArray(segments) ? segments.join('/') : (segments ?? '');
    if (!isValidKey(key)) return notFound(res);
    const priv = isPrivateKey(key);
    // Not 403: an unsigned request learns nothing, not even that the input exists.
    if (priv && !(opts.signingSecret && verifyFileSignature(opts.signingSecret, key, req.query.exp, req.query.sig))) return notFound(res);
    if (!(await visible(key))) return notFound(res);
    const info = await storage.stat(key);
    if (!info) return notFound(res);
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Type', info.contentType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // A result key is written once per task and never changes afterwards; inputs are private.
    res.setHeader('Cache-Control', priv ? 'private, no-store' : 'public, max-age=86400, immutable');
    const range = parseRange(req, info.bytes);
    if (range === 'unsatisfiable') {
      res.status(416).setHeader('Content-Range', `bytes */${info.bytes}`);
      res.json(new AppError('validation_error', 'Requested range not satisfiable').toBody());
      return;
    }
    if (range) {
      res.status(206);
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${info.bytes}`);
      res.setHeader('Content-Length', String(range.end - range.start + 1));
    } else {
      res.status(200);
      res.setHeader('Content-Length', String(info.bytes));
    }
    if (req.method === 'HEAD' || (!range && info.bytes === 0)) {
      res.end();
      return;
    }
    if (res.destroyed || req.socket.destroyed) return; // gone during the stat: open nothing
    res.setTimeout(idleMs, () => res.destroy());
    // Both paths close the source when the response closes early, and destroy the response when
    // the source fails (headers are out: the client sees a cut transfer, as it must). sendTo (the
    // filesystem driver) reuses its read buffers: docs/benchmark.md, "large results".
    if (storage.sendTo) return storage.sendTo(key, range ?? undefined, res, () => undefined);
    const stream = storage.createReadStream(key, range ?? undefined) as Readable;
    pipeline(stream, res, () => undefined);
  };
  router.get('/*key', serve); // Express answers HEAD with the GET handler; serve() sends no body then.
  return router;
}
