// Console sessions: a random 256-bit token in an HttpOnly, SameSite=Strict cookie (Secure in
// production), stored in Postgres as its sha256 with an expiry. Every state-changing form carries
// the session's CSRF token (synchronizer token), checked in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { AuditInput, createSession, deleteSession, Db, findSession, SessionRecord } from '@mediagen/db';

export const SESSION_COOKIE = 'mg_console';
/** Sessions last 8 hours (a working day); signing in again is cheap, a stolen laptop's session is not. */
export const SESSION_TTL_MS = 8 * 3600_000;

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The cookie side of a server-side session, for any surface (console, account pages): a random
 * token for the cookie and the sha256 that the database keeps, a CSRF token, and the cookie's
 * set/read/clear. Each surface stores its sessions in its own table.
 */
export function cookieSessions(cookie: string, ttlMs: number) {
  return {
    cookie,
    ttlMs,
    /** A new session's secrets: `token` goes to the cookie, `id` (its sha256) to the database. */
    mint: () => {
      const token = randomBytes(32).toString('base64url');
      return { token, id: sha256(token), csrfToken: randomBytes(32).toString('base64url'), expiresAt: new Date(Date.now() + ttlMs) };
    },
    set: (res: Response, token: string, secure: boolean) => res.cookie(cookie, token, { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge: ttlMs }),
    /** The stored id of the request's session cookie, or undefined. */
    idOf: (req: Request): string | undefined => {
      const token = readCookie(req, cookie);
      return token && token.length <= 100 ? sha256(token) : undefined;
    },
    clear: (res: Response, secure: boolean) => res.clearCookie(cookie, { httpOnly: true, sameSite: 'strict', secure, path: '/' }),
  };
}

/**
 * The value of one cookie of the request (no cookie parser needed for one name). A value that is
 * not valid percent-encoding (`mg_console=%`) is treated as absent: no token we issue looks like
 * that, and a hostile cookie must not turn a page into a 500.
 */
export function readCookie(req: Pick<Request, 'headers'>, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Opens a session; `audit` (the sign-in's audit event) commits with it. */
export async function startSession(db: Db, res: Response, operatorId: string, secure: boolean, audit?: AuditInput): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  await createSession(db, { id: sha256(token), operatorId, csrfToken: randomBytes(32).toString('base64url'), expiresAt: new Date(Date.now() + SESSION_TTL_MS) }, audit);
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge: SESSION_TTL_MS });
}

export async function sessionOf(db: Db, req: Request): Promise<SessionRecord | null> {
  const token = readCookie(req, SESSION_COOKIE);
  if (!token || token.length > 100) return null;
  return findSession(db, sha256(token));
}

export async function endSession(db: Db, req: Request, res: Response, secure: boolean): Promise<void> {
  const token = readCookie(req, SESSION_COOKIE);
  if (token) await deleteSession(db, sha256(token));
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', secure, path: '/' });
}

export function csrfMatches(session: Pick<SessionRecord, 'csrfToken'>, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(sha256(given));
  const b = Buffer.from(sha256(session.csrfToken));
  return timingSafeEqual(a, b);
}
