// Admin webhook API (docs/api.md): endpoints per account, secret rotation,
// deliveries and their attempts, resend. Secrets are shown once: on create and on rotate.
import express, { Router } from 'express';
import { z } from 'zod';
import { AppError } from '@mediagen/errors';
import { parseCallbackUrl } from '@mediagen/catalog';
import { createEndpoint, listEndpoints, rotateSecret, WEBHOOK_EVENT_TYPES } from '@mediagen/webhooks';
import { accountExists, deleteWebhookEndpoint, DELIVERY_STATUSES, findEndpointSummary, getDelivery, listDeliveries } from '@mediagen/db';
import type { GatewayDeps } from '../deps';
import { parseAdminBody } from '../services/admin-validation';
import { adminTokenAudit } from '../services/audit-actor';
import { resendDelivery } from '../services/webhook-resend';
import { decodeCursor, encodeCursor } from '../services/cursor';
import { cursorParam, limitParam, parseQuery } from '../services/listing';

export const createWebhookSchema = z.strictObject({
  url: z.string().max(2048).meta({ description: 'https URL receiving the events (http and local hosts only with ALLOW_LOCAL_WEBHOOKS, on by default in development).', example: 'https://example.com/hooks/mediagen' }),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).optional().meta({ description: 'Event types to send; default all.' }),
});
export const deliveryListQuerySchema = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: limitParam(50, 200),
  cursor: cursorParam,
});

export function adminWebhooksRouter(deps: GatewayDeps): Router {
  const r = Router();
  const { db } = deps;
  r.use(express.json({ limit: '100kb' }));
  const account = async (id: string) => {
    if (!(await accountExists(db, id))) throw new AppError('not_found', `Account ${id} not found`);
  };

  r.post('/accounts/:id/webhooks', async (req, res) => {
    const b = parseAdminBody(createWebhookSchema, req.body);
    const url = parseCallbackUrl(b.url, { allowPrivateMediaUrls: deps.config.ALLOW_PRIVATE_MEDIA_URLS, allowLocalWebhooks: deps.config.ALLOW_LOCAL_WEBHOOKS }, 'url')!;
    await account(req.params.id);
    const e = await createEndpoint(db, req.params.id, url, b.events, adminTokenAudit(req));
    res.status(201).json({ id: e.id, url: e.url, events: e.events, secret: e.secret, createdAt: e.createdAt });
  });

  r.get('/accounts/:id/webhooks', async (req, res) => {
    await account(req.params.id);
    res.json({ webhooks: await listEndpoints(db, req.params.id) });
  });

  r.delete('/webhooks/:id', async (req, res) => {
    if (!(await deleteWebhookEndpoint(db, req.params.id, adminTokenAudit(req)))) throw new AppError('not_found', `Webhook ${req.params.id} not found`);
    res.status(204).end();
  });

  r.post('/webhooks/:id/rotate', async (req, res) => {
    const e = await rotateSecret(db, req.params.id, deps.config.WEBHOOK_SECRET_OVERLAP_MS, adminTokenAudit(req));
    if (!e) throw new AppError('not_found', `Webhook ${req.params.id} not found`);
    res.json({ id: e.id, url: e.url, events: e.events, secret: e.secret, previousSecretExpiresAt: e.previousSecretExpiresAt });
  });

  r.get('/webhooks/:id/deliveries', async (req, res) => {
    const q = parseQuery(deliveryListQuerySchema, req.query);
    const exists = await findEndpointSummary(db, req.params.id);
    if (!exists) throw new AppError('not_found', `Webhook ${req.params.id} not found`);
    const page = await listDeliveries(db, req.params.id, { status: q.status, limit: q.limit, before: decodeCursor('deliveries', q.cursor) });
    res.json({ data: page.rows, nextCursor: encodeCursor('deliveries', page.next) });
  });

  r.get('/deliveries/:id', async (req, res) => {
    const d = await getDelivery(db, req.params.id);
    if (!d) throw new AppError('not_found', `Delivery ${req.params.id} not found`);
    res.json(d);
  });

  r.post('/deliveries/:id/resend', async (req, res) => {
    if (!(await resendDelivery(deps, req.params.id))) throw new AppError('not_found', `Delivery ${req.params.id} not found`);
    res.status(202).json(await getDelivery(db, req.params.id));
  });

  return r;
}
