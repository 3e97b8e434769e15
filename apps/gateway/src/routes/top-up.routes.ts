import { Router } from 'express';

/**
 * The default `topUpUrl` (spec 2.2) points here, so it is never a dead link. Deployments with a
 * billing portal set TOP_UP_URL to it instead.
 */
export function topUpPageRouter(): Router {
  const r = Router();
  r.get('/billing/top-up', (_req, res) => {
    res.type('html').send(
      '<!doctype html><meta charset="utf-8"><title>Top up your balance</title>' +
        '<h1>Top up your balance</h1><p>Balances of this service are topped up by its operator. ' +
        'Contact your account administrator to add credit; your balance is at <code>GET /api/balance</code>.</p>',
    );
  });
  return r;
}
