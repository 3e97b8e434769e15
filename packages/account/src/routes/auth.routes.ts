// Sign-up, email verification, sign-in, sign-out and password reset. Forms shown before a session
// carry a double-submit CSRF token (formCsrf). Answers never tell whether an address has an account
// (sign-up and "forgot" say "check your email" either way). Sign-ins go through the console's login
// limiter (scope 'account'): each try is counted atomically before the password is checked, the
// lockout is per (address, email) so nobody locks a holder out from elsewhere, and password hashing
// shares the process's gate (busy: 429 with Retry-After).
import { Router, Request, Response } from 'express';
import { z } from 'zod';
import {
  createHolderWithAccount, findHolder, findHolderByEmail, markEmailVerified, peekHolderToken, setHolderPassword, useHolderToken,
} from '@mediagen/db';
import { createLoginLimiter, DUMMY_HASH_PROMISE, formCsrf, hashPassword, PasswordHashingBusy, Render, verifyPassword } from '@mediagen/console';
import type { AccountDeps } from '../deps';
import { endHolderSession, holderSessionOf, startHolderSession } from '../holder-session';
import { linkTokenId, sendAlreadyRegistered, sendResetLink, sendVerifyLink } from '../links';

export const MIN_HOLDER_PASSWORD = 10;
const email = z.string().trim().toLowerCase().max(254, 'at most 254 characters').pipe(z.email('a valid email address, such as you@example.com'));
const password = z.string().min(MIN_HOLDER_PASSWORD, `at least ${MIN_HOLDER_PASSWORD} characters`).max(200, 'at most 200 characters');

/** Only paths of the account pages: where to go after signing in. */
export const safeAccountNext = (v: unknown): string =>
  typeof v === 'string' && /^\/account(\/[^\s\\]*)?(\?[^\s\\]*)?$/.test(v) && !v.startsWith('//') ? v : '/account';

const field = (b: unknown, k: string): unknown => (b as Record<string, unknown> | undefined)?.[k];
const issueText = (r: z.ZodSafeParseResult<unknown>) => (r.success ? null : r.error.issues[0]?.message ?? 'invalid');

