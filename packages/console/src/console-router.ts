// The operators' console, mounted by the gateway at /console: server-rendered pages (Eta), one
// static script and stylesheet, form posts with a session and CSRF token. Routes by area live in
// routes/; this file orders the layers: headers, static files, sign-in, session, CSRF, pages, errors.
import path from 'node:path';
import express, { ErrorRequestHandler, Router } from 'express';
import type { ConsoleDeps } from './deps';
import { createRenderer, Render } from './render';
import { consoleHeaders } from './security';
import { loginRoutes, logoutRoute } from './routes/login.routes';
import { requireCsrf, requireSession } from './guards';
import { accountRoutes } from './routes/accounts.routes';
import { taskRoutes } from './routes/tasks.routes';
import { channelRoutes } from './routes/channels.routes';
import { webhookRoutes } from './routes/webhooks.routes';
import { storageRoutes } from './routes/storage.routes';
import { holderRoutes } from './routes/holders.routes';
import { auditRoutes } from './routes/audit.routes';
import { ConsoleError } from './console-error';
import { formBody } from './form-body';

export const PUBLIC_DIR = path.resolve(__dirname, '../public');

/**
 * The error page of a server-rendered surface (console, account pages): a ConsoleError's status
 * and sentence, anything else logged and shown as a 500 that says what to check.
 */
export function pageErrorHandler(render: Render, logError: (err: unknown, msg: string) => void, logMsg: string): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const known = err instanceof ConsoleError;
    if (!known) logError(err, logMsg);
    const status = known ? err.status : typeof err?.status === 'number' && err.status < 500 ? err.status : 500;
    const message = known
      ? err.message
      : status < 500
        ? 'The request was not understood. Go back and try again.'
        : 'Something failed on our side (it is logged). Reload the page; if it keeps failing, check the gateway logs and that Postgres and Redis answer.';
    render(res, 'error', { title: 'Error', status, message }, status);
  };
}

export function consoleRouter(deps: ConsoleDeps): Router {
  const r = Router();
  const render = createRenderer(deps.cacheTemplates);
  r.use(consoleHeaders);
  r.use('/static', express.static(PUBLIC_DIR, { index: false, maxAge: deps.cacheTemplates ? '1h' : 0, fallthrough: false }));
  r.use(formBody());
  r.use(loginRoutes(deps, render));
  r.use(requireSession(deps));
  r.use(requireCsrf);
  r.use(logoutRoute(deps));
  r.get('/', (_req, res) => res.redirect(303, '/console/accounts'));
  r.use(accountRoutes(deps, render));
  r.use(taskRoutes(deps, render));
  r.use(channelRoutes(deps, render));
  r.use(webhookRoutes(deps, render));
  r.use(storageRoutes(deps, render));
  r.use(holderRoutes(deps, render));
  r.use(auditRoutes(deps, render));
  r.use((_req, _res, next) => next(new ConsoleError(404, 'No such page. Use the menu above.')));
  r.use(pageErrorHandler(render, deps.logError, 'console: page failed'));
  return r;
}
