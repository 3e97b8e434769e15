// Prisma client on the pg driver adapter (no native engine: see docs/operations.md).
// A `?schema=` parameter in DATABASE_URL selects a Postgres schema; tests use one per file.
//
// The adapter runs on a pg.Pool we create, and the same pool serves the few hot operations that
// are written in plain SQL (sql.ts): Prisma 6's client engine compiles every query in Wasm on the
// event loop, about 0.5-1 ms of CPU per query here, ten times what the query itself costs through
// pg (docs/benchmark.md). Everything else keeps using Prisma.
//
// No query depends on session state that a pooler loses, so DATABASE_URL may point at PgBouncer
// in transaction mode (docs/operations.md, "Behind PgBouncer"): tables are named with their schema
// (qualify-sql.ts), the timeouts travel with each transaction (SET LOCAL in its BEGIN), TimeZone
// is a startup parameter PgBouncer keeps per client, statements are named only on a connection
// proven to be a session of its own (prepared-statements.ts), and nothing takes session locks,
// LISTENs or creates temp tables.
import { Client, Pool, PoolConfig } from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';
import { sqlQualifier } from './qualify-sql';
import { failsAsSharedSession, OWN_SESSION_OPTION, PreparedNames, provesOwnSession, SESSION_PROBE } from './prepared-statements';

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
  /**
   * A pooled connection left idle this long is closed (0: kept until the pool ends). Not pg-pool's
   * default of 10 s: a new connection costs its startup, the own-session probe and a fresh Parse of
   * every named statement, 10.6-16.1 ms for the first query after 11 s idle against 1.2-1.4 ms on a
   * kept one (2026-12-02, this VM). A service at light load (a step every few seconds) paid that on
   * most steps, and every process after any lull of 10 s. The pool's size bounds the connections, not this.
   */
  poolIdleMs: number;
}

export const DEFAULT_DB_TIMEOUTS: DbTimeouts = {
  connectMs: 5_000,
  statementMs: 15_000,
  queryMs: 20_000,
  idleInTransactionMs: 30_000,
  keepAliveMs: 10_000,
  poolIdleMs: 300_000,
};

const pools = new WeakMap<Db, Pool>();

/** PgBouncer (and other poolers) refuse a startup parameter they do not know: FATAL 08P01. */
const refusesOptions = (err: unknown): boolean => /unsupported startup parameter:? *"?options/i.test(String((err as Error)?.message ?? ''));

interface PendingItem {
  callback: (err: Error | undefined, client?: unknown, release?: unknown) => void;
  timedOut?: boolean;
}

/**
 * A pool that never takes back a connection with a query still in flight. After a client-side
 * query timeout (DB_QUERY_TIMEOUT_MS) pg gives up on the query but the connection still waits for
 * its answer; Prisma's transactions release such a connection as healthy, and every later query
 * on it would queue behind the dead one and time out too (a partition that never heals for that
 * connection). Releasing it with an error makes the pool destroy it instead.
 *
 * It also opens connections again without our `options` startup parameter once the server refused
 * it (a pooler: `startup.refused`), instead of failing every connection. `_release`, `newClient`
 * and the client fields they read are pg-pool/pg internals (pg 8), kept to this one place.
 */
class DroppingStuckPool extends Pool {
  constructor(
    config: PoolConfig,
    readonly startup: { refused: boolean },
  ) {
    super(config);
  }

  _release(client: unknown, idleListener: unknown, err?: Error): unknown {
    const c = client as { _getActiveQuery?: () => unknown; _queryQueue?: unknown[] };
    const stuck = !err && (Boolean(c._getActiveQuery?.()) || (c._queryQueue?.length ?? 0) > 0);
    const base = (Pool.prototype as unknown as { _release(c: unknown, l: unknown, e?: Error): unknown })._release;
    return base.call(this, client, idleListener, stuck ? new Error('connection released with a query in flight (timed out); dropped') : err);
  }