export function authRoutes(deps: AccountDeps, render: Render): Router {
  const r = Router();
  const csrf = formCsrf('mg_account_form', '/account', deps.secureCookies);
  // Its own scope: holders' tries never count against operators' and back.
  const limiter = createLoginLimiter({ redis: deps.redis, prefix: deps.redisPrefix, scope: 'account' });
  /** Hashing is gated per process: a full gate is a 429 page, not a 500. */
  const busy = (res: Response, view: string, data: Record<string, unknown>, e: unknown) => {
    if (!(e instanceof PasswordHashingBusy)) throw e;
    res.set('Retry-After', String(e.retryAfterS));
    return form(res, view, { ...data, error: 'We are busy checking other sign-ins. Try again in a few seconds.' }, 429);
  };
  const form = (res: Response, view: string, data: Record<string, unknown>, status = 200) =>
    render(res, view, { session: undefined, formCsrf: csrf.issue(res), signupMode: deps.signupMode, error: null, ...data }, status);
  const stale = (res: Response, view: string, data: Record<string, unknown> = {}) =>
    form(res, view, { ...data, error: 'The form expired. Please try again.' }, 403);

  // --- sign-up
  r.get('/signup', (req, res) => {
    form(res, 'signup', { title: 'Create your account', invite: typeof req.query.invite === 'string' ? req.query.invite.slice(0, 100) : '', email: '' });
  });

  r.post('/signup', async (req, res) => {
    const invite = typeof field(req.body, 'invite') === 'string' ? String(field(req.body, 'invite')).slice(0, 100) : '';
    const data = { title: 'Create your account', invite, email: String(field(req.body, 'email') ?? '').slice(0, 254) };
    if (!csrf.matches(req)) return stale(res, 'signup', data);
    if (deps.signupMode === 'closed') return form(res, 'signup', { ...data, error: 'Sign-up is closed on this service. Ask its operator for an account.' }, 403);
    const e = email.safeParse(field(req.body, 'email'));
    if (!e.success) return form(res, 'signup', { ...data, error: `Email: ${issueText(e)}.` }, 422);
    const p = password.safeParse(field(req.body, 'password'));
    if (!p.success) return form(res, 'signup', { ...data, error: `Password: ${issueText(p)}.` }, 422);
    let inviteId: string | undefined;
    if (deps.signupMode === 'invite') {
      inviteId = linkTokenId(invite);
      if (!inviteId || !(await peekHolderToken(deps.db, inviteId, 'invite')))
        return form(res, 'signup', { ...data, error: 'Sign-up needs an invitation link from the operator, and this one is missing, used or expired.' }, 403);
    }
    let passwordHash: string;
    try {
      passwordHash = await hashPassword(p.data);
    } catch (err) {
      return busy(res, 'signup', data, err);
    }
    const out = await createHolderWithAccount(deps.db, { email: e.data, passwordHash, openingBalanceCents: deps.signupBalanceCents, ip: req.ip ?? null });
    if ('taken' in out) {
      await sendAlreadyRegistered(deps, e.data);
    } else {
      // The invite is used only by a sign-up that made an account; a lost race leaves an account
      // made without it, which is logged (the operator sees it in the Holders list anyway).
      if (inviteId && !(await useHolderToken(deps.db, inviteId, 'invite'))) deps.logInfo({ accountId: out.accountId }, 'account: an invite was used twice at once');
      await sendVerifyLink(deps, out.holderId, e.data);
    }
    render(res, 'check-email', { title: 'Check your email', session: undefined, email: e.data, what: 'signup' });
  });

  // --- verification: the link opens a page with one button (mail scanners that fetch links do not use them up)
  r.get('/verify', (req, res) => {
    form(res, 'verify', { title: 'Confirm your email', token: typeof req.query.token === 'string' ? req.query.token.slice(0, 100) : '' });
  });

  r.post('/verify', async (req, res) => {
    const token = String(field(req.body, 'token') ?? '').slice(0, 100);
    if (!csrf.matches(req)) return stale(res, 'verify', { title: 'Confirm your email', token });
    const id = linkTokenId(token);
    const used = id ? await useHolderToken(deps.db, id, 'verify') : undefined;
    const holder = used?.holderId ? await findHolder(deps.db, used.holderId) : null;
    if (!holder || holder.disabledAt) {
      return form(res, 'verify', { title: 'Confirm your email', token: '', error: 'This link is used, expired or wrong. Sign in to get a new one.' }, 410);
    }
    await markEmailVerified(deps.db, holder.id, req.ip ?? null);
    await startHolderSession(deps, res, holder.id);
    csrf.clear(res);
    res.redirect(303, '/account?welcome=1');
  });

  // --- sign-in
  r.get('/signin', async (req, res) => {
    if (await holderSessionOf(deps, req)) return res.redirect(303, safeAccountNext(req.query.next));
    form(res, 'signin', { title: 'Sign in', next: safeAccountNext(req.query.next), email: '' });
  });

  r.post('/signin', async (req: Request, res: Response) => {
    const next = safeAccountNext(field(req.body, 'next'));
    const given = typeof field(req.body, 'email') === 'string' ? String(field(req.body, 'email')).trim().toLowerCase().slice(0, 254) : '';
    const pw = typeof field(req.body, 'password') === 'string' ? String(field(req.body, 'password')).slice(0, 200) : '';
    const data = { title: 'Sign in', next, email: given };
    if (!csrf.matches(req)) return stale(res, 'signin', data);
    // The client's address as the gateway's TRUST_PROXY setting reads it (Express req.ip).
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const admission = await limiter.begin(ip, given);
    if (!admission.allowed) {
      res.set('Retry-After', String(admission.retryAfterS));
      return form(res, 'signin', { ...data, error: `Too many sign-in attempts. Try again in ${Math.ceil(admission.retryAfterS / 60)} minute(s), or reset your password.` }, 429);
    }
    const holder = given ? await findHolderByEmail(deps.db, given) : null;
    let ok: boolean;
    try {
      // Verify against a dummy hash for unknown addresses: the answer takes as long either way.
      ok = await verifyPassword(pw, holder?.passwordHash ?? (await DUMMY_HASH_PROMISE));
    } catch (e) {
      return busy(res, 'signin', data, e);
    }
    if (!holder || !ok) return form(res, 'signin', { ...data, error: 'Wrong email or password.' }, 401);
    await admission.attempt.succeeded();
    if (holder.disabledAt) return form(res, 'signin', { ...data, error: 'This account is disabled. Contact the operator of this service.' }, 403);
    if (!holder.emailVerifiedAt) {
      await sendVerifyLink(deps, holder.id, holder.email);
      return form(res, 'signin', { ...data, error: 'Confirm your email address first: we sent you a new link.' }, 403);
    }
    await startHolderSession(deps, res, holder.id);
    csrf.clear(res);
    res.redirect(303, next);
  });

  // --- password reset
  r.get('/forgot', (_req, res) => form(res, 'forgot', { title: 'Reset your password', email: '' }));

  r.post('/forgot', async (req, res) => {
    const data = { title: 'Reset your password', email: String(field(req.body, 'email') ?? '').slice(0, 254) };
    if (!csrf.matches(req)) return stale(res, 'forgot', data);
    const e = email.safeParse(field(req.body, 'email'));
    if (!e.success) return form(res, 'forgot', { ...data, error: `Email: ${issueText(e)}.` }, 422);
    const holder = await findHolderByEmail(deps.db, e.data);
    if (holder && !holder.disabledAt) await sendResetLink(deps, holder.id, holder.email);
    render(res, 'check-email', { title: 'Check your email', session: undefined, email: e.data, what: 'reset' });
  });

  r.get('/reset', async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token.slice(0, 100) : '';
    const id = linkTokenId(token);
    const live = id ? await peekHolderToken(deps.db, id, 'reset') : null;
    if (!live) return form(res, 'forgot', { title: 'Reset your password', email: '', error: 'This reset link is used, expired or wrong. Ask for a new one below.' }, 410);
    form(res, 'reset', { title: 'Choose a new password', token });
  });

  r.post('/reset', async (req, res) => {
    const token = String(field(req.body, 'token') ?? '').slice(0, 100);
    const data = { title: 'Choose a new password', token };
    if (!csrf.matches(req)) return stale(res, 'reset', data);
    const p = password.safeParse(field(req.body, 'password'));
    if (!p.success) return form(res, 'reset', { ...data, error: `Password: ${issueText(p)}.` }, 422);
    let passwordHash: string;
    try {
      passwordHash = await hashPassword(p.data);
    } catch (err) {
      return busy(res, 'reset', data, err);
    }
    const id = linkTokenId(token);
    const used = id ? await useHolderToken(deps.db, id, 'reset') : undefined;
    const holder = used?.holderId ? await findHolder(deps.db, used.holderId) : null;
    if (!holder || holder.disabledAt) return form(res, 'forgot', { title: 'Reset your password', email: '', error: 'This reset link is used, expired or wrong. Ask for a new one below.' }, 410);
    // Every other session ends; the emailed link proves the address too.
    await setHolderPassword(deps.db, holder.id, passwordHash, req.ip ?? null);
    await markEmailVerified(deps.db, holder.id, req.ip ?? null);
    await startHolderSession(deps, res, holder.id);
    csrf.clear(res);
    res.redirect(303, '/account');
  });

  return r;
}

/** Sign-out is a POST with the session's CSRF token (a link could be triggered by another site). */
export function signoutRoute(deps: AccountDeps): Router {
  const r = Router();
  r.post('/signout', async (req, res) => {
    await endHolderSession(deps, req, res);
    res.redirect(303, '/account/signin');
  });
  return r;
}
