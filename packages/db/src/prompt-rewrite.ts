// optimize_prompt's decision, kept with the task: the prompt every attempt sends and whether the
// optimizer wrote it. Written once (a compare-and-set on "promptOptimized" IS NULL), so a second run
// of the step after a crash, or a racing worker, keeps the first decision and sends the same prompt.
import type { Db } from './client';
import { sql } from './sql';

/**
 * The prompt a task sends (or sent) upstream, in SQL over the "Task" row: the decided prompt; for a
 * task without optimize_prompt the prompt as written; null while an optimize_prompt task's decision
 * is pending (or a task has no prompt). `t` is the table's alias ('"Task"' when none).
 */
export const effectivePromptSql = (t = '"Task"') =>
  `COALESCE(${t}."effectivePrompt", CASE WHEN ${t}."params"->>'optimizePrompt' = 'true' THEN NULL ELSE ${t}."params"->>'prompt' END)`;

/** The same, from a row read through Prisma. */
export function effectivePromptOf(t: { effectivePrompt: string | null; params: unknown }): string | null {
  if (t.effectivePrompt !== null) return t.effectivePrompt;
  const p = (t.params ?? {}) as { optimizePrompt?: unknown; prompt?: unknown };
  return p.optimizePrompt === true || typeof p.prompt !== 'string' ? null : p.prompt;
}

export interface PromptDecision {
  effectivePrompt: string;
  promptOptimized: boolean;
  /** Why the prompt went as written (`timeout: no answer within 20000 ms`); null when rewritten. */
  promptFallbackReason: string | null;
}

/**
 * Stores the decision unless one exists; answers the decision the task keeps (this one, `won`, or
 * the earlier one), null when the task does not exist.
 */
export async function recordPromptDecision(db: Db, taskId: string, d: PromptDecision): Promise<(PromptDecision & { won: boolean }) | null> {
  const { rows } = await sql<PromptDecision & { won: boolean }>(
    db,
    `WITH won AS (
       UPDATE "Task" SET "effectivePrompt" = $2, "promptOptimized" = $3, "promptFallbackReason" = $4, "updatedAt" = now()
        WHERE "id" = $1 AND "promptOptimized" IS NULL
        RETURNING "effectivePrompt", "promptOptimized", "promptFallbackReason", true AS "won")
     SELECT * FROM won
     UNION ALL
     SELECT "effectivePrompt", "promptOptimized", "promptFallbackReason", false AS "won" FROM "Task" WHERE "id" = $1 AND NOT EXISTS (SELECT 1 FROM won)`,
    [taskId, d.effectivePrompt, d.promptOptimized, d.promptFallbackReason],
  );
  return rows[0] ?? null;
}
