// Channels: breaker state, renders in flight, recent success rate and last error, from the health
// the workers keep in Redis (packages/channel-health); admins disable and enable a channel.
import { Router } from 'express';
import { readChannelViews, setChannelDisabled } from '@mediagen/channel-health';
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
    if (action !== 'enable' && action !== 'disable') throw new ConsoleError(404, 'Channels can be enabled or disabled.');
    const known = (await readChannelViews(deps.redis, deps.redisPrefix)).some((c) => c.id === req.params.id);
    if (!known) throw new ConsoleError(404, `No channel ${String(req.params.id)} is registered by a worker.`);
    const channelId = String(req.params.id);
    // The flag lives in Redis: the audit event commits only if the change went through.
    await withAudit(deps.db, { ...auditOf(req, res.locals.session), action: `channel.${action}`, targetType: 'channel', targetId: channelId, after: { disabled: action === 'disable' } }, () =>
      setChannelDisabled(deps.redis, deps.redisPrefix, channelId, action === 'disable'),
    );
    res.redirect(303, '/console/channels');
  });

  return r;
}
