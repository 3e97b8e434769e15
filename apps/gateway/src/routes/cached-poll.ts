// Cached polls, answered before Express handles the request: server.ts calls this lane first for
// every request and hands the request to the Express app when the lane does not answer. A poll
// this gateway can answer from memory alone (a known API key from an address that is not blocked,
// a request its rate-limit reservation admits, its own copy of the task's shared cache entry) is
// answered with the entry's prepared answer (poll-answer.ts: built once per entry, with the headers
// the chain sets: the X-Request-Id, the security headers the chain's middleware sets
// (middleware/security-headers.ts), the RateLimit fields, Content-Type, ETag), only the
// per-request values filled in. It is counted in the HTTP metrics and the access log with the
// functions the chain's middlewares use.
//
// Everything else takes the chain unchanged: another method, a URL Express would also match but
// that is not the documented form (another case, a trailing slash, percent-encoding, a query), a
// conditional request (Express answers 304s), a key to look up, a reservation to make or a
// refusal, another account's or type's task, no local copy. So the lane changes what a poll
// costs, never what it answers. What it saves (docs/benchmark.md, "The poll path"): Express's
// request set-up (two prototype changes, its final handler), routing through two routers and about
// ten layers, the chain's middlewares, a dozen setHeader calls, two response listeners and
// Express's res.send.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Express } from 'express';
import type { GatewayDeps } from '../deps';
import { observeRequest, routeMetrics } from '../middleware/http-metrics';
import { logAnswered, requestId } from '../middleware/request-log';
import { securityHeaderFields } from '../middleware/security-headers';
import { entryEtag } from '../services/poll.service';
import { documentedPollType, pollRouteLabel, pollTaskId } from './poll-paths';
import { buildPollAnswer, writePollAnswer } from './poll-answer';

/**
 * Answers the request if it is a poll this gateway can answer from memory; false when Express must
 * handle it (nothing has been written or changed then).
 */
export type CachedPollLane = (req: IncomingMessage, res: ServerResponse) => boolean;

export function cachedPollLane(deps: GatewayDeps, app: Express): CachedPollLane {
  const cache = deps.pollCache;
  if (cache.ttlMs <= 0) return () => false;
  const keys = deps.apiKeys;
  const limits = deps.accountRateLimit;
  const security = securityHeaderFields(deps.config);
  const metrics = {
    image: routeMetrics(deps.metrics.http, 'GET', pollRouteLabel('image'), '200'),
    video: routeMetrics(deps.metrics.http, 'GET', pollRouteLabel('video'), '200'),
  };
  const log = deps.log;

  return (req, res) => {
    if (req.method !== 'GET' || req.url === undefined) return false;
    const type = documentedPollType(req.url);
    if (type === undefined) return false;
    if (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) return false;
    const auth = keys.known(req);
    if (auth === undefined) return false;
    const e = cache.localCopy(pollTaskId(req.url));
    if (e === undefined || e.accountId !== auth.accountId || e.type !== type) return false;
    // Last: this counts the request, so nothing after it may hand the request to Express.
    const rate = limits.admitNow(auth);
    if (rate === null) return false;

    const start = performance.now();
    const startMs = log.isLevelEnabled('info') ? Date.now() : 0;
    const id = requestId(req);
    e.answer ??= buildPollAnswer(e.json, security, entryEtag(app, e));
    writePollAnswer(res, e.answer, id, rate[0], rate[1]);
    observeRequest(metrics[type], start);
    if (startMs > 0) logAnswered(log, req, res, id, 'GET', req.url, startMs, auth.accountId);
    return true;
  };
}
