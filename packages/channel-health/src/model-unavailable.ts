// Upstream models a channel answered "does not exist / no longer available" for (UpstreamError kind
// unknown_model): new attempts skip that channel for that upstream model only, on every worker at
// once and across restarts (Redis), until an operator re-enables it in the console or a channel
// check finds the model again. Keyed by the upstream model, not ours: a config that maps the model
// to another upstream id is tried at once, and two of our models mapped to one retired id are both
// skipped.
import { RedisClient, unavailableModelsKey } from './keys';

export interface UnavailableModel {
  upstreamModel: string;
  /** Our model (or variant) whose task met it. */
  model: string;
  /** What the upstream said. */
  message: string;
  /** ISO time it was recorded. */
  at: string;
}

/** Records it; true when the model was not marked yet (the caller logs and counts the first time only). */
export async function markModelUnavailable(redis: RedisClient, prefix: string, channelId: string, entry: Omit<UnavailableModel, 'at'>, now = Date.now()): Promise<boolean> {
  const value: UnavailableModel = { ...entry, message: entry.message.slice(0, 300), at: new Date(now).toISOString() };
  const added = await redis.hset(unavailableModelsKey(prefix, channelId), entry.upstreamModel, JSON.stringify(value));
  return added === 1;
}

export async function isModelUnavailable(redis: RedisClient, prefix: string, channelId: string, upstreamModel: string): Promise<boolean> {
  return (await redis.hexists(unavailableModelsKey(prefix, channelId), upstreamModel)) === 1;
}

export async function unavailableModels(redis: RedisClient, prefix: string, channelId: string): Promise<UnavailableModel[]> {
  const all = await redis.hgetall(unavailableModelsKey(prefix, channelId));
  const out: UnavailableModel[] = [];
  for (const [upstreamModel, json] of Object.entries(all ?? {})) {
    try {
      out.push({ ...(JSON.parse(json) as UnavailableModel), upstreamModel });
    } catch {
      out.push({ upstreamModel, model: '', message: '', at: '' });
    }
  }
  return out.sort((a, b) => a.upstreamModel.localeCompare(b.upstreamModel));
}

/** Clears one upstream model, or every one of the channel; returns how many were cleared. */
export async function clearModelUnavailable(redis: RedisClient, prefix: string, channelId: string, upstreamModel?: string): Promise<number> {
  if (upstreamModel !== undefined) return redis.hdel(unavailableModelsKey(prefix, channelId), upstreamModel);
  return redis.del(unavailableModelsKey(prefix, channelId));
}
