// Holder sessions on the console's session layer (cookieSessions): a random token in an HttpOnly,
// SameSite=Strict cookie (Secure in production), its sha256 in HolderSession with an expiry, and
// the synchronizer CSRF token every form posts back (requireCsrf from @mediagen/console).
import type { Request, RequestHandler, Response } from 'express';
import { createHolderSession, deleteHolderSession, findHolderSession, HolderSessionRecord } from '@mediagen/db';
import { ConsoleError, cookieSessions } from '@mediagen/console';
import type { AccountDeps } from './deps';

/** A week: holders are customers at their own machines; signing out or a password reset ends it. */
export const holderSessions = cookieSessions('mg_account', 7 * 24 * 3600_000);

export async function startHolderSession(deps: AccountDeps, res: Response, holderId: string): Promise<void> {
  const s = holderSessions.mint();
  await createHolderSession(deps.db, { id: s.id, holderId, csrfToken: s.csrfToken, expiresAt: s.expiresAt });
  holderSessions.set(res, s.token, deps.secureCookies);
}

export async function holderSessionOf(deps: AccountDeps, req: Request): Promise<HolderSessionRecord | null> {
  const id = holderSessions.idOf(req);
  return id ? findHolderSession(deps.db, id) : null;
}

export async function endHolderSession(deps: AccountDeps, req: Request, res: Response): Promise<void> {
  const id = holderSessions.idOf(req);
  if (id) await deleteHolderSession(deps.db, id);
  holderSessions.clear(res, deps.secureCookies);
}

/** Pages behind sign-in: without a live session, GETs go to the sign-in page and back; writes get 401. */
export function requireHolder(deps: AccountDeps): RequestHandler {
  return async (req, res, next) => {
    const s = await holderSessionOf(deps, req);
    if (!s) {
      if (req.method === 'GET') return res.redirect(303, `/account/signin?next=${encodeURIComponent(req.originalUrl)}`);
      return next(new ConsoleError(401, 'Your session has ended. Sign in again, then repeat the action.'));
    }
    res.locals.session = s;
    next();
  };
}

/** The signed-in holder's account: every query of the pages is scoped to it. */
export const accountOf = (res: Response): string => (res.locals.session as HolderSessionRecord).holder.accountId;
export const holderOf = (res: Response): HolderSessionRecord['holder'] => (res.locals.session as HolderSessionRecord).holder;
