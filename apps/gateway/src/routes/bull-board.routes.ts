// Bull Board at /admin/queues, every queue, for scripts (Authorization: Bearer ADMIN_TOKEN) and for
// browsers (a console session, packages/console). Admin operators and the token get the full
// board; viewers get a read-only one (no retry, clean, obliterate or job edits: a changed job
// can strand a task until its timeout). Both boards serve the same base path, so the gate picks
// one per request. Without either credential a browser is sent to the console's sign-in page.
//
// The boards (and Bull Board's modules, about 2 MiB of the gateway's memory) are built on the first
// request to the path: most gateways never serve one.
import type * as BullBoardApi from '@bull-board/api';
import type * as BullBoardAdapter from '@bull-board/api/bullMQAdapter';
import type * as BullBoardExpress from '@bull-board/express';
import { Queue } from 'bullmq';
import { Router, RequestHandler } from 'express';
import { AppError } from '@mediagen/errors';
import { QUEUES, queuePrefix } from '@mediagen/queue';
import { sessionOf } from '@mediagen/console';
import type { GatewayDeps } from '../deps';
import { bearerMatches } from '../middleware/admin-auth';
import { guardAuth } from '../middleware/ip-limits';

const BASE = '/admin/queues';

function board(queues: Queue[], readOnlyMode: boolean): Router {
  const { createBullBoard } = require('@bull-board/api') as typeof BullBoardApi;
  const { BullMQAdapter } = require('@bull-board/api/bullMQAdapter') as typeof BullBoardAdapter;
  const { ExpressAdapter } = require('@bull-board/express') as typeof BullBoardExpress;
  const adapter = new ExpressAdapter();
  adapter.setBasePath(BASE);
  // bull-board bundles its own express typings; the adapter is structurally the same.
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode, allowRetries: !readOnlyMode })),
    serverAdapter: adapter as never,
    // Bull Board is opened from the console's menu; its header links back (bull-board's miscLinks).
    options: { uiConfig: { boardTitle: 'mediagen queues', miscLinks: [{ text: 'Back to the console', url: '/console/' }] } },
  });
  return adapter.getRouter() as Router;
}

export function bullBoardRouter(deps: GatewayDeps): RequestHandler {
  const queues = Object.values(QUEUES).map((name) => {
    if (name === deps.queue.name) return deps.queue;
    const q = new Queue(name, { connection: deps.redis, prefix: queuePrefix(deps.redis, deps.config.REDIS_PREFIX) });
    // The connection's errors are the gateway's to report (/readyz); without a listener BullMQ prints
    // each one with its stack (a cluster that cannot be reached: one every retry).
    q.on('error', () => undefined);
    return q;
  });
  let boards: { full: Router; readOnly: Router } | undefined;
  const full: RequestHandler = (req, res, next) => (boards ??= { full: board(queues, false), readOnly: board(queues, true) }).full(req, res, next);
  const readOnly: RequestHandler = (req, res, next) => (boards ??= { full: board(queues, false), readOnly: board(queues, true) }).readOnly(req, res, next);
  const isBearer = bearerMatches(deps.config.ADMIN_TOKEN);
  return async (req, res, next) => {
    try {
      if (isBearer(req)) {
        res.set('Cache-Control', 'no-store');
        return full(req, res, next);
      }
      const session = await sessionOf(deps.db, req);
      if (session) {
        res.set({ 'X-Frame-Options': 'DENY', 'Cache-Control': 'no-store' });
        if (req.method !== 'GET' && req.method !== 'HEAD' && req.headers['sec-fetch-site'] && req.headers['sec-fetch-site'] !== 'same-origin') {
          // The cookie is SameSite=Strict already; this refuses any cross-site write that slips through.
          return next(new AppError('forbidden', 'Cross-site request refused'));
        }
        return (session.operator.role === 'admin' ? full : readOnly)(req, res, next);
      }
      if (req.method === 'GET' && req.accepts(['json', 'html']) === 'html') {
        return res.redirect(303, `/console/login?next=${encodeURIComponent(BASE + '/')}`);
      }
      // Counted like a wrong admin token (ip-limits.ts): guessing is throttled here too.
      await guardAuth(deps, req, () => {
        throw new AppError('unauthorized', 'Bull Board needs a console session or "Authorization: Bearer <ADMIN_TOKEN>"', undefined, undefined, { 'WWW-Authenticate': 'Bearer realm="admin"' });
      });
    } catch (e) {
      next(e);
    }
  };
}
