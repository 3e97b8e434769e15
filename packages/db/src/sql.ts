// Plain SQL on the client's pg pool, for the operations on the request and worker hot paths.
// Timestamps go in as ISO strings with their offset ('Z') into TIMESTAMPTZ columns: an absolute
// instant whatever the session's or the machine's time zone is.
import type { PoolClient, QueryResultRow } from 'pg';
import { Db, sqlPool } from './client';

export const utc = (d: Date): string => d.toISOString();

export async function sql<R extends QueryResultRow = QueryResultRow>(db: Db, text: string, values: unknown[] = []): Promise<{ rows: R[]; rowCount: number }> {
  const r = await sqlPool(db).query<R>(text, values);
  return { rows: r.rows, rowCount: r.rowCount ?? 0 };
}

/** BEGIN ... COMMIT on one pooled connection; ROLLBACK (and the error rethrown) if `fn` throws. */
export async function sqlTransaction<T>(db: Db, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await sqlPool(db).connect();
  let broken: Error | undefined;
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (e) {
    await c.query('ROLLBACK').catch((err: Error) => {
      broken = err; // the connection is unusable: drop it instead of returning it to the pool
    });
    throw e;
  } finally {
    c.release(broken);
  }
}
