// Webhook endpoints: an account's destinations for task events, and its callback signing key (the
// endpoint row with no URL, which signs the per-task callback_url deliveries). Invariants:
// - A secret leaves this file only from a create or a rotation (the caller shows it once); listings
//   never carry one.
// - Deleting is soft: the row stays for the deliveries that name it, and pending deliveries to its
//   URL stop (deliveries read `deletedAt`).
// - An account has at most one callback signing key: its first use locks the account row, so two
//   first uses cannot both insert one.
// - A change and its audit event commit together (the AuditContext is written in the same transaction).
// The caller makes the secrets (`newSecret`): their format belongs to the signing scheme.
import type { PoolClient } from 'pg';
import type { Db } from './client';
import { AuditContext, recordAudit } from './audit';
import { newId } from './ids';
import { sqlTransaction } from './sql';

/** An endpoint as listings show it: never its secret. */
export interface WebhookEndpointView {
  id: string;
  /** null: the account's callback signing key (signs per-task callback_url deliveries). */
  url: string | null;
  events: string[];
  createdAt: Date;
  /** Until when the previous secret still signs, after a rotation; null once that has passed. */
  previousSecretExpiresAt: Date | null;
}

const VIEW = { id: true, url: true, events: true, createdAt: true, previousSecretExpiresAt: true } as const;

const viewOf = (e: WebhookEndpointView, now = Date.now()): WebhookEndpointView => ({
  id: e.id,
  url: e.url,
  events: e.events,
  createdAt: e.createdAt,
  previousSecretExpiresAt: e.previousSecretExpiresAt && e.previousSecretExpiresAt.getTime() > now ? e.previousSecretExpiresAt : null,
});

export interface NewWebhookEndpoint {
  accountId: string;
  url: string;
  events: string[];
  secret: string;
}

/** Creates an endpoint; the answer carries its secret (shown once). */
export async function insertWebhookEndpoint(
  db: Pick<Db, '$transaction'>,
  e: NewWebhookEndpoint,
  audit?: AuditContext,
): Promise<WebhookEndpointView & { secret: string }> {
  const row = await db.$transaction(async (tx) => {
    const row = await tx.webhookEndpoint.create({
      data: { id: newId('wh'), accountId: e.accountId, url: e.url, events: e.events, secret: e.secret },
      select: { ...VIEW, secret: true },
    });
    if (audit) await recordAudit(tx, { ...audit, action: 'webhook.create', targetType: 'webhook', targetId: row.id, accountId: e.accountId, after: { url: row.url, events: row.events } });
    return row;
  });
  return { ...viewOf(row), secret: row.secret };
}

/**
 * The account's callback signing key (the endpoint row with no URL), created on first use with
 * `newSecret()`, inside the caller's transaction. The account row lock serialises two first uses.
 */
export async function ensureCallbackEndpointIn(c: PoolClient, accountId: string, events: readonly string[], newSecret: () => string): Promise<string> {
  const find = () =>
    c.query<{ id: string }>(
      `SELECT "id" FROM "WebhookEndpoint" WHERE "accountId" = $1 AND "url" IS NULL AND "deletedAt" IS NULL ORDER BY "createdAt" LIMIT 1`,
      [accountId],
    );
  let row = (await find()).rows[0];
  if (row) return row.id;
  await c.query(`SELECT 1 FROM "Account" WHERE "id" = $1 FOR UPDATE`, [accountId]);
  row = (await find()).rows[0];
  if (row) return row.id;
  const id = newId('wh');
  await c.query(`INSERT INTO "WebhookEndpoint" ("id", "accountId", "url", "events", "secret") VALUES ($1, $2, NULL, $3::text[], $4)`, [
    id,
    accountId,
    [...events],
    newSecret(),
  ]);
  return id;
}

/** The account's callback signing key, created (with every event type) when missing; its id. */
export async function ensureCallbackEndpoint(db: Db, accountId: string, events: readonly string[], newSecret: () => string): Promise<string> {
  return sqlTransaction(db, (c) => ensureCallbackEndpointIn(c, accountId, events, newSecret));
}

/** The account's live endpoints, oldest first (the callback signing key included when it exists). */
export async function listWebhookEndpoints(db: Pick<Db, 'webhookEndpoint'>, accountId: string): Promise<WebhookEndpointView[]> {
  const rows = await db.webhookEndpoint.findMany({ where: { accountId, deletedAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: VIEW });
  const now = Date.now();
  return rows.map((r) => viewOf(r, now));
}

/** Soft delete; false when the endpoint is unknown or already deleted. */
export async function deleteWebhookEndpoint(db: Pick<Db, '$transaction'>, id: string, audit?: AuditContext): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const cur = await tx.webhookEndpoint.findFirst({ where: { id, deletedAt: null }, select: { accountId: true, url: true, events: true } });
    if (!cur) return false;
    const { count } = await tx.webhookEndpoint.updateMany({ where: { id, deletedAt: null }, data: { deletedAt: new Date() } });
    if (count === 1 && audit) await recordAudit(tx, { ...audit, action: 'webhook.delete', targetType: 'webhook', targetId: id, accountId: cur.accountId, before: { url: cur.url, events: cur.events } });
    return count === 1;
  });
}

/**
 * Replaces the secret by `secret`; the current one becomes the previous one and keeps signing for
 * `overlapMs`. Null when the endpoint is unknown or deleted. The answer carries the new secret.
 */
export async function rotateWebhookEndpointSecret(
  db: Pick<Db, '$transaction'>,
  id: string,
  secret: string,
  overlapMs: number,
  audit?: AuditContext,
): Promise<(WebhookEndpointView & { secret: string }) | null> {
  return db.$transaction(async (tx) => {
    const cur = await tx.webhookEndpoint.findFirst({ where: { id, deletedAt: null }, select: { secret: true } });
    if (!cur) return null;
    const e = await tx.webhookEndpoint.update({
      where: { id },
      data: { secret, previousSecret: cur.secret, previousSecretExpiresAt: new Date(Date.now() + overlapMs) },
      select: { ...VIEW, accountId: true, secret: true },
    });
    if (audit) {
      await recordAudit(tx, { ...audit, action: 'webhook.rotate_secret', targetType: 'webhook', targetId: id, accountId: e.accountId, after: { url: e.url, previousSecretExpiresAt: e.previousSecretExpiresAt } });
    }
    return { ...viewOf(e), secret: e.secret };
  });
}
