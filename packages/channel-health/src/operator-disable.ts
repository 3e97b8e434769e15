// Operators take a channel out of service from the console (and put it back): running renders
// finish, but no new attempt starts on it (pickChannel skips it on every worker at once).
import { disabledChannelsKey, RedisClient } from './keys';

export async function setChannelDisabled(redis: RedisClient, prefix: string, channelId: string, disabled: boolean): Promise<void> {
  if (disabled) await redis.sadd(disabledChannelsKey(prefix), channelId);
  else await redis.srem(disabledChannelsKey(prefix), channelId);
}

export async function disabledChannels(redis: RedisClient, prefix: string): Promise<Set<string>> {
  return new Set(await redis.smembers(disabledChannelsKey(prefix)));
}
