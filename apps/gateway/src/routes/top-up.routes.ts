import { Router } from 'express';

/**
 * The old default `topUpUrl` (spec 2.2): kept so links already handed out still lead somewhere;
 * the top-up page is the account holder's, /account/top-up (sign-in first when needed).
 */
export function topUpPageRouter(): Router {
  const r = Router();
  r.get('/billing/top-up', (_req, res) => res.redirect(303, '/account/top-up'));
  return r;
}
