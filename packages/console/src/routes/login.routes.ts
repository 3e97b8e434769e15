// Sign in and out. The login form carries its own CSRF token (double submit: a random value in a
// short-lived SameSite=Strict cookie and in the form), so no other site can sign a browser in to
// an account of its choosing. Each try is counted before its password is checked, per (address,
// name) with backoff and per address (login-limiter.ts); the check itself waits its turn at the
// process's hashing gate (passwords.ts), which answers 429 when full. Sign-ins are audited
// (`operator.login`, in the session's transaction) and so are checked failures
// (`operator.login_failed`, with the reason); tries refused by the limiter or the gate are not, so
// a flood of them cannot flood the audit table.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { findOperatorByName, recordAudit } from '@mediagen/db';
import type { ConsoleDeps } from '../deps';
import type { Render } from '../render';
import { DUMMY_HASH_PROMISE, PasswordHashingBusy, verifyPassword } from '../passwords';
import { endSession, readCookie, sessionOf, startSession } from '../sessions';
import { createLoginLimiter } from '../login-limiter';

const LOGIN_CSRF_COOKIE = 'mg_console_login';

/** Only paths on this site (no `//evil`, no scheme): where to go after signing in. */
export const safeNext = (v: unknown): string =>
  typeof v === 'string' && /^\/(console|admin\/queues)(\/[^\s\\]*)?(\?[^\s\\]*)?$/.test(v) && !v.startsWith('//') ? v : '/console/accounts';

export function loginRoutes(deps: ConsoleDeps, render: Render): Router {
  const r = Router();
  const limiter = createLoginLimiter({ redis: deps.redis, prefix: deps.redisPrefix, scope: 'console' });

  const showLogin = (res: Parameters<Render>[0], next: string, error: string | null, status = 200) => {
    const token = randomBytes(24).toString('base64url');
    res.cookie(LOGIN_CSRF_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: deps.secureCookies, path: '/console', maxAge: 3600_000 });
    render(res, 'login', { title: 'Sign in', loginCsrf: token, next, error, session: undefined }, status);
  };

  r.get('/login', async (req, res) => {
    if (await sessionOf(deps.db, req)) return res.redirect(303, safeNext(req.query.next));
    showLogin(res, safeNext(req.query.next), null);
  });

  r.post('/login', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const name = typeof body.name === 'string' ? body.name.trim().slice(0, 100) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 200) : '';
    const next = safeNext(body.next);
    const cookie = readCookie(req, LOGIN_CSRF_COOKIE) ?? '';
    const given = typeof body._csrf === 'string' ? body._csrf : '';
    if (!cookie || cookie.length !== given.length || !timingSafeEqual(Buffer.from(cookie), Buffer.from(given))) {
      return showLogin(res, next, 'The sign-in form expired. Please try again.', 403);
    }
    // The client's address as the gateway's TRUST_PROXY setting reads it (Express req.ip).
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const admission = await limiter.begin(ip, name);
    if (!admission.allowed) {
      res.set('Retry-After', String(admission.retryAfterS));
      return showLogin(res, next, `Too many sign-in attempts. Try again in ${Math.ceil(admission.retryAfterS / 60)} minute(s).`, 429);
    }
    const op = name ? await findOperatorByName(deps.db, name) : null;
    let ok: boolean;
    try {
      // Verify against a dummy hash for unknown names: the answer takes as long either way.
      ok = await verifyPassword(password, op?.passwordHash ?? (await DUMMY_HASH_PROMISE));
    } catch (e) {
      if (!(e instanceof PasswordHashingBusy)) throw e;
      res.set('Retry-After', String(e.retryAfterS));
      return showLogin(res, next, 'The console is busy checking other sign-ins. Try again in a few seconds.', 429);
    }
    if (!op || !ok || op.disabledAt) {
      // The name only when it is an operator's: a password typed into the name field stays out of the trail.
      await recordAudit(deps.db, {
        actor: { type: 'operator', id: op?.id ?? null, name: op?.name ?? null },
        action: 'operator.login_failed',
        targetType: 'operator',
        targetId: op?.id ?? null,
        after: { reason: !op ? 'unknown_name' : !ok ? 'wrong_password' : 'disabled' },
        ip,
      }).catch((err: unknown) => deps.logError(err, 'console: failed sign-in not audited'));
      return showLogin(res, next, 'Wrong name or password.', 401);
    }
    await admission.attempt.succeeded();
    await startSession(deps.db, res, op.id, deps.secureCookies, {
      actor: { type: 'operator', id: op.id, name: op.name },
      action: 'operator.login',
      targetType: 'operator',
      targetId: op.id,
      ip,
    });
    res.clearCookie(LOGIN_CSRF_COOKIE, { path: '/console' });
    res.redirect(303, next);
  });

  return r;
}

/** Sign-out is a POST with the session's CSRF token (a link could be triggered by another site). */
export function logoutRoute(deps: ConsoleDeps): Router {
  const r = Router();
  r.post('/logout', async (req, res) => {
    await endSession(deps.db, req, res, deps.secureCookies);
    res.redirect(303, '/console/login');
  });
  return r;
}
