// Callbacks from upstream providers (docs/workers-and-channels.md): POST /hooks/upstream/{channelId}.
// The raw body is kept: signatures are over the exact bytes. Callbacks are limited per client
// address (UPSTREAM_HOOKS_RATE_LIMIT_PER_MINUTE) before the body is read: each one costs a lookup
// and may cost a signature check, and the route needs no credential. A callback whose URL carries
// the per-task token of its channel (every callback URL we hand out does; callback-token.ts) is
// not counted: only the upstream we gave the URL to knows it, the check is one HMAC from memory,
// and such callbacks come at the rate renders finish. Until 2026-12-03 they counted: one provider
// address finishing more than 50 renders a second had the rest of each minute's callbacks refused,
// and those tasks waited for their next poll (the benchmark's pipeline section, 3,600 answers-at-once
// renders in a minute, left the callbacks part after it 400 ms late per render for its first minute).
import express, { type Request, Router } from 'express';
import { callbackSecret, verifyCallbackToken } from '@mediagen/providers';
import type { GatewayDeps } from '../deps';
import { acceptUpstreamCallback } from '../services/upstream-callback';
import { AddressRequests, addressRateLimit } from '../middleware/ip-limits';

/** Upstream callbacks are small JSON documents; anything larger is not one. */
const MAX_CALLBACK_BYTES = 1024 * 1024;

export function upstreamHooksRouter(deps: GatewayDeps): Router {
  const r = Router();
  const secret = callbackSecret(deps.config);
  const tokenVerifies = (req: Request) => {
    const { task, token } = req.query;
    return typeof task === 'string' && typeof token === 'string' && verifyCallbackToken(secret, String(req.params.channelId), task, token);
  };
  const limit = addressRateLimit(new AddressRequests(deps, 'hooks', deps.config.UPSTREAM_HOOKS_RATE_LIMIT_PER_MINUTE), 'upstream callbacks', tokenVerifies);
  r.post('/hooks/upstream/:channelId', limit, express.raw({ type: () => true, limit: MAX_CALLBACK_BYTES }), async (req, res) => {
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.query)) if (typeof v === 'string') query[k] = v;
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const outcome = await acceptUpstreamCallback(deps, String(req.params.channelId), { headers, rawBody, query });
    res.status(200).json({ received: true, woken: outcome.woken });
  });
  return r;
}
