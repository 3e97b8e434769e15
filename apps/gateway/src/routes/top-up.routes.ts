import { Router } from 'express';

/**
 * The old default `topUpUrl`, kept so links already handed out still lead somewhere: a
 * page that moves on to the account holder's top-up page, /account/top-up (sign-in first when
 * needed). A page rather than a redirect keeps its documented 200 answer.
 */
export function topUpPageRouter(): Router {
  const r = Router();
  r.get('/billing/top-up', (_req, res) => {
    res.type('html').send(
      '<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/account/top-up"><title>Top up your balance</title>' +
        '<h1>Top up your balance</h1><p>Balances are topped up on <a href="/account/top-up">your account\'s top-up page</a>.</p>',
    );
  });
  return r;
}
