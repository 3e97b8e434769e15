// The poll cache (one cache shared by every gateway instance), in two levels: the shared entry in
// Redis (written and read with packages/queue's poll entry codec, poll-entry.ts), and a local copy of it in each gateway process, so that most polls
// are answered without a Redis round trip. Invariants, which keep gateways from disagreeing
// (docs/operations.md, "Poll cache and rate limits across gateways"):
// - A local copy is only ever a copy of the shared entry: a gateway that misses fills the shared
//   entry only where there is none (SET NX) and otherwise adopts the one it finds, so all gateways
//   hold the same body for the same entry.
// - A local copy never outlives the shared entry: it is kept until the entry's own absolute expiry,
//   measured from before the command was sent (the server's clock can only make the entry live
//   longer than that, never shorter), not for a TTL of its own from when it was copied.
// - A settlement replaces the shared entry with the settled one (or deletes it) and then announces
//   the task event (packages/queue's publisher), which carries that entry: each gateway keeps it
//   as its local copy (settle() below). Each gateway drops its older local copy on the event and
//   remembers the task as settled for SETTLED_MEMORY_MS: a shared entry that still shows it
//   pending or processing (stored by a gateway whose database read began before the settlement
//   committed, or read in a round trip that crossed the event) is then known to be stale, is
//   neither answered nor kept, and is overwritten with the settled state read from Postgres. So
//   once a gateway has received the event it never answers the state from before it. Pending and
//   processing bodies (progress) are not announced: they are cached for POLL_CACHE_MS, as the
//   shared entry always was.
// Terminal states never change, so their entries are kept longer.
import { performance } from 'node:perf_hooks';
import type { PollAnswer } from '../routes/poll-answer';
import { decodePollEntry, encodePollEntry, pollCacheKey, PollCacheEntry, RedisClient, SETTLED_POLL_ENTRY_MS, SettledPollEntry, toPollEntry } from '@mediagen/queue';

const TERMINAL_CACHE_MS = 10 * 60_000;
/** Local copies kept at most (about 200 bytes each); the oldest goes first. */
const LOCAL_MAX = 20_000;
/** How long a gateway remembers a task event, and how many it remembers (the oldest goes first). */
const SETTLED_MEMORY_MS = 120_000;
const SETTLED_MAX = 50_000;

export interface PollEntry {
  accountId: string;
  type: 'video' | 'image';
  /** The poll body, serialised once: what every poll answered from this entry sends. */
  json: Buffer;
  /** Its ETag, computed on first use by the route (Express would hash the body per response). */
  etag?: string;
  /**
   * The cached-poll lane's answer from this entry, built on its first use (routes/cached-poll.ts):
   * a local copy never changes, so neither does the answer, bar its per-request fields.
   */
  answer?: PollAnswer;
  /** performance.now() at which the shared entry expires at the latest (local copies only). */
  until: number;
}

// Both scripts touch one key only (Redis Cluster: no cross-slot access).
// READ: the entry and its remaining life in one round trip.
const READ = `
local v = redis.call("GET", KEYS[1])
if not v then return nil end
return { v, redis.call("PTTL", KEYS[1]) }`;
// FILL: store ours only where there is none (ARGV[3] "nx") or in any case (a stale entry of a
// settled task); otherwise answer the entry that is there.
const FILL = `
local ok
if ARGV[3] == "nx" then
  ok = redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2])
else
  ok = redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
end
if ok then return { 1, tonumber(ARGV[2]) } end
local v = redis.call("GET", KEYS[1])
if not v then return { 1, 0 } end
return { v, redis.call("PTTL", KEYS[1]) }`;

type CacheRedis = RedisClient & {
  pollCacheRead(key: string): Promise<[string, number] | null>;
  pollCacheFill(key: string, value: string, px: number, mode: 'nx' | 'set'): Promise<[string | 1, number]>;
};

/** The connection with the poll cache's scripts defined (once per connection; see redis-scripts.ts). */
export function cacheRedis(redis: RedisClient): CacheRedis {
  const r = redis as CacheRedis;
  if (typeof r.pollCacheRead !== 'function') {
    r.defineCommand('pollCacheRead', { numberOfKeys: 1, lua: READ });
    r.defineCommand('pollCacheFill', { numberOfKeys: 1, lua: FILL });
  }
  return r;
}

const isTerminal = (body: { status: string }): boolean => body.status === 'completed' || body.status === 'failed';

/**
 * The body's bytes in a buffer of their own. Buffer.from hands out a slice of a shared pool for
 * anything under half the pool's size (Buffer.poolSize: 64 KiB on Node 24), and a kept slice keeps
 * its whole pool alive. The settled entries of 30 s of tasks are held here while the requests
 * around them cut their short-lived buffers from the same pools, so entries of a few hundred bytes
 * each held a pool or a good part of one: 219 pools of 64 KiB (13.7 MiB) late in the
 * benchmark's in-flight phase, where the gateway's buffers had grown from 3 to 26 MiB.
 * allocUnsafeSlow takes exactly the bytes needed.
 */
