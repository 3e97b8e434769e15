import { timingSafeEqual, createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { AppError } from '@mediagen/errors';

/** Does the request carry `Authorization: Bearer <one of tokens>`? Constant time (hashing first equalises the lengths). */
export function bearerMatches(...tokens: (string | undefined)[]): (req: Request) => boolean {
  const expected = tokens.filter((t): t is string => !!t).map((t) => createHash('sha256').update(t).digest());
  return (req) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const given = createHash('sha256').update(m?.[1] ?? '').digest();
    let ok = false;
    for (const e of expected) ok = timingSafeEqual(given, e) || ok;
    return !!m && ok;
  };
}

/** Bearer ADMIN_TOKEN. */
export function adminAuth(token: string): RequestHandler {
  const matches = bearerMatches(token);
  return (req, _res, next) => {
    if (!matches(req)) {
      return next(new AppError('unauthorized', 'Admin endpoints need "Authorization: Bearer <ADMIN_TOKEN>"', undefined, undefined, { 'WWW-Authenticate': 'Bearer realm="admin"' }));
    }
    next();
  };
}