  newClient(pendingItem: PendingItem): unknown {
    const base = (Pool.prototype as unknown as { newClient(p: PendingItem): unknown }).newClient;
    const callback = pendingItem.callback;
    // Several connections may be opening when the first refusal comes back: each retries once.
    const sentOurOptions = !this.startup.refused;
    const retry: PendingItem = {
      get timedOut() {
        return pendingItem.timedOut;
      },
      callback: (err, client, release) => {
        if (err && sentOurOptions && refusesOptions(err)) {
          this.startup.refused = true;
          base.call(this, pendingItem);
          return;
        }
        callback(err, client, release);
      },
    };
    return base.call(this, retry);
  }
}

/**
 * The pool's connections: every query's text qualified with the schema, and every transaction's
 * BEGIN carrying the timeouts as SET LOCAL (one round trip). Our startup `options` (the same
 * timeouts for whole sessions, where a direct connection keeps them) are left out once the server
 * refused them; the URL's own `options` are always sent.
 *
 * TimeZone=UTC travels as a startup parameter of its own, which PgBouncer accepts and restores on
 * whichever server connection serves the client (it tracks TimeZone, DateStyle, client_encoding,
 * standard_conforming_strings, application_name). Correctness needs it: Prisma's pg adapter sends
 * DateTime values as UTC wall-clock text without an offset, which Postgres reads in the session's
 * zone, so a server in another zone would shift every deadline Prisma writes (tasks timed out at
 * once). Unless the URL's own options set TimeZone (a test does), then theirs wins.
 */
const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\b[^;]*;?\s*$/i;

function pooledClient(schema: string, setLocal: string, startup: PoolStartup, urlOptions: string): typeof Client {
  const qualify = sqlQualifier(schema);
  const names = new PreparedNames();
  return class PooledClient extends Client {
    /** Named statements this connection has been given (null: it may not have any, see probeOwnSession). */
    private prepared: Set<string> | null = null;

    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    query(config: any, values?: any, callback?: any): any {
      const text: unknown = typeof config === 'string' ? config : config?.text;
      if (typeof text === 'string') {
        const hasValues = (Array.isArray(values) && values.length > 0) || config?.values?.length > 0;
        const next = !hasValues && BEGIN.test(text) ? `${text.replace(/;?\s*$/, '')}${setLocal}` : qualify(text);
        // Our own statements (a text and its values; Prisma passes a config object) are named on a
        // connection of our own: Postgres parses each once per connection, and after a few runs
        // plans it once (a generic plan) instead of at every execution.
        const name = typeof config === 'string' && hasValues && this.prepared && startup.named ? names.nameOn(this.prepared, next) : null;
        if (name) {
          config = { name, text: next };
          // Prepared on one server session, run on another: a pooler after all. Only this query fails.
          const noted = (err: unknown) => {
            if (failsAsSharedSession(err)) startup.named = false;
          };
          if (typeof callback === 'function') {
            const cb = callback;
            callback = (err: unknown, res: unknown) => {
              if (err) noted(err);
              cb(err, res);
            };
          } else {
            // eslint-disable-next-line @typescript-eslint/no-explicit-any
            const p = (Client.prototype.query as any).call(this, config, values) as Promise<unknown>;
            p.catch(noted);
            return p;
          }
        } else if (next !== text) {
          if (typeof config === 'string') config = next;
          else if (typeof config.submit === 'function') config.text = next;
          else config = { ...config, text: next };
        }
      }
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (Client.prototype.query as any).call(this, config, values, callback);
    }

    /**
     * Named statements only where this connection is a Postgres session of our own: the option we
     * sent at startup reached the server (a pooler refuses it, or drops it with
     * ignore_startup_parameters, and then hands server sessions from client to client). Run by the
     * pool's onConnect, after the pool has put its error listener on the connection: a connection
     * cut during the probe (or by the pool's connect timeout) is then the pool's to drop, not an
     * unhandled 'error' event. A failed probe leaves the connection without names; a broken one
     * fails its next query. Never rejects.
     */
    async probeOwnSession(): Promise<void> {
      if (!startup.named || startup.refused) return;
      const read = Client.prototype.query as (this: Client, t: string) => Promise<{ rows: { own: string | null }[] }>;
      const own = await read.call(this, SESSION_PROBE).then((r) => r.rows[0]?.own, () => null);
      if (provesOwnSession(own)) this.prepared = new Set();
    }

    getStartupConf(): Record<string, string> {
      const conf = (Client.prototype as unknown as { getStartupConf(): Record<string, string> }).getStartupConf.call(this);
      if (!/\bTimeZone=/i.test(urlOptions)) conf.TimeZone = 'UTC';
      if (startup.refused) {
        if (urlOptions) conf.options = urlOptions;
        else delete conf.options;
      }
      return conf;
    }
  };
}