function ownBytes(json: string): Buffer {
  const b = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
  b.write(json);
  return b;
}

const entryOf = (c: PollCacheEntry, until: number): PollEntry => ({ accountId: c.accountId, type: c.type, json: ownBytes(JSON.stringify(c.body)), until });

export class PollCache {
  private readonly local = new Map<string, PollEntry>();
  /** Tasks this gateway heard settle, until when it remembers them. */
  private readonly settled = new Map<string, number>();
  private readonly redis: CacheRedis;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    /** POLL_CACHE_MS: 0 turns both levels off. */
    readonly ttlMs: number,
  ) {
    this.redis = cacheRedis(redis);
  }

  /** The local copy, while the shared entry it copies still exists at the latest. */
  localCopy(taskId: string): PollEntry | undefined {
    const e = this.local.get(taskId);
    return e !== undefined && e.until > performance.now() ? e : undefined;
  }

  /**
   * Drops an expired local copy; true when there was one. Its shared entry has expired too (a copy
   * ends no later than its entry), so unless another gateway has stored a new one meanwhile there
   * is nothing to read: the caller goes to Postgres and fill() adopts such an entry if there is one.
   */
  dropExpired(taskId: string): boolean {
    const e = this.local.get(taskId);
    if (e === undefined || e.until > performance.now()) return false;
    this.local.delete(taskId);
    return true;
  }

  /**
   * The shared entry, copied locally until its own expiry; null when there is none or when it is
   * stale (it shows a task this gateway heard settle as not finished).
   */
  async readShared(taskId: string): Promise<PollEntry | null> {
    const sent = performance.now();
    const got = await this.redis.pollCacheRead(pollCacheKey(this.prefix, taskId));
    // An entry that does not match the schema (another writer's bug) is not answered: read the task.
    const c = got ? decodePollEntry(got[0]) : null;
    if (!got || !c || this.stale(taskId, c)) return null;
    return this.keep(taskId, entryOf(c, sent + Number(got[1])));
  }

  /**
   * Stores a body read from Postgres as the shared entry, unless another gateway stored one first:
   * then that one is answered (and copied), so both gateways answer the same body. Null when the
   * entry (ours or theirs) shows a task this gateway heard settle as unfinished: the event came
   * while the database read ran, and the caller reads again.
   */
  async fill(taskId: string, accountId: string, type: 'video' | 'image', body: Record<string, unknown>): Promise<PollEntry | null> {
    const ours = toPollEntry(accountId, type, body);
    const px = isTerminal(ours.body) ? Math.max(this.ttlMs, TERMINAL_CACHE_MS) : this.ttlMs;
    // A settled task's shared entry may still hold its old state: replace it, do not adopt it.
    const mode = isTerminal(ours.body) && this.settled.has(taskId) ? 'set' : 'nx';
    const sent = performance.now();
    const [won, ttl] = await this.redis.pollCacheFill(pollCacheKey(this.prefix, taskId), encodePollEntry(ours), px, mode);
    const c = won === 1 ? ours : decodePollEntry(won) ?? ours;
    if (this.stale(taskId, c)) return null;
    return this.keep(taskId, entryOf(c, sent + Number(ttl)));
  }

  /** The body as an entry that is not kept (the cache is off, or Redis failed). */
  static uncached(accountId: string, type: 'video' | 'image', body: Record<string, unknown>): PollEntry {
    return { accountId, type, json: Buffer.from(JSON.stringify(body)), until: 0 };
  }

  /**
   * A task event: the settlement has replaced (or deleted) the shared entry; the local copy goes
   * too, and becomes the settled entry when the event carries it (so the next poll is answered from
   * memory). That copy is kept a second less than the shared entry lives, from when the event
   * arrived, which is after the entry was stored; were delivery slower than that, the copy would
   * still hold a terminal state, which never changes, so no gateway could answer differently.
   */
  settle(taskId: string, entry?: SettledPollEntry): void {
    this.local.delete(taskId);
    this.settled.delete(taskId);
    if (this.settled.size >= SETTLED_MAX) this.settled.delete(this.settled.keys().next().value!);
    this.settled.set(taskId, performance.now() + SETTLED_MEMORY_MS);
    if (entry && this.ttlMs > 0) this.keep(taskId, entryOf(entry, performance.now() + SETTLED_POLL_ENTRY_MS - 1000));
  }

  private stale(taskId: string, c: PollCacheEntry): boolean {
    if (isTerminal(c.body)) return false;
    const until = this.settled.get(taskId);
    if (until === undefined) return false;
    if (until > performance.now()) return true;
    this.settled.delete(taskId);
    return false;
  }

  private keep(taskId: string, e: PollEntry): PollEntry {
    if (e.until <= performance.now()) return e;
    this.local.delete(taskId);
    if (this.local.size >= LOCAL_MAX) this.local.delete(this.local.keys().next().value!);
    this.local.set(taskId, e);
    return e;
  }

  /** Local copies held (tests, metrics). */
  get size(): number {
    return this.local.size;
  }
}
