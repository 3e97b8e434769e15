// The account holders' pages, mounted by the gateway at /account: server-rendered on the console's
// web layer (@mediagen/console: renderer, sessions, CSRF, forms, cursors, error page, headers).
// Order: headers, static files, body parser, pages before sign-in, session, CSRF, pages, errors.
import path from 'node:path';
import express, { Router } from 'express';
import { accountBalance, listApiKeys } from '@mediagen/db';
import { ConsoleError, createRenderer, pageHeaders, formBody, pageErrorHandler, requireCsrf } from '@mediagen/console';
import type { AccountDeps } from './deps';
import { authRoutes, signoutRoute } from './routes/auth.routes';
import { accountOf, holderOf, requireHolder } from './holder-session';
import { keyRoutes } from './routes/keys.routes';
import { usageRoutes } from './routes/usage.routes';
import { taskRoutes } from './routes/tasks.routes';
import { topUpRoutes } from './routes/top-up.routes';
import { webhookRoutes } from './routes/webhooks.routes';

export const ACCOUNT_VIEWS = path.resolve(__dirname, '../views');
export const ACCOUNT_PUBLIC = path.resolve(__dirname, '../public');

export function accountRouter(deps: AccountDeps): Router {
  const r = Router();
  const render = createRenderer(deps.cacheTemplates, ACCOUNT_VIEWS);
  r.use(pageHeaders(new URL(deps.publicBaseUrl).origin));
  r.use('/static', express.static(ACCOUNT_PUBLIC, { index: false, maxAge: deps.cacheTemplates ? '1h' : 0, fallthrough: false }));
  r.use(formBody());
  r.use(authRoutes(deps, render));
  r.use(requireHolder(deps));
  r.use(requireCsrf);
  r.use(signoutRoute(deps));
  r.get('/', async (req, res) => {
    const accountId = accountOf(res);
    const [balance, keys] = await Promise.all([accountBalance(deps.db, accountId), listApiKeys(deps.db, accountId)]);
    render(res, 'home', { title: 'Your account', email: holderOf(res).email, balance: balance ?? 0, liveKeys: keys.filter((k) => !k.revokedAt).length, welcome: req.query.welcome === '1', apiBase: deps.publicBaseUrl });
  });
  r.use(keyRoutes(deps, render));
  r.use(usageRoutes(deps, render));
  r.use(taskRoutes(deps, render));
  r.use(topUpRoutes(deps, render));
  r.use(webhookRoutes(deps, render));
  r.use((_req, _res, next) => next(new ConsoleError(404, 'No such page. Use the menu above.')));
  r.use(pageErrorHandler(render, deps.logError, 'account: page failed'));
  return r;
}
