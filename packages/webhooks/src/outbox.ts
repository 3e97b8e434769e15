// Creating a settled task's deliveries: the outbox step between the settle commit and the queue.
// The settle transaction stays as it is; this runs right after it, and `Task.eventsEmittedAt` marks
// a task whose deliveries exist. A process that dies between the settle commit and this step leaves
// the mark unset, and the reconciler runs it later (unemittedTasks), so no event is lost. The
// unique (taskId, endpointId, target, eventType) makes running it twice harmless.
import type { PoolClient } from 'pg';
import { effectivePromptSql, newId, SETTLED_TASK_SQL, sql, sqlTransaction, type Db } from '@mediagen/db';
import { eventBody, eventTypeOf, SettledTaskRow } from './events';
import { newWebhookSecret } from './signing';

const ALL_EVENTS = ['task.completed', 'task.failed'];

/**
 * The account's callback signing key (the endpoint row with no URL), created on first use. The
 * account row lock serialises two first uses, so an account has one such key.
 */
export async function ensureCallbackEndpoint(c: PoolClient, accountId: string): Promise<string> {
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
    ALL_EVENTS,
    newWebhookSecret(),
  ]);
  return id;
}

// Most tasks have nothing to send: one statement marks them and the transaction below is skipped.
const MARK_WHEN_NOTHING_TO_SEND = `
UPDATE "Task" t SET "eventsEmittedAt" = now()
 WHERE t."id" = $1 AND t."eventsEmittedAt" IS NULL AND t."status" IN (${SETTLED_TASK_SQL}) AND t."callbackUrl" IS NULL
   AND NOT EXISTS (SELECT 1 FROM "WebhookEndpoint" e WHERE e."accountId" = t."accountId" AND e."deletedAt" IS NULL AND e."url" IS NOT NULL)`;

/** Creates the deliveries of a settled task once; returns the ids to enqueue (empty when none or done). */
export async function createTaskDeliveries(db: Db, taskId: string): Promise<string[]> {
  if ((await sql(db, MARK_WHEN_NOTHING_TO_SEND, [taskId])).rowCount === 1) return [];
  return sqlTransaction(db, async (c) => {
    const t = (
      await c.query<SettledTaskRow & { accountId: string; callbackUrl: string | null }>(
        `SELECT "id", "accountId", "type"::text AS "type", "status"::text AS "status", "model", "progress", "resultUrls", "errorCode",
                "errorMessage", "retryable", "callbackUrl", "finishedAt", "expiresAt", ${effectivePromptSql()} AS "effectivePrompt"
           FROM "Task" WHERE "id" = $1 AND "eventsEmittedAt" IS NULL AND "status" IN (${SETTLED_TASK_SQL}) FOR UPDATE`,
        [taskId],
      )
    ).rows[0];
    if (!t) return [];
    const type = eventTypeOf(t.status)!;
    const body = eventBody(type, { ...t, resultUrls: t.resultUrls ?? [], finishedAt: t.finishedAt ?? new Date() });
    const targets: { endpointId: string; target: 'endpoint' | 'callback'; url: string }[] = (
      await c.query<{ id: string; url: string }>(
        `SELECT "id", "url" FROM "WebhookEndpoint"
          WHERE "accountId" = $1 AND "deletedAt" IS NULL AND "url" IS NOT NULL AND $2 = ANY("events") ORDER BY "createdAt"`,
        [t.accountId, type],
      )
    ).rows.map((e) => ({ endpointId: e.id, target: 'endpoint' as const, url: e.url }));
    if (t.callbackUrl) targets.push({ endpointId: await ensureCallbackEndpoint(c, t.accountId), target: 'callback', url: t.callbackUrl });
    const ids: string[] = [];
    for (const x of targets) {
      const r = await c.query<{ id: string }>(
        `INSERT INTO "WebhookDelivery" ("id", "endpointId", "accountId", "taskId", "target", "url", "eventType", "body", "nextAttemptAt")
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
         ON CONFLICT ("taskId", "endpointId", "target", "eventType") DO NOTHING RETURNING "id"`,
        [newId('msg'), x.endpointId, t.accountId, t.id, x.target, x.url, type, body],
      );
      if (r.rows[0]) ids.push(r.rows[0].id);
    }
    await c.query(`UPDATE "Task" SET "eventsEmittedAt" = now() WHERE "id" = $1`, [taskId]);
    return ids;
  });
}

/** Settled tasks whose deliveries were never created (their settler died first), oldest first. */
export async function unemittedTasks(db: Db, graceMs: number, limit = 500): Promise<string[]> {
  const { rows } = await sql<{ id: string }>(
    db,
    `SELECT "id" FROM "Task"
      WHERE "eventsEmittedAt" IS NULL AND "finishedAt" IS NOT NULL
        AND "finishedAt" < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY "finishedAt" LIMIT $2`,
    [graceMs, limit],
  );
  return rows.map((r) => r.id);
}

/** Pending deliveries whose attempt is overdue by more than `graceMs`: their job may be lost. */
export async function overdueDeliveries(db: Db, graceMs: number, limit = 500): Promise<string[]> {
  const { rows } = await sql<{ id: string }>(
    db,
    `SELECT "id" FROM "WebhookDelivery"
      WHERE "status" = 'pending' AND "nextAttemptAt" < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY "nextAttemptAt" LIMIT $2`,
    [graceMs, limit],
  );
  return rows.map((r) => r.id);
}
