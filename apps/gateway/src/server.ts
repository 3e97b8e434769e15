// The gateway's HTTP request listener: the cached-poll lane (routes/cached-poll.ts) first, then the
// Express app (app.ts) for every request the lane does not answer. main.ts installs it as the
// server's one `request` listener; tests drive the same listener through supertest, so what they
// exercise is what runs in production.
import http from 'node:http';
import type { Express } from 'express';
import type { GatewayDeps } from './deps';
import { createApp } from './app';
import { cachedPollLane } from './routes/cached-poll';

export type GatewayListener = http.RequestListener;

/** The listener of a gateway: the lane answers what it can decide from memory, Express the rest. */
export function gatewayListener(deps: GatewayDeps, app: Express = createApp(deps)): GatewayListener {
  const lane = cachedPollLane(deps, app);
  return (req, res) => {
    if (!lane(req, res)) app(req, res);
  };
}

/** An HTTP server with the gateway's listener (not listening yet). */
export const createGatewayServer = (deps: GatewayDeps, app?: Express): http.Server => http.createServer(gatewayListener(deps, app));
