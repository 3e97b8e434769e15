// Storage growth: result files stored (counted by the worker that won the task's completion) and
// deleted by the retention job (counted by the worker whose statement marked them deleted), so
// each file counts once on each side cluster-wide. The per-day figures behind the console's
// storage page come from the StorageDay table, which the same statements move.
import { Counter, Registry } from 'prom-client';

export function storageMetrics(registry: Registry) {
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [registry] });
  return {
    filesStored: counter('mediagen_result_files_stored_total', 'Result files stored for completed tasks'),
    bytesStored: counter('mediagen_result_bytes_stored_total', 'Bytes of result files stored for completed tasks'),
    filesDeleted: counter('mediagen_result_files_deleted_total', 'Result files deleted by the retention job after their expiry'),
    bytesDeleted: counter('mediagen_result_bytes_deleted_total', 'Bytes of result files deleted by the retention job'),
    rowsDeleted: new Counter({
      name: 'mediagen_retention_rows_deleted_total',
      help: 'Operational rows deleted by the retention job, by table',
      labelNames: ['table'] as const,
      registers: [registry],
    }),
  };
}

export type StorageMetrics = ReturnType<typeof storageMetrics>;
