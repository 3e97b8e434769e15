// Cached polls, answered before Express handles the request, to keep polls cheap. A poll this gateway
// can answer from memory alone (a known API key from an address that is not blocked, a request
// its rate-limit reservation admits, its own copy of the task's shared cache entry) is written in
// one writeHead and end, with the headers the chain would have set: the X-Request-Id, helmet's
// headers (recorded from helmet itself), the RateLimit fields, Content-Type, ETag. It is counted
// in the HTTP metrics and the access log like any other request.
//
// Everything else takes the chain unchanged: another method, a URL Express would also match but
// that is not the documented form (another case, a trailing slash, percent-encoding, a query), a
// conditional request (Express answers 304s), a key to look up, a reservation to make or a
// refusal, another account's or type's task, no local copy. So the lane changes what a poll
// costs, never what it answers. What it saves (docs/benchmark.md, "The poll path"): Express's
// request set-up (two prototype changes, its final handler), routing through two routers and about
// ten layers, helmet's twelve middlewares, a dozen setHeader calls, two response listeners and
// Express's res.send.
import type { Express, Request, Response } from 'express';
import type { GatewayDeps } from '../deps';
import { routeMetrics } from '../middleware/http-metrics';
import { logAnswered, requestId } from '../middleware/request-log';
import { staticSecurityHeaders } from '../middleware/security-headers';
import { entryEtag } from '../services/poll.service';

const POLL_URL = /^\/api\/(image|video)\/tasks\/([A-Za-z0-9_-]{1,200})$/;
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers the request if it is a poll this gateway can answer from memory; false when Express must
 * handle it. Called with the server's request and response, before Express has set them up.
 */
export type CachedPollLane = (req: Request, res: Response) => boolean;

export function cachedPollLane(deps: GatewayDeps, app: Express): CachedPollLane {
  const cache = deps.pollCache;
  if (cache.ttlMs <= 0) return () => false;
  const keys = deps.apiKeys;
  const limits = deps.accountRateLimit;
  const security = staticSecurityHeaders(deps.config);
  const metrics = {
    image: routeMetrics(deps.metrics.http, 'GET', '/api/image/tasks/:taskId', '200'),
    video: routeMetrics(deps.metrics.http, 'GET', '/api/video/tasks/:taskId', '200'),
  };
  const log = deps.log;

  return (req, res) => {
    if (req.method !== 'GET') return false;
    const m = POLL_URL.exec(req.url);
    if (m === null) return false;
    if (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) return false;
    const auth = keys.known(req);
    if (auth === undefined) return false;
    const type = m[1] as 'image' | 'video';
    const e = cache.localCopy(m[2]);
    if (e === undefined || e.accountId !== auth.accountId || e.type !== type) return false;
    // Last: this counts the request, so nothing after it may hand the request to Express.
    const rate = limits.admitNow(auth);
    if (rate === null) return false;

    const start = process.hrtime.bigint();
    const startMs = log.isLevelEnabled('info') ? Date.now() : 0;
    const id = requestId(req);
    req.auth = auth;
    const etag = entryEtag(app, e);
    const headers = ['X-Request-Id', id, ...security, 'RateLimit', rate[0], 'RateLimit-Policy', rate[1], 'Content-Type', JSON_TYPE];
    if (etag) headers.push('ETag', etag);
    headers.push('Content-Length', String(e.json.length));
    res.writeHead(200, headers);
    res.end(e.json);
    const c = metrics[type];
    c.count.inc();
    c.time.observe(Number(process.hrtime.bigint() - start) / 1e9);
    if (startMs > 0) logAnswered(log, req, res, id, 'GET', req.url, startMs);
    return true;
  };
}
