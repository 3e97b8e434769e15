// Webhooks: one endpoint's deliveries (newest first, keyset pages), one delivery with its attempts,
// and Re-send (admin), through the same packages/db reads and re-send the admin API uses.
import { Router } from 'express';
import { findEndpointSummary, getDelivery, listDeliveries } from '@mediagen/db';
import type { ConsoleDeps } from '../deps';
import type { Render } from '../render';
import { requireAdmin } from '../guards';
import { ConsoleError } from '../console-error';
import { decodePageCursor, encodePageCursor } from '../page-cursor';

const PAGE = 50;

export function webhookRoutes(deps: ConsoleDeps, render: Render): Router {
  const r = Router();
  const { db } = deps;

  r.get('/webhooks/:id/deliveries', async (req, res) => {
    const id = String(req.params.id);
    const endpoint = await findEndpointSummary(db, id);
    if (!endpoint) throw new ConsoleError(404, `No webhook ${id}. Open it from its account's page.`);
    const page = await listDeliveries(db, id, { limit: PAGE, before: decodePageCursor(req.query.cursor) });
    render(res, 'deliveries', { title: 'Webhook deliveries', endpoint, deliveries: page.rows, nextCursor: encodePageCursor(page.next) });
  });

  r.get('/deliveries/:id', async (req, res) => {
    const id = String(req.params.id);
    const delivery = await getDelivery(db, id);
    if (!delivery) throw new ConsoleError(404, `No delivery ${id}.`);
    render(res, 'delivery', { title: 'Webhook delivery', delivery });
  });

  r.post('/deliveries/:id/resend', requireAdmin, async (req, res) => {
    const id = String(req.params.id);
    if (!(await deps.resendDelivery(id))) throw new ConsoleError(404, `No delivery ${id}.`);
    res.redirect(303, `/console/deliveries/${encodeURIComponent(id)}`);
  });

  return r;
}
