// Private inputs (a client's inline reference files) are kept only while their task may still
// need them: once the task has settled (completed or failed), the stored files and their rows are
// deleted. Runs with the reconciler on the maintenance queue, so an input outlives
// its task by at most RECONCILE_INTERVAL_MS.
import { deleteInlineFiles, settledInputFiles, type Db } from '@mediagen/db';
import type { StorageDriver } from '@mediagen/storage';

const BATCH = 500;

export async function deleteSettledInputs(ctx: { db: Db; storage: StorageDriver }): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await settledInputFiles(ctx.db, BATCH);
    if (rows.length === 0) return deleted;
    // The file first: a row without a file is harmless, a file without its row would never go.
    const done = await Promise.allSettled(rows.map((r) => ctx.storage.delete(r.storageKey)));
    const ids = rows.filter((_, i) => done[i].status === 'fulfilled').map((r) => r.id);
    if (ids.length === 0) return deleted; // storage failing: try again on the next run
    await deleteInlineFiles(ctx.db, ids);
    deleted += ids.length;
    if (rows.length < BATCH) return deleted;
  }
}
