// Stored files at /files/<key>. Who may read what (docs/security.md):
// - results (`results/<taskId>/...`) are capability URLs: whoever holds the link reads the file,
//   as clients expect of a result URL they pass to a player or a CDN; task ids are random UUIDs
//   (122 bits), so links cannot be guessed. Cached publicly (a result never changes) until its
//   task's expiresAt at most; past it they answer 410 result_expired naming the expiry
//   (docs/data-retention.md), whether or not the retention job has deleted the files yet.
// - inputs (`inputs/<random>/...`, the client's inline reference files) are private: served only
//   with an unexpired signature (storage/signed-url.ts; the URL the provider is given), with
//   `Cache-Control: private, no-store`, and deleted when their task settles.
// Streams are joined with pipeline() (or the driver's sendTo, with the same semantics): when the client goes away (a player seeking aborts every
// time), the stored file's stream is destroyed at once, so no descriptor or S3 socket is left
// held; a response that makes no progress for IDLE_MS is cut the same way.
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

/** A completed task's result expiry, as packages/db resultState reads it (null: not completed). */
export type ResultState = { expiresAt: Date | null; expired: boolean } | null;

/** What the gate says of a key: serve it (until `expiresAt`, ms; null: no expiry), hide it (404), or 410. */
type Verdict = { serve: true; expiresAt: number | null } | { serve: false } | { expiredAt: Date };

/** How long a completed task's expiry is trusted before it is read again (a retention change moves it). */
export const EXPIRY_RECHECK_MS = 60_000;

/**
 * Results are served only for completed tasks: the worker stores a result
 * before the completing compare-and-set, which can lose (a timeout or another settlement won), and
 * a failed, refunded task must not give its result away at a predictable URL. A completed task's
 * expiry is remembered for EXPIRY_RECHECK_MS; once it looks past, the database (whose clock the
 * retention job deletes by) is asked before answering 410. A negative answer is asked again next time.
 */
function resultGate(readState: (taskId: string) => Promise<ResultState>, max = 50_000) {
  const known = new Map<string, { expiresAt: number | null; readAt: number }>();
  const read = async (taskId: string): Promise<Verdict> => {
    const s = await readState(taskId);
    if (!s) return { serve: false };
    if (s.expired && s.expiresAt) return { expiredAt: s.expiresAt };
    if (known.size >= max) known.clear();
    const expiresAt = s.expiresAt ? s.expiresAt.getTime() : null;
    known.set(taskId, { expiresAt, readAt: Date.now() });
    return { serve: true, expiresAt };
  };
  return {
    check: async (key: string): Promise<Verdict> => {
      const taskId = RESULT_KEY.exec(key)?.[1];
      if (taskId === undefined) return { serve: true, expiresAt: null };
      const k = known.get(taskId);
      const now = Date.now();
      if (k && now - k.readAt < EXPIRY_RECHECK_MS && (k.expiresAt === null || k.expiresAt > now)) return { serve: true, expiresAt: k.expiresAt };
      return read(taskId);
    },
    /** The file is missing: expired (and deleted) or simply not there. */
    whenMissing: async (key: string): Promise<Verdict> => {
      const taskId = RESULT_KEY.exec(key)?.[1];
      return taskId === undefined ? { serve: false } : read(taskId);
    },
  };
}

const expired = (res: Response, at: Date): void => {
  const iso = at.toISOString();
  res.setHeader('Cache-Control', 'no-store');
  res.status(410).json(new AppError('result_expired', `This result expired at ${iso}; its files are deleted`, undefined, { expiresAt: iso }).toBody());
};

/** A day, or less when the result expires sooner: no cache keeps serving it past its expiry. */
const maxAgeFor = (expiresAt: number | null): number =>
  expiresAt === null ? 86_400 : Math.max(0, Math.min(86_400, Math.floor((expiresAt - Date.now()) / 1000)));

export interface FilesRouterOptions {
  /** HMAC key of signed input URLs; without it inputs are never served. */
  signingSecret?: string;
  /** Results of tasks not (yet) completed are not served; expired ones answer 410. */
  resultState?: (taskId: string) => Promise<ResultState>;
  idleMs?: number;
}

export function createFilesRouter(storage: StorageDriver, opts: FilesRouterOptions = {}): express.Router {
  const router = express.Router();
  const idleMs = opts.idleMs ?? IDLE_MS;
  const always = async (): Promise<Verdict> => ({ serve: true, expiresAt: null });
  const gate = opts.resultState ? resultGate(opts.resultState) : { check: always, whenMissing: async (): Promise<Verdict> => ({ serve: false }) };
  const serve = async (req: Request, res: Response): Promise<void> => {
    const segments = (req.params as { key?: string | string[] }).key;
    const key = Array.isArray(segments) ? segments.join('/') : (segments ?? '');
    if (!isValidKey(key)) return notFound(res);
    const priv = isPrivateKey(key);
    // Not 403: an unsigned request learns nothing, not even that the input exists.
    if (priv && !(opts.signingSecret && verifyFileSignature(opts.signingSecret, key, req.query.exp, req.query.sig))) return notFound(res);
    const verdict = await gate.check(key);
    if ('expiredAt' in verdict) return expired(res, verdict.expiredAt);
    if (!verdict.serve) return notFound(res);
    const info = await storage.stat(key);
    if (!info) {
      const late = await gate.whenMissing(key);
      return 'expiredAt' in late ? expired(res, late.expiredAt) : notFound(res);
    }
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Type', info.contentType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // A result key is written once per task and never changes afterwards; inputs are private.
    res.setHeader('Cache-Control', priv ? 'private, no-store' : `public, max-age=${maxAgeFor(verdict.expiresAt)}, immutable`);
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
