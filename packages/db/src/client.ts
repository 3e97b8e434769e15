// Prisma client on the pg driver adapter (no native engine: see docs/operations.md).
// A `?schema=` parameter in DATABASE_URL selects a Postgres schema; tests use one per file.
//
// The adapter runs on a pg.Pool we create, and the same pool serves the few hot operations that
// are written in plain SQL (sql.ts): Prisma 6's client engine compiles every query in Wasm on the
// event loop, about 0.5-1 ms of CPU per query here, ten times what the query itself costs through
// pg (docs/benchmark.md). Everything else keeps using Prisma.
import { Pool } from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export type Db = PrismaClient;

export interface DbUrlParts {
  connectionString: string;
  schema: string;
  /** The URL's own `options` (e.g. `-c TimeZone=...`), kept after ours so an explicit setting wins. */
  options: string;
}

/** Splits Prisma's `schema` parameter off the URL: pg would send it to Postgres as a setting. */
export function parseDatabaseUrl(databaseUrl: string): DbUrlParts {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema') ?? 'public';
  const options = url.searchParams.get('options') ?? '';
  url.searchParams.delete('schema');
  // pg lets the URL's options replace the pool's: we compose them ourselves (createDb).
  url.searchParams.delete('options');
  return { connectionString: url.toString(), schema, options };
}

/**
 * Bounded waits on the database (docs/reliability.md): without them a network partition hangs a
 * request or a worker step for the kernel's retransmit time (~15 min). 0 disables one.
 */
export interface DbTimeouts {
  /** Waiting for a pooled connection, or for a new one to be established. */
  connectMs: number;
  /** Server-side cap on one statement (statement_timeout). */
  statementMs: number;
  /** Client-side cap on one query's round trip: covers a server that no longer answers at all. */
  queryMs: number;
  /** Server-side: a transaction left idle this long is rolled back and its locks released. */
  idleInTransactionMs: number;
  /** TCP keepalive probes after this much idle time, so a dead peer is noticed. */
  keepAliveMs: number;
}

export const DEFAULT_DB_TIMEOUTS: DbTimeouts = {
  connectMs: 5_000,
  statementMs: 15_000,
  queryMs: 20_000,
  idleInTransactionMs: 30_000,
  keepAliveMs: 10_000,
};

const pools = new WeakMap<Db, Pool>();

/**
 * A pool that never takes back a connection with a query still in flight. After a client-side
 * query timeout (DB_QUERY_TIMEOUT_MS) pg gives up on the query but the connection still waits for
 * its answer; Prisma's transactions release such a connection as healthy, and every later query
 * on it would queue behind the dead one and time out too (a partition that never heals for that
 * connection). Releasing it with an error makes the pool destroy it instead. `_release` and the
 * client fields it reads are pg-pool/pg internals (pg 8), kept to this one place.
 */
class DroppingStuckPool extends Pool {
  _release(client: unknown, idleListener: unknown, err?: Error): unknown {
    const c = client as { _getActiveQuery?: () => unknown; _queryQueue?: unknown[] };
    const stuck = !err && (Boolean(c._getActiveQuery?.()) || (c._queryQueue?.length ?? 0) > 0);
    const base = (Pool.prototype as unknown as { _release(c: unknown, l: unknown, e?: Error): unknown })._release;
    return base.call(this, client, idleListener, stuck ? new Error('connection released with a query in flight (timed out); dropped') : err);
  }
}

export function createDb(databaseUrl: string, opts: { poolSize?: number; timeouts?: Partial<DbTimeouts> } = {}): Db {
  const { connectionString, schema, options } = parseDatabaseUrl(databaseUrl);
  const t = { ...DEFAULT_DB_TIMEOUTS, ...opts.timeouts };
  const pool = new DroppingStuckPool({
    connectionString,
    max: opts.poolSize ?? 10,
    // Raw SQL (the transactional operations) must see the same schema as the generated queries.
    // Sessions are pinned to UTC: every timestamp column is timestamptz, so correctness does not
    // depend on it, but text renderings (logs, psql, ::text) then agree with the API's ISO times.
    // All settings travel in the one `options` startup parameter (one thing to allow in a pooler).
    options: [
      `-c search_path="${schema}"`,
      '-c TimeZone=UTC',
      t.statementMs > 0 ? `-c statement_timeout=${t.statementMs}` : '',
      t.idleInTransactionMs > 0 ? `-c idle_in_transaction_session_timeout=${t.idleInTransactionMs}` : '',
      options,
    ].filter(Boolean).join(' '),
    connectionTimeoutMillis: t.connectMs || undefined,
    query_timeout: t.queryMs || undefined,
    keepAlive: t.keepAliveMs > 0,
    keepAliveInitialDelayMillis: t.keepAliveMs || undefined,
  });
  // An idle pooled connection that dies (server restart, proxy cut) emits 'error' on the pool;
  // without a listener that would crash the process. pg drops the connection by itself.
  pool.on('error', () => undefined);
  const adapter = new PrismaPg(pool, { schema, disposeExternalPool: true });
  const db = new PrismaClient({ adapter });
  pools.set(db, pool);
  return db;
}

/** The pg pool under a client made by createDb (shared with Prisma; ended by db.$disconnect()). */
export function sqlPool(db: Db): Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error('sqlPool: this client was not made by createDb');
  return pool;
}

/** The DB_* settings of packages/config as DbTimeouts (structural, so db does not import config). */
export const dbTimeoutsFrom = (c: {
  DB_CONNECT_TIMEOUT_MS: number;
  DB_STATEMENT_TIMEOUT_MS: number;
  DB_QUERY_TIMEOUT_MS: number;
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: number;
  DB_KEEPALIVE_MS: number;
}): DbTimeouts => ({
  connectMs: c.DB_CONNECT_TIMEOUT_MS,
  statementMs: c.DB_STATEMENT_TIMEOUT_MS,
  queryMs: c.DB_QUERY_TIMEOUT_MS,
  idleInTransactionMs: c.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  keepAliveMs: c.DB_KEEPALIVE_MS,
});
