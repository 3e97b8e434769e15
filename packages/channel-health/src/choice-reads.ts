// What choosing a task's channel reads from Redis, sent together: for each channel whether its
// upstream model for the task is marked unavailable (model-unavailable.ts) and its breaker's state
// (breaker.ts), and which channels an operator disabled (operator-disable.ts). None depends on
// another, so on a single server they go out as one pipeline, one write and one round trip, where
// they were a round trip each (and the breaker's script one more per pick). On a Redis Cluster a
// pipeline must stay on one node and these keys spread over the masters (keys.ts): there they are
// concurrent single-key commands, as before.
import { admitsWithoutWrite } from './breaker';
import { disabledChannelsKey, healthKey, RedisClient, unavailableModelsKey } from './keys';

export interface ChoiceChannel {
  id: string;
  /** The upstream model the task would be sent as on this channel; null: none to check. */
  upstreamModel: string | null;
}

export interface ChoiceState {
  /** Channels whose upstream does not know the task's upstream model: not tried for it. */
  unavailable: ReadonlySet<string>;
  /** Channels an operator disabled: no new attempt. */
  disabled: ReadonlySet<string>;
  /** Channels whose breaker admitted anyone when read (closed): pickChannel runs no script for them. */
  admitting: ReadonlySet<string>;
}

type Read = [command: 'hexists' | 'smembers' | 'hget', ...args: string[]];

export async function readChoiceState(redis: RedisClient, prefix: string, channels: readonly ChoiceChannel[]): Promise<ChoiceState> {
  const checked = channels.filter((c) => c.upstreamModel !== null);
  const reads: Read[] = [
    ...checked.map((c): Read => ['hexists', unavailableModelsKey(prefix, c.id), c.upstreamModel!]),
    ['smembers', disabledChannelsKey(prefix)],
    ...channels.map((c): Read => ['hget', healthKey(prefix, c.id), 'state']),
  ];
  const answers = await readAll(redis, reads);
  const unavailable = new Set(checked.filter((_, i) => answers[i] === 1).map((c) => c.id));
  const disabled = new Set(answers[checked.length] as string[]);
  const states = answers.slice(checked.length + 1) as (string | null)[];
  const admitting = new Set(channels.filter((_, i) => admitsWithoutWrite(states[i])).map((c) => c.id));
  return { unavailable, disabled, admitting };
}

async function readAll(redis: RedisClient, reads: Read[]): Promise<unknown[]> {
  if (redis.isCluster) return Promise.all(reads.map(([command, ...args]) => redis.call(command, ...args)));
  const results = (await redis.pipeline(reads).exec()) ?? [];
  return results.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}
