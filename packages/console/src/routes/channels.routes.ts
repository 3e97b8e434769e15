// Channels: breaker state, renders in flight, recent success rate and last error, from the health
// the workers keep in Redis (packages/channel-health); what each channel renders of each model it
// maps, upstream models its upstream no longer knows, and the last channel check. Admins disable
// and enable a channel (enabling also re-enables its unknown models), re-enable one upstream model,
// and run the channel check of one channel with its real key.
import { Router } from 'express';
import { clearModelUnavailable, readChannelViews, setChannelDisabled } from '@mediagen/channel-health';
import { channelLatencies, withAudit } from '@mediagen/db';
import type { ConsoleDeps } from '../deps';
import type { Render } from '../render';
import { auditOf, requireAdmin } from '../guards';
import { ConsoleError } from '../console-error';

export function channelRoutes(deps: ConsoleDeps, render: Render): Router {
  const r = Router();

  r.get('/channels', async (_req, res) => {
    if (deps.redis.status !== 'ready') throw new ConsoleError(503, 'Redis is unreachable, and channel health is kept there. Check Redis, then reload.');
    const [views, latency] = await Promise.all([readChannelViews(deps.redis, deps.redisPrefix), channelLatencies(deps.db, 15)]);
    const channels = views.map((c) => {
      const r5 = c.recent;
      const total = r5.succeeded + r5.failed + r5.transient + r5.violation + r5.unusable;
      return { ...c, total, successRate: total ? Math.round((r5.succeeded / total) * 100) : null, latency: latency.get(c.id) ?? null };
    });
    render(res, 'channels', { title: 'Channels', channels });
  });

  r.post('/channels/:id/:action', requireAdmin, async (req, res) => {
    const action = String(req.params.action);
    const id = String(req.params.id);
    if (!['enable', 'disable', 'check', 'enable-model'].includes(action)) throw new ConsoleError(404, 'Channels can be enabled, disabled or checked.');
    const known = (await readChannelViews(deps.redis, deps.redisPrefix)).some((c) => c.id === id);
    if (!known) throw new ConsoleError(404, `No channel ${id} is registered by a worker.`);
    if (action === 'check') {
      if (!deps.checkChannel) throw new ConsoleError(503, 'This gateway cannot run channel checks.');
      if ((await deps.checkChannel(id)) === 0) throw new ConsoleError(404, `Channel ${id} is not in this gateway's channel config: run npm run channels:check where it is.`);
    } else if (action === 'enable-model') {
      const upstreamModel = typeof req.body?.upstreamModel === 'string' ? req.body.upstreamModel : '';
      // The marks live in Redis: the audit event commits only if the change went through.
      const audit = { ...auditOf(req, res.locals.session), action: 'channel.model.enable', targetType: 'channel', targetId: id, after: { upstreamModel: upstreamModel.slice(0, 200) } };
      const cleared = upstreamModel ? await withAudit(deps.db, audit, async () => {
        const n = await clearModelUnavailable(deps.redis, deps.redisPrefix, id, upstreamModel);
        if (n === 0) throw new ConsoleError(404, `Channel ${id} has no unavailable upstream model ${JSON.stringify(upstreamModel).slice(0, 120)}.`);
        return n;
      }) : 0;
      if (cleared === 0) throw new ConsoleError(404, `Channel ${id} has no unavailable upstream model ${JSON.stringify(upstreamModel).slice(0, 120)}.`);
    } else {
      await withAudit(deps.db, { ...auditOf(req, res.locals.session), action: `channel.${action}`, targetType: 'channel', targetId: id, after: { disabled: action === 'disable' } }, async () => {
        await setChannelDisabled(deps.redis, deps.redisPrefix, id, action === 'disable');
        // An operator's re-enable also lifts the channel's "model unknown upstream" marks.
        if (action === 'enable') await clearModelUnavailable(deps.redis, deps.redisPrefix, id);
      });
    }
    res.redirect(303, '/console/channels');
  });

  return r;
}
