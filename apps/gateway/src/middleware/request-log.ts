// Access log: one line per request once the response is done (method, URL, status, time, account;
// never credentials or bodies: the values of query parameters named like secrets, such as the `sig`
// of signed input URLs and callback `token`s, are redacted from the URL, packages/logging
// redact-url.ts), and an X-Request-Id on every response. It writes the same fields and messages
// pino-http wrote, without pino-http's two child loggers per request, which cost the gateway about
// 8% of its CPU under load even when info lines were not written (docs/benchmark.md).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { redactUrl } from '@mediagen/logging';

const REQUEST_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

/**
 * The request's id: the client's X-Request-Id when short and plain; anything else (megabytes,
 * control characters, log-line injection) is replaced by our own.
 */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * The access line of an answered request: written by the middleware below for the Express chain
 * and by the cached-poll lane (routes/cached-poll.ts) for its answers.
 */
export function logAnswered(log: Logger, req: IncomingMessage, res: ServerResponse, id: string, method: string, url: string, start: number, accountId: string | undefined): void {
  const { statusCode } = res;
  const fields = { req: { id, method, url: redactUrl(url) }, res: { statusCode }, responseTime: Date.now() - start, accountId };
  if (statusCode >= 500) log.info({ ...fields, err: new Error(`failed with status code ${statusCode}`) }, 'request errored');
  else log.info(fields, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
}

export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const id = requestId(req);
    res.setHeader('X-Request-Id', id);
    if (!log.isLevelEnabled('info')) return next();
    const start = Date.now();
    const { method, url } = req; // as received: routers rewrite req.url on the way down
    const done = () => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      logAnswered(log, req, res, id, method, url, start, req.auth?.accountId);
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