/** What the pool learnt about the server at connection time (shared by its connections). */
interface PoolStartup {
  /** The server refused our `options` startup parameter (a pooler): connections open without it. */
  refused: boolean;
  /**
   * Named statements allowed (createDb's `preparedStatements`, DB_PREPARED_STATEMENTS); false from
   * the first named statement that failed as only a pooler's shared sessions make it fail.
   */
  named: boolean;
}

export function createDb(databaseUrl: string, opts: { poolSize?: number; timeouts?: Partial<DbTimeouts>; preparedStatements?: boolean } = {}): Db {
  const { connectionString, schema, options } = parseDatabaseUrl(databaseUrl);
  const t = { ...DEFAULT_DB_TIMEOUTS, ...opts.timeouts };
  const statementTimeout = t.statementMs > 0 ? `statement_timeout=${t.statementMs}` : '';
  const idleTimeout = t.idleInTransactionMs > 0 ? `idle_in_transaction_session_timeout=${t.idleInTransactionMs}` : '';
  const setLocal = [statementTimeout, idleTimeout].filter(Boolean).map((s) => `; SET LOCAL ${s}`).join('');
  const startup: PoolStartup = { refused: false, named: opts.preparedStatements ?? true };
  const pool = new DroppingStuckPool({
    Client: pooledClient(schema, setLocal, startup, options),
    connectionString,
    max: opts.poolSize ?? 10,
    // The URL's own options come last, so they win. search_path is sent too where the server takes
    // startup options (a direct connection): our queries are qualified and need none, but raw SQL
    // typed by an operator or a test (CREATE FUNCTION, triggers) must land in the URL's schema, not
    // in public, where two schemas' objects would collide. A pooler that refuses it loses only that.
    options: [`-c search_path="${schema}"`, ...[statementTimeout, idleTimeout, OWN_SESSION_OPTION].filter(Boolean).map((s) => `-c ${s}`), options].filter(Boolean).join(' '),
    // pg-pool reads 0 as "never close an idle connection".
    idleTimeoutMillis: t.poolIdleMs,
    connectionTimeoutMillis: t.connectMs || undefined,
    query_timeout: t.queryMs || undefined,
    keepAlive: t.keepAliveMs > 0,
    keepAliveInitialDelayMillis: t.keepAliveMs || undefined,
    onConnect: (client) => (client as unknown as { probeOwnSession(): Promise<void> }).probeOwnSession(),
  }, startup);
  // An idle pooled connection that dies (server restart, proxy cut) emits 'error' on the pool;
  // without a listener that would crash the process. pg drops the connection by itself.
  pool.on('error', () => undefined);
  const adapter = new PrismaPg(pool, { schema, disposeExternalPool: true });
  const db = new PrismaClient({ adapter });
  // Prisma disposes the pool only when its engine ever connected: a client that ran raw SQL alone
  // (sql.ts) would keep its idle connections, and its process alive, for DB_POOL_IDLE_MS after
  // $disconnect. The pool ends here either way.
  const disconnect = db.$disconnect.bind(db);
  db.$disconnect = async () => {
    await disconnect();
    if (!pool.ended && !pool.ending) await pool.end();
  };
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
  DB_POOL_IDLE_MS: number;
}): DbTimeouts => ({
  connectMs: c.DB_CONNECT_TIMEOUT_MS,
  statementMs: c.DB_STATEMENT_TIMEOUT_MS,
  queryMs: c.DB_QUERY_TIMEOUT_MS,
  idleInTransactionMs: c.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  keepAliveMs: c.DB_KEEPALIVE_MS,
  poolIdleMs: c.DB_POOL_IDLE_MS,
});
