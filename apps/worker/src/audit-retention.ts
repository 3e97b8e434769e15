// Audit retention: events older than AUDIT_RETENTION_DAYS are deleted in batches of BATCH rows,
// each its own short statement, so a year of backlog never holds a long lock or a long
// transaction. Safe to run on two workers at once (each DELETE takes rows the other did not) and
// to run again after a crash (what is left is simply deleted next time).
import { deleteAuditEventsBefore, type Db } from '@mediagen/db';
import type { Config } from '@mediagen/config';

const BATCH = 500;
/** A run stops after this many batches and leaves the rest to the next run (the job holds its slot meanwhile). */
const MAX_BATCHES_PER_RUN = 200;

export async function pruneAuditEvents(ctx: { db: Db; config: Pick<Config, 'AUDIT_RETENTION_DAYS'> }, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - ctx.config.AUDIT_RETENTION_DAYS * 86_400_000);
  let deleted = 0;
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const n = await deleteAuditEventsBefore(ctx.db, before, BATCH);
    deleted += n;
    if (n < BATCH) break;
  }
  return deleted;
}
