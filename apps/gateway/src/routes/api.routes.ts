// The public API: submit, poll, balance. Auth and the request-rate limit run
// before the body is parsed, so an unauthenticated 40 MB body is never read into memory.
import { modelList } from '../services/model-list';
import express, { Router } from 'express';
import { findAccount } from '@mediagen/db';
import { AppError } from '@mediagen/errors';
import { MAX_BODY_BYTES } from '@mediagen/catalog';
import type { GatewayDeps } from '../deps';
import { apiKeyAuth } from '../middleware/auth';
import { requestRateLimit } from '../middleware/rate-limit';
import { jsonBody, takeStagedInline } from '../middleware/json-body';
import { submitTask, Endpoint } from '../services/submit.service';
import { quoteTask } from '../services/quote.service';
import { entryEtag, pollLocal, pollTask } from '../services/poll.service';
import type { PollEntry } from '../services/poll-cache';
import { cancelTask } from '../services/cancel.service';
import { listTaskItems, taskItem } from '../services/task-list.service';
import { parseLastEventId } from '../services/task-streams';
import { pollRoutePath } from './poll-paths';
import { JSON_TYPE } from './poll-answer';

export function apiRouter(deps: GatewayDeps): Router {
  const r = Router();
  r.use(apiKeyAuth(deps), requestRateLimit(deps));
  const requireJson: express.RequestHandler = (req, _res, next) =>
    next(req.is('application/json') ? undefined : new AppError('invalid_json', 'Content-Type must be application/json'));
  const json = [requireJson, ...jsonBody(MAX_BODY_BYTES, undefined, { storage: deps.storage })];

  // A client that hangs up mid-submit (or mid-quote) stops its reference fetches (and frees its
  // account's inspection slot) instead of holding them to the media deadline.
  const untilClientGone = <T>(res: express.Response, work: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const gone = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) gone.abort();
    };
    res.once('close', onClose);
    return work(gone.signal).finally(() => res.off('close', onClose));
  };
  // Inline files a large body wrote to storage as it arrived: those a task took stay, the rest
  // (a refused submit, a quote) are deleted once the answer is known.
  const submit = (endpoint: Endpoint) =>
    async (req: express.Request, res: express.Response) => {
      const staged = takeStagedInline(req);
      try {
        const body = await untilClientGone(res, (signal) =>
          submitTask(deps, {
            accountId: req.auth!.accountId,
            endpoint,
            body: req.body,
            idempotencyHeader: req.get('Idempotency-Key'),
            requestId: res.getHeader('X-Request-Id') as string | undefined,
            signal,
            staged: staged ?? undefined,
          }),
        );
        res.status(200).json(body);
      } finally {
        void staged?.discard();
      }
    };
  // Extension: the price of a generate body, validated and inspected as generate does; nothing is created.
  const quote = (endpoint: Endpoint) => async (req: express.Request, res: express.Response) => {
    const staged = takeStagedInline(req);
    try {
      res.status(200).json(await untilClientGone(res, (signal) => quoteTask(deps, { accountId: req.auth!.accountId, endpoint, body: req.body, signal, staged: staged ?? undefined })));
    } finally {
      void staged?.discard();
    }
  };
  // A poll answered from this gateway's copy of the shared cache entry stays synchronous, and sends
  // the body serialised when the entry was copied, with its ETag computed once per entry.
  const cache = deps.pollCache;
  const send = (res: express.Response, e: PollEntry) => {
    const etag = entryEtag(res.app, e);
    res.setHeader('Content-Type', JSON_TYPE);
    if (etag) res.setHeader('ETag', etag);
    res.send(e.json);
  };
  const poll = (type: 'video' | 'image') => (req: express.Request<{ taskId: string }>, res: express.Response, next: express.NextFunction) => {
    const local = pollLocal(cache, req.auth!.accountId, type, req.params.taskId);
    if (local) return send(res, local);
    pollTask(deps, req.auth!.accountId, type, req.params.taskId).then((e) => send(res, e), next);
  };

  r.post('/video/generate', ...json, submit('video'));
  r.post('/image/generate', ...json, submit('image'));
  r.post('/video/quote', ...json, quote('video'));
  r.post('/image/quote', ...json, quote('image'));
  r.get(pollRoutePath('video'), poll('video'));
  r.get(pollRoutePath('image'), poll('image'));
  // Extensions (docs/api.md): listing and cancel.
  r.get('/tasks', async (req, res) => {
    res.json(await listTaskItems(deps, req.auth!.accountId, req.query));
  });
  r.get('/tasks/:taskId', async (req, res) => {
    res.json(await taskItem(deps, req.auth!.accountId, req.params.taskId));
  });
  // Extension: Server-Sent Events of one task until its terminal event (services/task-streams.ts).
  // The request-rate limit above counts the stream once, as the one request it is.
  r.get('/tasks/:taskId/events', async (req: express.Request<{ taskId: string }>, res) => {
    const accountId = req.auth!.accountId;
    const task = await deps.taskReads.get(req.params.taskId);
    if (!task || task.accountId !== accountId) throw new AppError('not_found', `Task ${req.params.taskId} not found`);
    const streams = deps.taskStreams;
    if (!streams.hasRoom(accountId)) {
      throw new AppError('too_many_streams', `This account already has ${deps.config.SSE_MAX_STREAMS_PER_ACCOUNT} task event streams open; close one or poll`, undefined, undefined, {
        'Retry-After': '5',
      });
    }
    streams.start(res, task, parseLastEventId(req.get('Last-Event-ID')));
  });
  const cancel = (type: 'video' | 'image') => async (req: express.Request<{ taskId: string }>, res: express.Response) => {
    const out = await cancelTask(deps, req.auth!.accountId, type, req.params.taskId);
    res.status(out.status).json(out.body);
  };
  r.post('/video/tasks/:taskId/cancel', cancel('video'));
  r.post('/image/tasks/:taskId/cancel', cancel('image'));
  // Extension: what this deployment sells (SOLD_MODELS), for clients that offer a choice.
  r.get('/models', (_req, res) => {
    res.json(modelList(deps.sold));
  });
  r.get('/balance', async (req, res) => {
    const acc = await findAccount(deps.db, req.auth!.accountId);
    if (!acc) throw new AppError('unauthorized', 'The account of this API key no longer exists');
    res.json({ balanceCents: acc.balanceCents, topUpUrl: deps.config.TOP_UP_URL });
  });
  return r;
}
