// The one place errors become HTTP responses: `{error, code, details?}` (docs/api.md).
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, isAppError } from '@mediagen/errors';
import { isDatabaseUnavailable } from '@mediagen/db';
import type { Logger } from 'pino';

type FrameworkError = { type?: string; status?: number; statusCode?: number; message?: string };

/** body-parser, the router and friends signal with `type`/`status`; map them to stable codes. */
function fromFrameworkError(err: FrameworkError): AppError | null {
  if (err.type === 'entity.too.large') return new AppError('payload_too_large', 'Request body exceeds the 40 MB limit');
  if (err.type === 'entity.parse.failed') return new AppError('invalid_json', 'Request body is not valid JSON');
  if (err.type === 'entity.nul') return new AppError('invalid_json', String(err.message));
  if (err.type === 'encoding.unsupported') return new AppError('unsupported_media_type', String(err.message ?? 'Content-Encoding not accepted'));
  if (err.type === 'url.nul') return new AppError('validation_error', 'The URL contains a NUL character (%00)');
  if (err.type === 'charset.unsupported') return new AppError('invalid_json', 'Request body must be UTF-8 JSON');
  if (err.type === 'request.aborted') return new AppError('validation_error', 'Request aborted by the client');
  // Any other client error a framework layer flags (a corrupt body stream, a path the router cannot
  // percent-decode) stays a 4xx: it is the request that is wrong, not the service.
  const status = err.status ?? err.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 404) return new AppError('not_found', 'Not found');
    if (status === 413) return new AppError('payload_too_large', 'Request body too large');
    if (status === 415) return new AppError('unsupported_media_type', 'Unsupported request body');
    const text = err instanceof URIError || /decode/i.test(err.message ?? '') ? 'The URL is not valid percent-encoding' : 'Malformed request';
    return new AppError('validation_error', text);
  }
  return null;
}

/**
 * The database did not answer in time (DB_* timeouts) or the connection broke: a 503 with the error
 * body, not a hang and not a 500. Nothing half-done is left: a submit's charge is one transaction.
 */
function fromDatabaseError(err: unknown, log: Logger): AppError | null {
  if (!isDatabaseUnavailable(err)) return null;
  log.warn({ err: (err as Error)?.message }, 'database unavailable; answered 503');
  return new AppError('service_unavailable', 'The database did not answer in time; retry shortly (with the same idempotency id for a submit)', undefined, undefined, { 'Retry-After': '1' });
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const appErr = isAppError(err) ? err : (fromFrameworkError(err ?? {}) ?? fromDatabaseError(err, log));
    if (appErr) {
      if (res.headersSent) return void res.destroy();
      if (appErr.headers) res.set(appErr.headers);
      res.status(appErr.status).json(appErr.toBody());
      return;
    }
    log.error({ err }, 'unhandled error');
    if (res.headersSent) return void res.destroy();
    res.status(500).json({ error: 'Internal server error', code: 'internal_error' });
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) =>
  next(new AppError('not_found', `No route for ${req.method} ${req.path.slice(0, 200)}`));
