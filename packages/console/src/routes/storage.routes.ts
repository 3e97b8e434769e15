// Storage growth: result files and bytes stored per UTC day and what the retention job deleted
// (StorageDay, moved by the completing statement and by the retention job's mark), over the last
// 30 days, with the service's result retention. Read-only, for every operator.
import { Router } from 'express';
import { storageDays } from '@mediagen/db';
import type { ConsoleDeps } from '../deps';
import type { Render } from '../render';

const DAYS = 30;

export function storageRoutes(deps: ConsoleDeps, render: Render): Router {
  const r = Router();
  r.get('/storage', async (_req, res) => {
    const days = await storageDays(deps.db, DAYS);
    const sum = (k: 'filesStored' | 'bytesStored' | 'filesDeleted' | 'bytesDeleted') => days.reduce((n, d) => n + d[k], 0);
    render(res, 'storage', {
      title: 'Storage',
      days,
      totals: { filesStored: sum('filesStored'), bytesStored: sum('bytesStored'), filesDeleted: sum('filesDeleted'), bytesDeleted: sum('bytesDeleted') },
      retentionSeconds: deps.defaultResultRetentionSeconds,
      period: DAYS,
    });
  });
  return r;
}
