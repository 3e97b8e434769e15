// Creating a settled task's webhook deliveries: the outbox step between the settle commit and the
// queue. The settle transaction stays as it is; this runs right after it, and `Task.eventsEmittedAt`
// marks a task whose deliveries exist. A process that dies between the settle commit and this step
// leaves the mark unset, and the reconciler runs it later (tasksWithoutWebhookEvents), so no event is
// lost. The unique (taskId, endpointId, target, eventType) makes running it twice harmless.
// The event itself (its type and the JSON body every attempt sends) is the caller's: `eventOf`.
import type { TaskBodyRow } from '@mediagen/catalog';
import type { Db } from './client';
import { newId } from './ids';
import { effectivePromptSql } from './prompt-rewrite';
import { sql, sqlTransaction } from './sql';
import { SETTLED_TASK_SQL } from './statuses';
import { ensureCallbackEndpointIn } from './webhook-endpoints';

/** A settled task as its event needs it. */
export interface SettledTaskForEvent extends Omit<TaskBodyRow, 'resultUrls'> {
  id: string;
  accountId: string;
  model: string;
  resultUrls: string[] | null;
  callbackUrl: string | null;
  finishedAt: Date | null;
  /** The prompt sent upstream (optimize_prompt's rewrite, or the prompt as written). */
  effectivePrompt: string | null;
}

export interface TaskEventSource {
  /** The event of a settled task: its type (matched against the endpoints' `events`) and body. */
  eventOf: (t: SettledTaskForEvent) => { type: string; body: string };
  /** Every event type: the callback signing key created on first use subscribes to them all. */
  eventTypes: readonly string[];
  /** A new signing secret, for that key. */
  newSecret: () => string;
}

// Most tasks have nothing to send: one statement marks them and the transaction below is skipped.
// The settling statements (settlement.ts) already mark such a task themselves and the settle path
// then skips this step; here it covers a task whose endpoints went away before its step ran.
const MARK_WHEN_NOTHING_TO_SEND = `
UPDATE "Task" t SET "eventsEmittedAt" = now()
 WHERE t."id" = $1 AND t."eventsEmittedAt" IS NULL AND t."status" IN (${SETTLED_TASK_SQL}) AND t."callbackUrl" IS NULL
   AND NOT EXISTS (SELECT 1 FROM "WebhookEndpoint" e WHERE e."accountId" = t."accountId" AND e."deletedAt" IS NULL AND e."url" IS NOT NULL)`;

/** Creates the deliveries of a settled task once; returns the ids to enqueue (empty when none or done). */
export async function insertTaskDeliveries(db: Db, taskId: string, src: TaskEventSource): Promise<string[]> {
  if ((await sql(db, MARK_WHEN_NOTHING_TO_SEND, [taskId])).rowCount === 1) return [];
  return sqlTransaction(db, async (c) => {
    const t = (
      await c.query<SettledTaskForEvent>(
        `SELECT "id", "accountId", "type"::text AS "type", "status"::text AS "status", "model", "progress", "resultUrls", "errorCode",
                "errorMessage", "retryable", "callbackUrl", "finishedAt", "expiresAt", ${effectivePromptSql()} AS "effectivePrompt"
           FROM "Task" WHERE "id" = $1 AND "eventsEmittedAt" IS NULL AND "status" IN (${SETTLED_TASK_SQL}) FOR UPDATE`,
        [taskId],
      )
    ).rows[0];
    if (!t) return [];
    const { type, body } = src.eventOf(t);
    const targets: { endpointId: string; target: 'endpoint' | 'callback'; url: string }[] = (
      await c.query<{ id: string; url: string }>(
        `SELECT "id", "url" FROM "WebhookEndpoint"
          WHERE "accountId" = $1 AND "deletedAt" IS NULL AND "url" IS NOT NULL AND $2 = ANY("events") ORDER BY "createdAt"`,
        [t.accountId, type],
      )
    ).rows.map((e) => ({ endpointId: e.id, target: 'endpoint' as const, url: e.url }));
    if (t.callbackUrl) targets.push({ endpointId: await ensureCallbackEndpointIn(c, t.accountId, src.eventTypes, src.newSecret), target: 'callback', url: t.callbackUrl });
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
export async function tasksWithoutWebhookEvents(db: Db, graceMs: number, limit = 500): Promise<string[]> {
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
