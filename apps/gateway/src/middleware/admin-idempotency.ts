// Idempotency-Key on admin writes (POST/PATCH/DELETE under /admin): the first request with a key
// runs and its answer is kept; a retry with the same key and request gets that answer again (a
// retried top-up credits once), a retry while the first still runs gets 409, the same key with
// another request 422. Failed answers are not kept, so a retry after an error runs again.
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '@mediagen/errors';
import { claimAdminIdempotencyKey, Db, finishAdminIdempotencyKey } from '@mediagen/db';

export function adminIdempotency(db: Db): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (!key || req.method === 'GET' || req.method === 'HEAD') return next();
    if (!/^[\x21-\x7e]{1,200}$/.test(key)) return next(new AppError('validation_error', 'Idempotency-Key: 1-200 visible ASCII characters', [{ path: 'Idempotency-Key', message: 'invalid' }]));
    const fingerprint = createHash('sha256').update(JSON.stringify([req.method, req.originalUrl, req.body ?? null])).digest('hex');
    const stored = `admin:${key}`;
    const claim = await claimAdminIdempotencyKey(db, stored, fingerprint);
    if (claim.state === 'busy') return next(new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is still running; retry shortly'));
    if (claim.state === 'mismatch') return next(new AppError('validation_error', 'This Idempotency-Key was used with another request', [{ path: 'Idempotency-Key', message: 'reused with another request' }]));
    if (claim.state === 'replay') {
      res.set('Idempotent-Replayed', 'true').status(claim.statusCode);
      return claim.body ? res.type('json').send(claim.body) : res.end();
    }
    // A JSON answer is kept BEFORE the client sees it: a retry sent the moment the answer arrives
    // must find it (keeping it on 'close' let such a retry race into a 409).
    let kept = false;
    const json = res.json.bind(res);
    res.json = (b: unknown) => {
      if (res.statusCode >= 400) return json(b);
      finishAdminIdempotencyKey(db, stored, res.statusCode, JSON.stringify(b)).then(
        () => {
          kept = true;
          json(b);
        },
        (err: unknown) => next(err),
      );
      return res;
    };
    // Answers without a JSON body (204) are kept when sent; a failed or abandoned request (the
    // client went away mid-request) releases the key so a retry runs again.
    res.on('close', () => {
      if (kept) return;
      const ok = res.writableFinished && res.statusCode < 400;
      void finishAdminIdempotencyKey(db, stored, ok ? res.statusCode : 500, '').catch(() => undefined);
    });
    next();
  };
}
