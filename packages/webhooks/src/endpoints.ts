// The admin side of webhook endpoints: create (the secret is returned once), list (never a secret),
// delete, rotate (the old secret keeps signing for the overlap), deliveries and their attempts.
// Writes take an optional AuditContext: the audit event commits with the change (never the secret).
import { AuditContext, isoOf, Keyset, keysetWhere, newId, pageOf, recordAudit, sql, sqlTransaction, type Db } from '@mediagen/db';
import { ensureCallbackEndpoint } from './outbox';
import { newWebhookSecret } from './signing';
import { WEBHOOK_EVENT_TYPES } from './events';

export interface EndpointView {
  id: string;
  /** null: the account's callback signing key (signs per-task callback_url deliveries). */
  url: string | null;
  events: string[];
  createdAt: Date;
  /** Until when the previous secret still signs, after a rotation. */
  previousSecretExpiresAt: Date | null;
}

type EndpointRow = { id: string; url: string | null; events: string[]; createdAt: Date; previousSecretExpiresAt: Date | null };
const view = (e: EndpointRow): EndpointView => ({
  id: e.id,
  url: e.url,
  events: e.events,
  createdAt: e.createdAt,
  previousSecretExpiresAt: e.previousSecretExpiresAt && e.previousSecretExpiresAt.getTime() > Date.now() ? e.previousSecretExpiresAt : null,
});

export async function createEndpoint(db: Db, accountId: string, url: string, events?: string[], audit?: AuditContext): Promise<EndpointView & { secret: string }> {
  const e = await db.$transaction(async (tx) => {
    const e = await tx.webhookEndpoint.create({
      data: { id: newId('wh'), accountId, url, events: events?.length ? [...new Set(events)] : [...WEBHOOK_EVENT_TYPES], secret: newWebhookSecret() },
    });
    if (audit) await recordAudit(tx, { ...audit, action: 'webhook.create', targetType: 'webhook', targetId: e.id, accountId, after: { url: e.url, events: e.events } });
    return e;
  });
  return { ...view(e), secret: e.secret };
}

/**
 * The account's endpoints, its callback signing key (url null) included: listing creates that key
 * when missing, so an admin can always rotate it to hand the customer the secret that signs their
 * per-task callback_url deliveries.
 */
export async function listEndpoints(db: Db, accountId: string): Promise<EndpointView[]> {
  await sqlTransaction(db, (c) => ensureCallbackEndpoint(c, accountId));
  const rows = await db.webhookEndpoint.findMany({ where: { accountId, deletedAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map(view);
}

/** Soft delete: its deliveries stay visible to admins; pending ones to its URL stop. */
export async function deleteEndpoint(db: Db, id: string, audit?: AuditContext): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const cur = await tx.webhookEndpoint.findFirst({ where: { id, deletedAt: null }, select: { accountId: true, url: true, events: true } });
    if (!cur) return false;
    const { count } = await tx.webhookEndpoint.updateMany({ where: { id, deletedAt: null }, data: { deletedAt: new Date() } });
    if (count === 1 && audit) await recordAudit(tx, { ...audit, action: 'webhook.delete', targetType: 'webhook', targetId: id, accountId: cur.accountId, before: { url: cur.url, events: cur.events } });
    return count === 1;
  });
}

/** New secret; the current one becomes the previous one and keeps signing for `overlapMs`. */
export async function rotateSecret(db: Db, id: string, overlapMs: number, audit?: AuditContext): Promise<(EndpointView & { secret: string }) | null> {
  return db.$transaction(async (tx) => {
    const cur = await tx.webhookEndpoint.findFirst({ where: { id, deletedAt: null } });
    if (!cur) return null;
    const e = await tx.webhookEndpoint.update({
      where: { id },
      data: { secret: newWebhookSecret(), previousSecret: cur.secret, previousSecretExpiresAt: new Date(Date.now() + overlapMs) },
    });
    if (audit) {
      await recordAudit(tx, { ...audit, action: 'webhook.rotate_secret', targetType: 'webhook', targetId: id, accountId: e.accountId, after: { url: e.url, previousSecretExpiresAt: e.previousSecretExpiresAt } });
    }
    return { ...view(e), secret: e.secret };
  });
}

export interface DeliveryView {
  id: string;
  endpointId: string;
  taskId: string;
  target: string;
  url: string;
  eventType: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: Date | null;
}

const DELIVERY_COLUMNS = `"id", "endpointId", "taskId", "target", "url", "eventType", "status", "attemptCount", "nextAttemptAt", "lastError",
  ${isoOf('"createdAt"')} AS "createdAt", "deliveredAt"`;

export async function listDeliveries(
  db: Db,
  endpointId: string,
  f: { status?: string; limit: number; before?: Keyset },
): Promise<{ rows: DeliveryView[]; next: Keyset | null }> {
  const where = ['"endpointId" = $1'];
  const values: unknown[] = [endpointId];
  if (f.status) {
    values.push(f.status);
    where.push(`"status" = $${values.length}`);
  }
  keysetWhere(where, values, f.before);
  values.push(f.limit + 1);
  const { rows } = await sql<DeliveryView>(
    db,
    `SELECT ${DELIVERY_COLUMNS} FROM "WebhookDelivery" WHERE ${where.join(' AND ')} ORDER BY "createdAt" DESC, "id" DESC LIMIT $${values.length}`,
    values,
  );
  return pageOf(rows, f.limit);
}

export interface AttemptView {
  attemptNo: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  createdAt: Date;
}

/** One delivery with its body and every attempt, oldest first; null for an unknown id. */
export async function getDelivery(db: Db, id: string): Promise<(DeliveryView & { body: unknown; attempts: AttemptView[] }) | null> {
  const d = (await sql<DeliveryView & { body: string }>(db, `SELECT ${DELIVERY_COLUMNS}, "body" FROM "WebhookDelivery" WHERE "id" = $1`, [id])).rows[0];
  if (!d) return null;
  const attempts = (
    await sql<AttemptView>(
      db,
      `SELECT "attemptNo", "statusCode", "error", "durationMs", "createdAt" FROM "WebhookDeliveryAttempt" WHERE "deliveryId" = $1 ORDER BY "attemptNo"`,
      [id],
    )
  ).rows;
  return { ...d, body: JSON.parse(d.body) as unknown, attempts };
}
