// Stored files (results and inline reference files) at /files/<key>. Result URLs are handed to
// clients and to upstream providers as plain public URLs, so this route needs no credential; keys
// are unguessable (they contain the task id). Players seek in videos, hence Range support.
import express, { Request, Response } from 'express';
import { AppError } from '@mediagen/errors';
import { isValidKey, StorageDriver } from '@mediagen/storage';

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

export function createFilesRouter(storage: StorageDriver, isTaskCompleted?: (taskId: string) => Promise<boolean>): express.Router {
  const router = express.Router();
  const visible = isTaskCompleted ? resultGate(isTaskCompleted) : async () => true;

  const serve = async (req: Request, res: Response): Promise<void> => {
    const segments = (req.params as { key?: string | string[] }).key;
    const key = Array.isArray(segments) ? segments.join('/') : (segments ?? '');
    if (!isValidKey(key)) return notFound(res);
    if (!(await visible(key))) return notFound(res);
    const info = await storage.stat(key);
    if (!info) return notFound(res);

    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Type', info.contentType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // A key is written once per task and never changes afterwards.
    res.setHeader('Cache-Control', 'public, max-age=86400, immutable');

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
    const stream = storage.createReadStream(key, range ?? undefined);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  };

  router.get('/*key', serve); // Express answers HEAD with the GET handler; serve() sends no body then.
  return router;
}
