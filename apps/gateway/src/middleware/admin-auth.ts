import { timingSafeEqual, createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '@mediagen/errors';

/** Bearer ADMIN_TOKEN, compared in constant time (hashing first equalises the lengths). */
export function adminAuth(token: string): RequestHandler {
  const expected = createHash('sha256').update(token).digest();
  return (req, _res, next) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const given = createHash('sha256').update(m?.[1] ?? '').digest();
    if (!m || !timingSafeEqual(given, expected)) {
      return next(new AppError('unauthorized', 'Admin endpoints need "Authorization: Bearer <ADMIN_TOKEN>"', undefined, undefined, { 'WWW-Authenticate': 'Bearer realm="admin"' }));
    }
    next();
  };
}
