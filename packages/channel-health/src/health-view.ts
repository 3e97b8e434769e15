// The deployment's channels as the gateway shows them (GET /admin/channels, metrics gauges): the
// list the workers registered, each with its breaker state, recent outcomes and renders in flight.
import type { BreakerState, ChannelInfo, Outcome } from './breaker';
import { disabledChannelsKey, channelSlotsKey, healthKey, minuteOf, outcomesKey, RECENT_MINUTES, RedisClient, registryKey, registrySeenKey, REGISTRY_TTL_MS } from './keys';
import { type UnavailableModel, unavailableModels } from './model-unavailable';
import { readCheckResults, type StoredCheck } from './check-results';

const OUTCOMES: Outcome[] = ['succeeded', 'failed', 'transient', 'violation', 'unusable', 'unknown_model'];

export interface ChannelView extends ChannelInfo {
  state: BreakerState;
  /** Failed/transient outcomes in a row while closed (the streak that opens the breaker). */
  consecutiveFailures: number;
  openedAt: string | null;
  /** End of the cool-down while open (always in the future); null once it passed (half-open) or closed. */
  openUntil: string | null;
  probeTaskId: string | null;
  lastError: { kind: string; message: string; at: string } | null;
  lastSuccessAt: string | null;
  /** Outcome counts of the last RECENT_MINUTES minutes (whole minutes, the current one included). */
  recent: Record<Outcome, number> & { windowMinutes: number };
  rendersInFlight: number;
  /** An operator disabled it in the console: no new attempt starts on it. */
  disabledByOperator: boolean;
  /** Upstream models this channel's upstream said it does not know: not tried for them (model-unavailable.ts). */
  unavailableModels: UnavailableModel[];
  /** The last channel check of each upstream model (check-results.ts), newest run. */
  checks: StoredCheck[];
}

const iso = (ms: string | undefined) => (ms && Number(ms) > 0 ? new Date(Number(ms)).toISOString() : null);

export async function readChannelViews(redis: RedisClient, prefix: string, now = Date.now()): Promise<ChannelView[]> {
  const [registered, seen] = await Promise.all([redis.hgetall(registryKey(prefix)), redis.zrangebyscore(registrySeenKey(prefix), now - REGISTRY_TTL_MS, '+inf')]);
  // Only channels a running worker reported lately (keys.ts REGISTRY_TTL_MS).
  const live = new Set(seen);
  const channels = Object.entries(registered)
    .filter(([id]) => live.has(id))
    .map(([, json]) => JSON.parse(json) as ChannelInfo)
    .sort((a, b) => a.id.localeCompare(b.id));
  if (channels.length === 0) return [];
  const minute = minuteOf(now);
  // Concurrent single-key commands rather than one pipeline: on a Redis Cluster a pipeline must stay
  // on one node, and these keys spread over the masters (a connection with auto-pipelining still
  // sends them in one write per node).
  const reads: Promise<unknown>[] = [];
  for (const c of channels) {
    reads.push(redis.hgetall(healthKey(prefix, c.id)));
    reads.push(redis.zcount(channelSlotsKey(prefix, c.id), now, '+inf')); // lapsed leases do not count
    for (let m = 0; m < RECENT_MINUTES; m++) reads.push(redis.hgetall(outcomesKey(prefix, c.id, minute - m)));
  }
  reads.push(redis.smembers(disabledChannelsKey(prefix)));
  const [res, unavailable, checks] = await Promise.all([
    Promise.all(reads),
    Promise.all(channels.map((c) => unavailableModels(redis, prefix, c.id))),
    Promise.all(channels.map((c) => readCheckResults(redis, prefix, c.id))),
  ]);
  const disabled = new Set((res[res.length - 1] as string[] | undefined) ?? []);
  const per = 2 + RECENT_MINUTES;
  return channels.map((c, i) => {
    const at = <T>(k: number) => res[i * per + k] as T;
    const h = at<Record<string, string>>(0) ?? {};
    const recent = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
    for (let m = 0; m < RECENT_MINUTES; m++) {
      const bucket = at<Record<string, string>>(2 + m) ?? {};
      for (const o of OUTCOMES) recent[o] += Number(bucket[o] ?? 0);
    }
    let state = (h.state as BreakerState | undefined) ?? 'closed';
    // Past its cool-down an open breaker admits the next task as its probe: show it as half-open.
    if (state === 'open' && now >= Number(h.openUntil ?? 0)) state = 'half-open';
    return {
      ...c,
      state,
      consecutiveFailures: state === 'closed' ? Number(h.failures ?? 0) : 0,
      openedAt: state === 'closed' ? null : iso(h.openedAt),
      // Only a future time: past its cool-down the breaker is half-open, not open "until" a past time.
      openUntil: state === 'open' ? iso(h.openUntil) : null,
      probeTaskId: state === 'half-open' ? (h.probeTask ?? null) : null,
      lastError: h.lastFailureAt ? { kind: h.lastErrorKind ?? 'failed', message: h.lastError ?? '', at: iso(h.lastFailureAt)! } : null,
      lastSuccessAt: iso(h.lastSuccessAt),
      recent: { ...recent, windowMinutes: RECENT_MINUTES },
      rendersInFlight: Number(at<number>(1) ?? 0),
      disabledByOperator: disabled.has(c.id),
      unavailableModels: unavailable[i],
      checks: checks[i],
    };
  });
}
