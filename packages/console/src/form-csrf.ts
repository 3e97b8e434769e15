// CSRF for forms shown before there is a session (sign-in, sign-up, password reset): double
// submit, a random value in a short-lived SameSite=Strict HttpOnly cookie and in the form. Another
// site can neither read the cookie nor make the browser send it, so it cannot post these forms.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { readCookie } from './sessions';

export function formCsrf(cookie: string, path: string, secure: boolean) {
  return {
    /** Sets the cookie; put the returned value in the form's `_csrf` field. */
    issue(res: Response): string {
      const token = randomBytes(24).toString('base64url');
      res.cookie(cookie, token, { httpOnly: true, sameSite: 'strict', secure, path, maxAge: 3600_000 });
      return token;
    },
    matches(req: Request): boolean {
      const have = readCookie(req, cookie) ?? '';
      const given = (req.body as Record<string, unknown> | undefined)?._csrf;
      if (!have || typeof given !== 'string' || have.length !== given.length) return false;
      return timingSafeEqual(Buffer.from(have), Buffer.from(given));
    },
    clear(res: Response): void {
      res.clearCookie(cookie, { path });
    },
  };
}
