// The gateway's Express app. Wiring only: logic lives in services/ and packages/. It is served
// behind the cached-poll lane (server.ts), which answers cached polls before Express sees them.
import express, { Express } from 'express';
import type { GatewayDeps } from './deps';
import { resultState } from '@mediagen/db';
import { apiRouter } from './routes/api.routes';
import { adminRouter } from './routes/admin.routes';
import { healthRouter } from './routes/health.routes';
import { upstreamHooksRouter } from './routes/upstream-hooks.routes';
import { topUpPageRouter } from './routes/top-up.routes';
import { frontPageRouter } from './routes/front-page.routes';
import { createFilesRouter } from './routes/files.routes';
import { bullBoardRouter } from './routes/bull-board.routes';
import { docsRouter } from './routes/docs.routes';
import { adminAuth } from './middleware/admin-auth';
import { requestLog } from './middleware/request-log';
import { httpMetrics } from './middleware/http-metrics';
import { metricsRouter } from './routes/metrics.routes';
import { adminChannelsRouter } from './routes/admin-channels.routes';
import { adminWebhooksRouter } from './routes/admin-webhooks.routes';
import { adminOperatorsRouter } from './routes/admin-operators.routes';
import { mountConsole } from './routes/console.routes';
import { mountAccount, mountStripeWebhook } from './routes/account.routes';
import { errorHandler, notFoundHandler } from './middleware/error-handler';
import { bullBoardCsp, filesHeaders, refuseNulInUrl, securityHeaders } from './middleware/security-headers';
import { AddressRequests, addressRateLimit } from './middleware/ip-limits';
import { trustProxyFn } from './middleware/client-address';
import { API_MOUNT } from './routes/poll-paths';
import type * as OpenApiDocument from './openapi/document';
import { stopTranspilerThread } from '@mediagen/runtime';

export function createApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // TRUST_PROXY (off by default): the same trust function the per-address limits use, so req.ip
  // (the console's login limit) and those limits agree on who the client is.
  app.set('trust proxy', trustProxyFn(deps.config.TRUST_PROXY));
  app.use(requestLog(deps.log));
  app.use(httpMetrics(deps.metrics.http));
  app.use(securityHeaders(deps.config));
  app.use(refuseNulInUrl);
  // The API first: Express tries the layers in order, and no other route lives under /api.
  app.use(API_MOUNT, apiRouter(deps));
  app.use(healthRouter(deps));
  app.use(upstreamHooksRouter(deps));
  app.use(metricsRouter(deps));
  app.use(mountStripeWebhook(deps)); // its own raw-body parser: the signature covers the exact bytes
  app.use(topUpPageRouter());
  app.use(frontPageRouter(deps.config.PUBLIC_BASE_URL, deps.sold));
  // Built on the first request, with its generator's modules: most gateways are never asked for it.
  // Those are TypeScript files loaded after start, so tsx's esbuild thread is stopped again after.
  let openapi: object | undefined;
  app.get('/openapi.json', (_req, res) => {
    if (!openapi) {
      const { buildOpenApiDocument } = require('./openapi/document') as typeof OpenApiDocument;
      openapi = buildOpenApiDocument(deps.config.PUBLIC_BASE_URL, deps.sold);
      stopTranspilerThread();
    }
    res.json(openapi);
  });
  app.use('/docs', docsRouter());
  app.use(
    '/files',
    filesHeaders,
    addressRateLimit(new AddressRequests(deps, 'files', deps.config.FILES_RATE_LIMIT_PER_MINUTE), 'file requests'),
    createFilesRouter(deps.storage, { signingSecret: deps.config.FILE_SIGNING_SECRET, resultState: (taskId) => resultState(deps.db, taskId) }),
  );
  // The operators' console, and Bull Board for its sessions as well as the bearer token.
  app.use('/console', mountConsole(deps));
  // The account holders' pages (sign-up, keys, usage, top-up, webhooks).
  app.use('/account', mountAccount(deps));
  app.use('/admin/queues', bullBoardCsp, bullBoardRouter(deps));
  app.use('/admin', adminAuth(deps));
  app.use('/admin', adminOperatorsRouter(deps));
  app.use('/admin', adminChannelsRouter(deps));
  app.use('/admin', adminRouter(deps));
  app.use('/admin', adminWebhooksRouter(deps));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));

  return app;
}
