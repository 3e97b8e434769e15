// Deletes the files of results past their expiry (docs/data-retention.md), in batches: the files
// first, then the mark on the task (markResultsDeleted), which also counts them. A crash between
// the two leaves the task unmarked: the next run deletes its (already missing) files again, which
// is not an error, and marks and counts it once. Nothing is deleted before expiresAt: the scan
// and the mark both compare with the database's clock, and a retention change never moves an
// expiry that has already passed. The task stays `completed` with its resultUrls; /files answers
// 410 result_expired for them.
import { expiredResults, markResultsDeleted } from '@mediagen/db';
import { resultKeyOfUrl } from '@mediagen/storage';
import type { WorkerContext } from './context';

export interface ResultRetentionRun {
  tasks: number;
  files: number;
  bytes: number;
}

/** One run: batches until no expired result is left (or storage fails: the next run retries). */
export async function deleteExpiredResults(ctx: Pick<WorkerContext, 'db' | 'storage' | 'log' | 'config'> & { metrics?: WorkerContext['metrics'] }, maxBatches = 100): Promise<ResultRetentionRun> {
  const total: ResultRetentionRun = { tasks: 0, files: 0, bytes: 0 };
  const batch = ctx.config.RETENTION_BATCH;
  for (let i = 0; i < maxBatches; i++) {
    const rows = await expiredResults(ctx.db, batch);
    if (rows.length === 0) break;
    const done = await Promise.all(
      rows.map(async (r) => {
        const keys = r.resultUrls.map((u) => resultKeyOfUrl(r.id, u)).filter((k): k is string => k !== null);
        const out = await Promise.allSettled(keys.map((k) => ctx.storage.delete(k)));
        const failed = out.find((o): o is PromiseRejectedResult => o.status === 'rejected');
        if (failed) ctx.log.warn({ taskId: r.id, err: (failed.reason as Error)?.message }, 'expired result not deleted; next run retries');
        return failed ? null : r.id;
      }),
    );
    const ids = done.filter((id): id is string => id !== null);
    const marked = await markResultsDeleted(ctx.db, ids);
    total.tasks += marked.tasks;
    total.files += marked.files;
    total.bytes += marked.bytes;
    ctx.metrics?.storage.filesDeleted.inc(marked.files);
    ctx.metrics?.storage.bytesDeleted.inc(marked.bytes);
    if (ids.length < rows.length || rows.length < batch) break; // storage failing, or nothing left
  }
  if (total.tasks > 0) ctx.log.info(total, 'expired results deleted');
  return total;
}
