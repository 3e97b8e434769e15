// The holder's own webhooks: add (URL checked by the admin API's address policy) and remove
// endpoints, a new or rotated secret shown once, each endpoint's deliveries with their attempts,
// re-send one; and the per-task callback signing secret (shown once on rotate). Another account's
// endpoint or delivery is "not found".
import { Request, Response, Router } from 'express';
import { z } from 'zod';
import { deleteWebhookEndpoint, getDelivery, listDeliveries } from '@mediagen/db';
import { createEndpoint, listEndpoints, rotateSecret, WEBHOOK_EVENT_TYPES } from '@mediagen/webhooks';
import { ConsoleError, decodePageCursor, encodePageCursor, formOf, Render } from '@mediagen/console';
import type { AccountDeps } from '../deps';
import { accountOf, holderOf } from '../holder-session';

const MAX_ENDPOINTS = 10;
const addForm = z.object({ url: z.string().trim().min(1, 'the URL that receives the events').max(2048) });

export function webhookRoutes(deps: AccountDeps, render: Render): Router {
  const r = Router();
  // The endpoint store (packages/webhooks) records the audit event in the transaction of its change.
  const by = (req: Request, res: Response) => {
    const h = holderOf(res);
    return { actor: { type: 'holder' as const, id: h.id, name: h.email }, ip: req.ip ?? null };
  };
  const { db } = deps;
  const mine = async (accountId: string, id: string) => (await listEndpoints(db, accountId)).find((e) => e.id === id);
  const page = async (res: Parameters<Render>[0], extra: Record<string, unknown> = {}, status = 200) => {
    const all = await listEndpoints(db, accountOf(res));
    render(res, 'webhooks', { title: 'Webhooks', endpoints: all.filter((e) => e.url !== null), callbackKey: all.find((e) => e.url === null) ?? null, events: WEBHOOK_EVENT_TYPES, ...extra }, status);
  };

  r.get('/webhooks', (_req, res) => page(res));

  r.post('/webhooks', async (req, res) => {
    const f = formOf(addForm, req.body);
    let url: string;
    try {
      url = deps.checkWebhookUrl(f.url);
    } catch (e) {
      throw new ConsoleError(422, `Please correct the form. url: ${(e as Error).message}`);
    }
    const accountId = accountOf(res);
    if ((await listEndpoints(db, accountId)).filter((e) => e.url !== null).length >= MAX_ENDPOINTS)
      throw new ConsoleError(422, `An account may have ${MAX_ENDPOINTS} webhook endpoints. Remove one first.`);
    const e = await createEndpoint(db, accountId, url, undefined, by(req, res));
    await page(res, { secret: { id: e.id, url: e.url, value: e.secret } });
  });

  r.post('/webhooks/:id/delete', async (req, res) => {
    const e = await mine(accountOf(res), String(req.params.id));
    if (!e || e.url === null) throw new ConsoleError(404, 'No such webhook endpoint.');
    await deleteWebhookEndpoint(db, e.id, by(req, res));
    res.redirect(303, '/account/webhooks');
  });

  // Rotating the callback signing key (url null) is how the holder sees its secret: once.
  r.post('/webhooks/:id/rotate', async (req, res) => {
    const e = await mine(accountOf(res), String(req.params.id));
    if (!e) throw new ConsoleError(404, 'No such webhook endpoint.');
    const rotated = await rotateSecret(db, e.id, deps.webhookSecretOverlapMs, by(req, res));
    if (!rotated) throw new ConsoleError(404, 'No such webhook endpoint.');
    await page(res, { secret: { id: rotated.id, url: rotated.url, value: rotated.secret, previousUntil: rotated.previousSecretExpiresAt } });
  });

  r.get('/webhooks/:id', async (req, res) => {
    const e = await mine(accountOf(res), String(req.params.id));
    if (!e) throw new ConsoleError(404, 'No such webhook endpoint.');
    const p = await listDeliveries(db, e.id, { limit: 50, before: decodePageCursor(req.query.cursor) });
    render(res, 'deliveries', { title: 'Webhook deliveries', endpoint: e, deliveries: p.rows, nextCursor: encodePageCursor(p.next) });
  });

  const myDelivery = async (accountId: string, id: string) => {
    const d = await getDelivery(db, id);
    return d && (await mine(accountId, d.endpointId)) ? d : null;
  };

  r.get('/deliveries/:id', async (req, res) => {
    const d = await myDelivery(accountOf(res), String(req.params.id));
    if (!d) throw new ConsoleError(404, 'No such delivery.');
    render(res, 'delivery', { title: 'Webhook delivery', delivery: d, body: JSON.stringify(d.body, null, 2) });
  });

  r.post('/deliveries/:id/resend', async (req, res) => {
    const d = await myDelivery(accountOf(res), String(req.params.id));
    if (!d || !(await deps.resendDelivery(d.id))) throw new ConsoleError(404, 'No such delivery.');
    // A re-send is a reset plus a queue move, not one transaction: its event is recorded right after.
    const h = holderOf(res);
    await deps.audit({ by: { holderId: h.id, email: h.email, ip: req.ip ?? null }, accountId: h.accountId, action: 'webhook.delivery.resend', targetType: 'webhook', targetId: d.endpointId, after: { deliveryId: d.id } });
    res.redirect(303, `/account/deliveries/${encodeURIComponent(d.id)}`);
  });

  return r;
}
