// Session, CSRF and role checks for every console page after the login.
import type { Request, RequestHandler } from 'express';
import type { AuditContext, SessionRecord } from '@mediagen/db';
import type { ConsoleDeps } from './deps';
import { csrfMatches, sessionOf } from './sessions';
import { ConsoleError } from './console-error';

/** A page without a live session sends the browser to the sign-in page and back afterwards. */
export function requireSession(deps: ConsoleDeps): RequestHandler {
  return async (req, res, next) => {
    const s = await sessionOf(deps.db, req);
    if (!s) {
      if (req.method === 'GET') return res.redirect(303, `/console/login?next=${encodeURIComponent(req.originalUrl)}`);
      return next(new ConsoleError(401, 'Your session has ended. Sign in again, then repeat the action.'));
    }
    res.locals.session = s;
    next();
  };
}

/**
 * Every state-changing request carries the session's CSRF token in the form field `_csrf` (any
 * surface whose res.locals.session has a csrfToken: the console and the account pages).
 */
export const requireCsrf: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  const s = res.locals.session as Pick<SessionRecord, 'csrfToken'>;
  if (!csrfMatches(s, (req.body as Record<string, unknown> | undefined)?._csrf)) {
    return next(new ConsoleError(403, 'The form was stale or not sent from this console. Reload the page and try again.'));
  }
  next();
};

/** Writes need the admin role; viewers read. */
export const requireAdmin: RequestHandler = (_req, res, next) => {
  const s = res.locals.session as SessionRecord;
  if (s.operator.role !== 'admin') return next(new ConsoleError(403, 'Your role (viewer) can read but not change anything. Ask an admin.'));
  next();
};

/** `operator:<name>`: the actor written to the ledger for the session's changes. */
export const actorOf = (s: SessionRecord): string => `operator:${s.operator.name}`;

/** The audit actor of the session's changes: the operator and the client address. */
export const auditOf = (req: Request, s: SessionRecord): AuditContext => ({ actor: { type: 'operator', id: s.operator.id, name: s.operator.name }, ip: req.ip ?? null });
