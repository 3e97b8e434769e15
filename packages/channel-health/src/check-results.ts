// The last channel check of each channel and upstream model (npm run channels:check, the console's
// check button, CHANNEL_CHECK_AT_START), kept for the console's channel page and GET /admin/channels.
// A check that finds a model again clears its "unavailable" mark (model-unavailable.ts).
import { checkResultsKey, RedisClient } from './keys';
import { clearModelUnavailable } from './model-unavailable';

export interface StoredCheck {
  upstreamModel: string;
  /** ok | bad_key | unknown_model | unreachable | error | skipped */
  verdict: string;
  detail: string;
  ms: number;
  at: string;
}

/** Keeps the results (a day) and clears the unavailable mark of every model found again; returns the models cleared. */
export async function saveCheckResults(
  redis: RedisClient,
  prefix: string,
  results: readonly (Omit<StoredCheck, 'at'> & { channel: string })[],
  now = Date.now(),
): Promise<{ channel: string; upstreamModel: string }[]> {
  const cleared: { channel: string; upstreamModel: string }[] = [];
  for (const r of results) {
    const key = checkResultsKey(prefix, r.channel);
    const stored: StoredCheck = { upstreamModel: r.upstreamModel, verdict: r.verdict, detail: r.detail.slice(0, 300), ms: r.ms, at: new Date(now).toISOString() };
    await redis.hset(key, r.upstreamModel, JSON.stringify(stored));
    await redis.expire(key, 86_400);
    if (r.verdict === 'ok' && (await clearModelUnavailable(redis, prefix, r.channel, r.upstreamModel)) > 0) cleared.push({ channel: r.channel, upstreamModel: r.upstreamModel });
  }
  return cleared;
}

export async function readCheckResults(redis: RedisClient, prefix: string, channelId: string): Promise<StoredCheck[]> {
  const all = await redis.hgetall(checkResultsKey(prefix, channelId));
  const out: StoredCheck[] = [];
  for (const json of Object.values(all ?? {})) {
    try {
      out.push(JSON.parse(json) as StoredCheck);
    } catch {
      // a value we did not write: left out
    }
  }
  return out.sort((a, b) => a.upstreamModel.localeCompare(b.upstreamModel));
}
