// The webhook endpoint store as the admin API and the account pages use it: create (the secret is
// returned once), list (never a secret), rotate (the old secret keeps signing for the overlap).
// The rows live in packages/db (webhook-endpoints.ts); this file adds what belongs to webhooks:
// the secret format and the event types an endpoint subscribes to by default. Writes take an
// optional AuditContext: the audit event commits with the change (never the secret).
import {
  ensureCallbackEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
  type AuditContext,
  type Db,
  type WebhookEndpointView,
} from '@mediagen/db';
import { newWebhookSecret } from './signing';
import { WEBHOOK_EVENT_TYPES } from './events';

export type EndpointView = WebhookEndpointView;

/** A new endpoint to `url` for `events` (default: every event type); the answer carries its secret. */
export async function createEndpoint(
  db: Pick<Db, '$transaction'>,
  accountId: string,
  url: string,
  events?: string[],
  audit?: AuditContext,
): Promise<EndpointView & { secret: string }> {
  return insertWebhookEndpoint(db, { accountId, url, events: events?.length ? [...new Set(events)] : [...WEBHOOK_EVENT_TYPES], secret: newWebhookSecret() }, audit);
}

/**
 * The account's endpoints, its callback signing key (url null) included: listing creates that key
 * when missing, so an admin can always rotate it to hand the customer the secret that signs their
 * per-task callback_url deliveries.
 */
export async function listEndpoints(db: Db, accountId: string): Promise<EndpointView[]> {
  await ensureCallbackEndpoint(db, accountId, WEBHOOK_EVENT_TYPES, newWebhookSecret);
  return listWebhookEndpoints(db, accountId);
}

/** New secret; the current one becomes the previous one and keeps signing for `overlapMs`. */
export async function rotateSecret(db: Pick<Db, '$transaction'>, id: string, overlapMs: number, audit?: AuditContext): Promise<(EndpointView & { secret: string }) | null> {
  return rotateWebhookEndpointSecret(db, id, newWebhookSecret(), overlapMs, audit);
}
