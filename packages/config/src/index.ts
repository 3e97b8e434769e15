// Environment is parsed once, at process start, into a frozen object that is passed down.
// A bad value stops the process with a message naming the variable.
import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Optional text where an empty value means unset: compose files pass `${S3_BUCKET:-}` through as "". */
const optionalText = <T extends z.ZodType<string>>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: z.string().min(1).default('postgresql://postgres@127.0.0.1:5432/mediagen'),
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  /**
   * Redis Cluster seed nodes, `host:port,host:port,...` (or redis:// / rediss:// URLs, whose user,
   * password and TLS apply to every node). When set, REDIS_URL is not used (docs/operations.md).
   */
  REDIS_CLUSTER_NODES: optionalText(z.string().min(1)).transform((v, ctx) => {
    if (v === undefined) return undefined;
    const nodes = parseClusterNodes(v);
    if (typeof nodes === 'string') {
      ctx.addIssue({ code: 'custom', message: nodes });
      return z.NEVER;
    }
    return nodes;
  }),
  /** Every Redis key of this deployment (queues, poll cache, rate limits) starts with it. */
  REDIS_PREFIX: z.string().min(1).default('mg'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_BASE_URL: z.string().url().optional(),
  ADMIN_TOKEN: z.string().min(16).optional(),
  /** Read-only token for GET /metrics (the Prometheus scraper), so it need not hold ADMIN_TOKEN. */
  METRICS_TOKEN: optionalText(z.string().min(16)),
  TASK_TIMEOUT_MS: z.coerce.number().int().positive().default(21_600_000),
  POLL_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  DATA_DIR: z.string().min(1).default('./data'),
  /** Where result and inline files live: 'fs' (DATA_DIR/files, one machine or a shared volume) or 's3'. */
  STORAGE_DRIVER: z.enum(['fs', 's3']).default('fs'),
  S3_BUCKET: optionalText(z.string().min(1)),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** S3-compatible servers (MinIO, R2, ...); unset for AWS S3 itself. */
  S3_ENDPOINT: optionalText(z.string().url()),
  /** Path-style URLs (endpoint/bucket/key); most S3-compatible servers need it. */
  S3_FORCE_PATH_STYLE: bool.default(false),
  /** Unset: the AWS SDK's default credential chain (env, profile, container or instance role). */
  S3_ACCESS_KEY_ID: optionalText(z.string().min(1)),
  S3_SECRET_ACCESS_KEY: optionalText(z.string().min(1)),
  /** Key prefix inside the bucket, so several deployments can share one bucket. */
  S3_PREFIX: z
    .string()
    .regex(/^$|^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*\/?$/, 'segments of letters, digits, ".", "_", "-" separated by "/"')
    .default(''),
  SIM_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  PROVIDER_CONFIG: z.string().optional(),
  /** optimize_prompt's language model: a JSON file, `sim`, or `off` (docs/prompt-format.md); unset: the simulator in development. */
  PROMPT_OPTIMIZER: optionalText(z.string().min(1)),
  /**
   * What this deployment sells: comma-separated model ids, `<model>:<tier>` or `<model>:<variant>`
   * (packages/catalog sold.ts). Unset: the whole catalog. Checked against the catalog at start.
   */
  SOLD_MODELS: optionalText(z.string()),
  ALLOW_PRIVATE_MEDIA_URLS: bool.default(false),
  /**
   * Webhook endpoints and callback_url on http:// and local (loopback, private) addresses, for a
   * receiver on the developer's machine. Default: on when NODE_ENV=development (as `npm start`
   * sets), off otherwise; refused in production. Reference media are not affected.
   */
  ALLOW_LOCAL_WEBHOOKS: bool.optional(),
  /** Deadline for reading all reference files of one submit (fetch + measure). */
  MEDIA_TIMEOUT_MS: z.coerce.number().int().positive().default(8_000),
  TOP_UP_URL: z.string().url().optional(),
  /** Largest result file downloaded from a provider, per media type (packages/providers download.ts). */
  RESULT_MAX_IMAGE_BYTES: z.coerce.number().int().positive().default(50 * 1024 * 1024),
  RESULT_MAX_VIDEO_BYTES: z.coerce.number().int().positive().default(1024 * 1024 * 1024),
  /** Key of the per-task tokens in upstream callback URLs (same on gateways and workers); derived from ADMIN_TOKEN when unset. */
  UPSTREAM_CALLBACK_SECRET: optionalText(z.string().min(16)),
  /** Requests per minute per API key; an account's rateLimitPerMinute overrides it. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /** How long an "answers at once" image submit waits for its render before answering pending. */
  INSTANT_WAIT_MS: z.coerce.number().int().min(0).default(8_000),
  /** GET /api/tasks/{id}/events: open streams per account on one gateway; heartbeat and state-refresh periods; unsent bytes before a stream is cut. */
  SSE_MAX_STREAMS_PER_ACCOUNT: z.coerce.number().int().positive().default(100),
  SSE_HEARTBEAT_MS: z.coerce.number().int().positive().default(15_000),
  SSE_REFRESH_MS: z.coerce.number().int().positive().default(2_000),
  SSE_BUFFER_BYTES: z.coerce.number().int().min(1024).default(64 * 1024),
  WORKER_CONCURRENCY: z.coerce.number().int().positive().default(50),
  WORKER_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  /** How long the worker's /readyz waits for Postgres and Redis to answer before calling one unavailable. */
  WORKER_READY_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** Consecutive transient upstream errors (timeouts, 429, 5xx) on one submit or download before giving up on it. */
  WORKER_MAX_TRANSIENT_ERRORS: z.coerce.number().int().positive().default(8),
  /**
   * How long the write of a render's upstream id is retried (with backoff) when Postgres fails it
   * after the upstream accepted the render; then the id is kept in the job's data and the step retried.
   */
  WORKER_ID_WRITE_RETRY_MS: z.coerce.number().int().min(0).default(30_000),
  /** BullMQ job lock: a crashed worker's job is taken over by another worker after about this long. */
  WORKER_LOCK_MS: z.coerce.number().int().positive().default(30_000),
  WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
  /** How often the timeout sweep fails tasks past their deadline. */
  SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /** How often the reconciler re-enqueues unfinished tasks whose job was lost. */
  RECONCILE_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * Results: a completed task's files are kept this long after completion, then the
   * retention job deletes them and their URLs answer 410 result_expired. 0 keeps them forever; an
   * account's resultRetentionSeconds overrides it (docs/data-retention.md).
   */
  RESULT_RETENTION_SECONDS: z.coerce.number().int().min(0).default(2_592_000),
  /** How often the retention job deletes expired results and old operational rows. */
  RETENTION_INTERVAL_MS: z.coerce.number().int().positive().default(300_000),
  /** Rows per DELETE of the retention job: small, so no statement holds its locks for long. */
  RETENTION_BATCH: z.coerce.number().int().min(1).max(10_000).default(1_000),
  /** Task attempts of tasks created longer ago than this are deleted (0: kept forever). */
  ATTEMPT_RETENTION_DAYS: z.coerce.number().int().min(0).default(90),
  /** Finished webhook deliveries (and their attempts) older than this are deleted (0: kept forever). */
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  /**
   * Idempotency records of submits older than this are deleted: within it a repeated key replays
   * (spec); after it the key is free again (0: kept as long as their task, i.e. forever).
   */
  IDEMPOTENCY_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  /** Tasks younger than this are left alone: their submit may still be enqueueing them. */
  RECONCILE_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
  /** Provider simulator: render time when the prompt has no #sim:delay, and latency of every answer. */
  SIM_RENDER_MS: z.coerce.number().int().min(0).default(1_500),
  SIM_LATENCY_MS: z.coerce.number().int().min(0).default(0),
  /** Where workers reach the simulator with the default channels (compose: http://provider-sim:4010). */
  SIM_BASE_URL: z.string().url().optional(),
  /** Provider simulator: upstream model ids it answers as retired ("does not exist"), comma-separated. */
  SIM_RETIRED_MODELS: z.string().default('').transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),
  /** Provider simulator: fal's webhook signing key (PKCS#8 PEM Ed25519) and Replicate's secret; made at start when unset. */
  SIM_FAL_WEBHOOK_KEY: z.string().min(1).optional(),
  SIM_REPLICATE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** The worker runs the channel check (npm run channels:check) at start and logs the result. */
  CHANNEL_CHECK_AT_START: bool.default(false),
  /** Deadline of one channel check (one channel and upstream model). */
  CHANNEL_CHECK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Channel circuit breaker: consecutive failed/transient upstream outcomes that take a channel out of rotation (0: never). */
  CHANNEL_BREAKER_FAILURES: z.coerce.number().int().min(0).default(5),
  /** The failures must fall within this long of the first one; slower trickles of errors do not open it. */
  CHANNEL_BREAKER_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  /** How long an open channel is skipped before one task may probe it. */
  CHANNEL_BREAKER_COOLDOWN_MS: z.coerce.number().int().positive().default(30_000),
  /** Requests per minute per client address to /files (public result URLs have no account to count against). */
  FILES_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(1_200),
  /** POST /hooks/upstream/* per minute per client address, of callbacks without their task's token (those are never counted). */
  UPSTREAM_HOOKS_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(3_000),
  /** Failed authentications (API key or admin token) per minute per client address before 429. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(30),
  /**
   * Express's `trust proxy`: which proxies' X-Forwarded-For to believe for the client address. Off
   * (unset, `false`, `0`), a hop count (`1`: the load balancer in front), or a comma-separated list
   * of addresses and CIDR ranges (and Express's names `loopback`, `linklocal`, `uniquelocal`).
   */
  TRUST_PROXY: optionalText(z.string()).transform((v, ctx) => {
    const parsed = parseTrustProxy(v);
    if (typeof parsed === 'object' && !Array.isArray(parsed)) {
      ctx.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    }
    return parsed;
  }),
  /** HMAC key of the signed URLs of private input files; unset: derived from ADMIN_TOKEN. */
  FILE_SIGNING_SECRET: optionalText(z.string().min(32)),
  /** Outbound webhooks (docs/api.md): steps running at once in one worker (each a single HTTP POST). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().positive().default(20),
  /** Deadline of one delivery attempt (connect + answer); the receiver should answer 2xx at once. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Within an attempt: connecting (TLS included), and the answer's first byte after the body was sent. */
  WEBHOOK_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(3_000),
  WEBHOOK_FIRST_BYTE_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** Fair delivery: attempts of one account, and to one destination (account + URL origin), at once over all workers. */
  WEBHOOK_ACCOUNT_CONCURRENCY: z.coerce.number().int().positive().default(5),
  WEBHOOK_DESTINATION_CONCURRENCY: z.coerce.number().int().positive().default(2),
  /** Failed attempts in a row after which a destination backs off as a whole (doubling from WEBHOOK_RETRY_BASE_MS up to WEBHOOK_RETRY_MAX_DELAY_MS). */
  WEBHOOK_DESTINATION_FAILURES: z.coerce.number().int().positive().default(5),
  /** Backoff between attempts: first retry after this long, doubling up to WEBHOOK_RETRY_MAX_DELAY_MS. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().positive().default(30_000),
  WEBHOOK_RETRY_MAX_DELAY_MS: z.coerce.number().int().positive().default(4 * 3_600_000),
  /** A delivery gives up once its next attempt would fall later than this after its first one (about a day). */
  WEBHOOK_RETRY_WINDOW_MS: z.coerce.number().int().positive().default(24 * 3_600_000),
  /** After a secret rotation, the old secret keeps signing alongside the new one for this long. */
  WEBHOOK_SECRET_OVERLAP_MS: z.coerce.number().int().positive().default(24 * 3_600_000),
  /** Audit events (who changed keys, limits, channels, webhooks, operators) are kept this many days. */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(365),
  /** POST .../cancel of a running task waits this long for the worker's upstream cancel before answering 202. */
  CANCEL_WAIT_MS: z.coerce.number().int().min(0).default(5_000),
  /** An idempotency claim with no task older than this (database clock) is presumed dead and may be taken over. */
  IDEMPOTENCY_STALE_MS: z.coerce.number().int().positive().default(60_000),
  /** Database waits (docs/reliability.md): getting a connection, one statement (server side), one query round trip (client side). 0 disables. */
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).default(5_000),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(15_000),
  DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(0).default(20_000),
  /** A transaction idle this long is rolled back by Postgres, releasing its row locks. 0 disables. */
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  /** TCP keepalive on database connections after this much idle time, so a dead peer is noticed. 0 disables. */
  DB_KEEPALIVE_MS: z.coerce.number().int().min(0).default(10_000),
  /** A pooled database connection idle this long is closed (a new one costs ~10 ms on the next query). 0: kept. */
  DB_POOL_IDLE_MS: z.coerce.number().int().min(0).default(300_000),
  /**
   * Most database connections one process opens; unset: 20 for a gateway, min(20, WORKER_CONCURRENCY + 5)
   * for a worker. Every process's pool counts against the server's max_connections (100 by default), so a
   * deployment of several gateways and workers on one Postgres sets it lower (or puts PgBouncer between).
   */
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(1_000).optional(),
  /**
   * Our own SQL as named (prepared) statements on connections proven to be sessions of their own
   * (packages/db prepared-statements.ts; never behind PgBouncer). false: every statement unnamed,
   * for a pooler that passes startup options on yet shares server sessions.
   */
  DB_PREPARED_STATEMENTS: bool.default(true),
  /** Account holders (/account, docs/account.md): who may sign up; unset: open, except closed in production. */
  SIGNUP_MODE: optionalText(z.enum(['open', 'invite', 'closed'])),
  /** Opening balance of an account made by sign-up (a ledger top-up). */
  SIGNUP_BALANCE_CENTS: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  /** smtp://user:pass@host:port (smtps:// for TLS); unset: verification and reset links are written to the log. */
  SMTP_URL: optionalText(z.string().regex(/^smtps?:\/\//, 'an smtp:// or smtps:// URL')),
  MAIL_FROM: z.string().min(3).default('mediagen <no-reply@localhost>'),
  /** Stripe Checkout top-ups; both unset: top-ups are made by the operator. */
  STRIPE_SECRET_KEY: optionalText(z.string().min(8)),
  STRIPE_WEBHOOK_SECRET: optionalText(z.string().min(8)),
  /** Origin of Stripe's API (no path); a stand-in in tests. */
  STRIPE_API_URL: z.string().regex(/^https?:\/\/[^/?#]+\/?$/, 'an origin such as https://api.stripe.com').default('https://api.stripe.com'),
  TOPUP_MIN_CENTS: z.coerce.number().int().min(50).default(500),
  TOPUP_MAX_CENTS: z.coerce.number().int().min(50).max(100_000_000).default(100_000),
  TOPUP_CURRENCY: z.string().regex(/^[a-z]{3}$/, 'a lower-case ISO 4217 code such as usd').default('usd'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
});

/** One seed node of REDIS_CLUSTER_NODES; user, password and tls come from a URL entry. */
export interface ClusterNode {
  host: string;
  port: number;
  username?: string;
  password?: string;
  tls?: boolean;
}

/** The nodes of a REDIS_CLUSTER_NODES value, or the reason it is not one. */
export function parseClusterNodes(value: string): ClusterNode[] | string {
  const nodes: ClusterNode[] = [];
  for (const raw of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `redis://${raw}`);
    } catch {
      return `"${raw}" is not host:port`;
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return `"${raw}": only redis:// and rediss:// URLs`;
    const port = Number(url.port || 6379);
    if (!url.hostname || (url.pathname !== '' && url.pathname !== '/')) return `"${raw}" is not host:port`;
    if (!/^[0-9]+$/.test(url.port || '6379') || port < 1 || port > 65535) return `"${raw}": bad port`;
    nodes.push({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port,
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      ...(url.protocol === 'rediss:' ? { tls: true } : {}),
    });
  }
  return nodes.length ? nodes : 'no node given (host:port,host:port,...)';
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** A TRUST_PROXY value: false (off), a hop count, or a list of addresses/CIDR ranges; or why it is none. */
export function parseTrustProxy(value: string | undefined): false | number | string[] | { error: string } {
  const v = (value ?? '').trim();
  if (v === '' || v === 'false' || v === '0') return false;
  if (/^[0-9]+$/.test(v)) return Number(v) <= 32 ? Number(v) : { error: 'a hop count is at most 32' };
  // `true` would believe any X-Forwarded-For, so any client could name its own address.
  if (v === 'true') return { error: '"true" trusts every proxy (any client could choose its address): give a hop count or the proxies\' addresses' };
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of list) {
    if (PROXY_NAMES.has(entry)) continue;
    const [ip, bits, ...rest] = entry.split('/');
    const family = isIP(ip);
    const max = family === 4 ? 32 : 128;
    const okBits = bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !okBits || rest.length) return { error: `"${entry}" is not an address, a CIDR range or one of loopback, linklocal, uniquelocal` };
  }
  return list;
}

type Env = z.infer<typeof envSchema>;
export type Config = Readonly<
  Omit<Env, 'PUBLIC_BASE_URL' | 'ADMIN_TOKEN' | 'TOP_UP_URL' | 'FILE_SIGNING_SECRET' | 'SIGNUP_MODE' | 'ALLOW_LOCAL_WEBHOOKS'> & {
    SIGNUP_MODE: 'open' | 'invite' | 'closed';
    ALLOW_LOCAL_WEBHOOKS: boolean;
    PUBLIC_BASE_URL: string;
    ADMIN_TOKEN: string;
    FILE_SIGNING_SECRET: string;
    /** True when ADMIN_TOKEN was not set and no usable token exists: the admin API refuses everyone. */
    ADMIN_DISABLED: boolean;
    TOP_UP_URL: string;
  }
>;

export class ConfigError extends Error {}

/** Parses `env` (process.env by default). Throws ConfigError with every problem listed. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const prod = e.NODE_ENV === 'production';
  const problems: string[] = [];
  if (prod && !e.ADMIN_TOKEN) problems.push('ADMIN_TOKEN is required in production');
  if (prod && !e.PUBLIC_BASE_URL) problems.push('PUBLIC_BASE_URL is required in production');
  if (prod && e.PUBLIC_BASE_URL && !e.PUBLIC_BASE_URL.startsWith('https://'))
    problems.push('PUBLIC_BASE_URL must be https in production (result URLs are https)');
  if (prod && e.ALLOW_PRIVATE_MEDIA_URLS)
    problems.push('ALLOW_PRIVATE_MEDIA_URLS is for development and tests only; refused in production');
  if (prod && e.ALLOW_LOCAL_WEBHOOKS) problems.push('ALLOW_LOCAL_WEBHOOKS is for development and tests only; refused in production');
  if (e.STORAGE_DRIVER === 's3' && !e.S3_BUCKET) problems.push('S3_BUCKET is required when STORAGE_DRIVER=s3');
  if (!e.S3_ACCESS_KEY_ID !== !e.S3_SECRET_ACCESS_KEY)
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (set both, or neither for the default credential chain)');
  // On a cluster the service places the hash tags itself (packages/queue connection.ts); a brace in
  // the prefix would move the tag and split a script's keys over several slots.
  if (e.REDIS_CLUSTER_NODES && /[{}]/.test(e.REDIS_PREFIX))
    problems.push('REDIS_PREFIX must not contain { or } with REDIS_CLUSTER_NODES (the service adds its own hash tags)');
  if (!e.STRIPE_SECRET_KEY !== !e.STRIPE_WEBHOOK_SECRET)
    problems.push('STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET go together (set both for card top-ups, or neither)');
  if (e.TOPUP_MIN_CENTS > e.TOPUP_MAX_CENTS) problems.push('TOPUP_MIN_CENTS must not exceed TOPUP_MAX_CENTS');
  if (problems.length) throw new ConfigError(`Invalid environment:\n  ${problems.join('\n  ')}`);

  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  // The public development token only when development (or test) is asked for by name: with
  // NODE_ENV unset, a forgotten ADMIN_TOKEN must not leave the admin API open to a token printed
  // in our README. Then the token is random and unknown: the admin API answers 401
  // to everyone until ADMIN_TOKEN is set.
  const explicitDev = env.NODE_ENV === 'development' || env.NODE_ENV === 'test';
  const adminToken = e.ADMIN_TOKEN ?? (explicitDev ? 'dev-admin-token-change-me' : undefined);
  const effectiveAdmin = adminToken ?? randomBytes(32).toString('hex');
  return Object.freeze({
    ...e,
    PUBLIC_BASE_URL: publicBaseUrl,
    ADMIN_TOKEN: effectiveAdmin,
    ADMIN_DISABLED: adminToken === undefined,
    // Private media URLs imply local webhooks (they always did); development allows them by default.
    ALLOW_LOCAL_WEBHOOKS: e.ALLOW_LOCAL_WEBHOOKS ?? (e.ALLOW_PRIVATE_MEDIA_URLS || env.NODE_ENV === 'development'),
    FILE_SIGNING_SECRET: e.FILE_SIGNING_SECRET ?? createHash('sha256').update(`file-signing\n${effectiveAdmin}`).digest('hex'),
    TOP_UP_URL: e.TOP_UP_URL ?? `${publicBaseUrl}/account/top-up`,
    SIGNUP_MODE: e.SIGNUP_MODE ?? (prod ? 'closed' : 'open'),
  });
}
