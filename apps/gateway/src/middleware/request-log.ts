// Access log: one line per request once the response is done (method, URL, status, time, account;
// never credentials or bodies), and an X-Request-Id on every response. It writes the same fields
// and messages pino-http wrote, without pino-http's two child loggers per request, which cost the
// gateway about 8% of its CPU under load even when info lines were not written (docs/benchmark.md).
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

const REQUEST_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    // A client's id is echoed and logged only when short and plain; anything else (megabytes,
    // control characters, log-line injection) is replaced by our own.
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    if (!log.isLevelEnabled('info')) return next();
    const start = Date.now();
    const { method, url } = req; // as received: routers rewrite req.url on the way down
    const done = () => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      const fields = { req: { id, method, url }, res: { statusCode: res.statusCode }, responseTime: Date.now() - start, accountId: req.auth?.accountId };
      if (res.statusCode >= 500) log.info({ ...fields, err: new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
      else log.info(fields, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
