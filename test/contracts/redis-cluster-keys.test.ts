// Redis Cluster: every Lua script and multi-key command touches keys of one hash slot,
// or the cluster refuses it (CROSSSLOT). The scripts' keys are taken from the real callers (a
// recording stand-in for the connection), the slots computed as the cluster does (cluster-key-slot,
// the package ioredis routes with), for ordinary and awkward channel ids.
import { Cluster } from 'ioredis';
import { QueueKeys } from 'bullmq';
import { createChannelHealth, healthKey, outcomesKey, readChoiceState, streakAccountsKey } from '@mediagen/channel-health';
import { createRedis, isCluster, jobKey, queuePrefix, QUEUES, RedisClient, redisErrorText } from '@mediagen/queue';
import { loadConfig, parseClusterNodes } from '@mediagen/config';
import { createChannelSlots } from '../../apps/worker/src/channel-slots';
import { createDeliveryGate } from '@mediagen/webhooks';

// cluster-key-slot ships no types; it is the function ioredis itself routes keys with.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const slotOf = require('cluster-key-slot') as (key: string) => number;

const CHANNEL_IDS = ['sim-video', 'a', 'x:y', 'with space', 'ünïcode', 'a}b', '{weird}', 'x{y}z', '12345'];
const PREFIXES = ['mg', 'e2e-cluster-ab12cd', 'tenant:eu'];

/**
 * A connection stand-in that records the keys of every script call (EVAL: numkeys, then the keys;
 * a command made with defineCommand: its numberOfKeys first arguments) and of every plain command
 * sent with `call` (its first argument).
 */
function recorder(cluster: boolean) {
  const evals: string[][] = [];
  const calls: string[][] = [];
  const redis: Record<string, unknown> = {
    isCluster: cluster,
    eval: async (_lua: string, numKeys: number, ...args: unknown[]) => {
      evals.push(args.slice(0, numKeys).map(String));
      return '';
    },
    defineCommand: (name: string, { numberOfKeys }: { numberOfKeys: number }) => {
      redis[name] = async (...args: unknown[]) => {
        evals.push(args.slice(0, numberOfKeys).map(String));
        return name === 'slotAcquire' ? 1 : '';
      };
    },
    call: async (command: string, ...args: string[]) => {
      calls.push([command, args[0]]);
      return command === 'smembers' ? [] : null;
    },
  };
  return { redis: redis as unknown as RedisClient, evals, calls };
}

const oneSlot = (keys: string[]) => new Set(keys.map(slotOf)).size === 1;

describe('keys of one script share one hash slot', () => {
  it.each(PREFIXES)('the breaker scripts (prefix %s)', async (prefix) => {
    const { redis, evals } = recorder(true);
    const health = createChannelHealth(redis, prefix, { failures: 3, windowMs: 60_000, cooldownMs: 1_000 });
    for (const id of CHANNEL_IDS) {
      for (const outcome of ['failed', 'transient', 'succeeded', 'violation'] as const) await health.record(id, outcome, 'boom', 'acct_1');
      await health.admit(id, 'task_1');
    }
    expect(evals.length).toBe(CHANNEL_IDS.length * 5);
    expect(evals.filter((keys) => keys.length === 3)).toHaveLength(CHANNEL_IDS.length * 4);
    for (const keys of evals) expect({ keys, oneSlot: oneSlot(keys) }).toEqual({ keys, oneSlot: true });
    // ... and the same keys the gateway reads for one channel (health-view) are the script's.
    for (const id of CHANNEL_IDS) expect(oneSlot([healthKey(prefix, id), streakAccountsKey(prefix, id), outcomesKey(prefix, id, 29_000_000)])).toBe(true);
  });

  it('different channels spread over slots (the tag is the channel, not the deployment)', () => {
    const slots = new Set(CHANNEL_IDS.map((id) => slotOf(healthKey('mg', id))));
    expect(slots.size).toBeGreaterThan(CHANNEL_IDS.length / 2);
  });

  it('the webhook delivery gate scripts (slots, destination backoff) each touch one key', async () => {
    const { redis, evals } = recorder(true);
    (redis as unknown as { zrem: () => Promise<number> }).zrem = async () => 0;
    const gate = createDeliveryGate(redis, 'mg', { accountConcurrency: 1, destinationConcurrency: 1, destinationFailures: 1, backoffBaseMs: 1, backoffMaxMs: 2, leaseMs: 10 });
    for (const id of CHANNEL_IDS) {
      await gate.enter({ id: 'd1', accountId: id, url: `https://${encodeURIComponent(id)}.example.com/x` }, Date.now());
      await gate.outcome({ id: 'd1', accountId: id, url: 'https://example.com/x' }, false, Date.now());
    }
    expect(evals.length).toBeGreaterThanOrEqual(CHANNEL_IDS.length * 2);
    for (const keys of evals) expect(keys).toHaveLength(1);
  });

  it('on a cluster the reads of a channel choice are single-key commands, not one pipeline (their keys spread over the masters)', async () => {
    const { redis, calls } = recorder(true);
    const state = await readChoiceState(redis, 'mg', CHANNEL_IDS.map((id) => ({ id, upstreamModel: 'm' })));
    expect(state).toEqual({ unavailable: new Set(), disabled: new Set(), admitting: new Set(CHANNEL_IDS) });
    expect(calls).toHaveLength(CHANNEL_IDS.length * 2 + 1);
    expect(new Set(calls.map(([command]) => command))).toEqual(new Set(['hexists', 'smembers', 'hget']));
  });

  it('the channel-slot script touches one key', async () => {
    const { redis, evals } = recorder(true);
    const slots = createChannelSlots(redis, 'mg');
    for (const id of CHANNEL_IDS) await slots.acquire({ id, maxInFlight: 2 } as never, 'task_1', Date.now() + 1000);
    expect(evals).toHaveLength(CHANNEL_IDS.length);
    for (const keys of evals) expect(keys).toHaveLength(1);
  });

  it.each(PREFIXES)('every key of every BullMQ queue, and the job hashes the reconcilers read, share one slot on a cluster (prefix %s)', (prefix) => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    try {
      const bull = queuePrefix(cluster, prefix);
      expect(bull).toBe(`{${prefix}}`);
      for (const name of Object.values(QUEUES)) {
        const keys = Object.values(new QueueKeys(bull).getKeys(name)).filter(Boolean);
        keys.push(jobKey(cluster, prefix, name, 'task_01J9Z3N6K4'), jobKey(cluster, prefix, name, 'repeat:abc:1700000000000'));
        expect(keys.length).toBeGreaterThan(10);
        expect(oneSlot(keys)).toBe(true);
      }
    } finally {
      cluster.disconnect();
    }
  });

  it('on a single server the queue keys keep their names (a running deployment keeps its jobs)', () => {
    const { redis } = recorder(false);
    expect(queuePrefix(redis, 'mg')).toBe('mg');
    expect(jobKey(redis, 'mg', QUEUES.tasks, 't1')).toBe('mg:tasks:t1');
  });
});

describe('REDIS_CLUSTER_NODES', () => {
  it('parses seed nodes; a URL entry brings user, password and TLS', () => {
    expect(parseClusterNodes('10.0.0.1:7000, 10.0.0.2:7001,redis-3')).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
      { host: 'redis-3', port: 6379 },
    ]);
    expect(parseClusterNodes('rediss://app:s%40cret@cache.example:6380')).toEqual([{ host: 'cache.example', port: 6380, username: 'app', password: 's@cret', tls: true }]);
    expect(parseClusterNodes('[::1]:7000')).toEqual([{ host: '::1', port: 7000 }]);
  });

  it.each([['host:notaport'], ['http://x:1'], [' , '], ['h:70000'], ['redis://h:1/2']])('refuses %j', (value) => {
    expect(typeof parseClusterNodes(value)).toBe('string');
    expect(() => loadConfig({ NODE_ENV: 'test', REDIS_CLUSTER_NODES: value })).toThrow(/REDIS_CLUSTER_NODES/);
  });

  it('selects a Cluster in the one factory, and an empty value keeps REDIS_URL', () => {
    const onCluster = createRedis(loadConfig({ NODE_ENV: 'test', REDIS_CLUSTER_NODES: '127.0.0.1:1,127.0.0.1:2' }), 'producer', { lazyConnect: true });
    const single = createRedis(loadConfig({ NODE_ENV: 'test', REDIS_CLUSTER_NODES: '' }), 'producer', { lazyConnect: true });
    try {
      expect(isCluster(onCluster)).toBe(true);
      expect(isCluster(single)).toBe(false);
    } finally {
      onCluster.disconnect();
      single.disconnect();
    }
  });

  it('gives every node the credentials and TLS of a URL entry, and the roles their retry policies', () => {
    const config = loadConfig({ NODE_ENV: 'test', REDIS_CLUSTER_NODES: 'rediss://app:pw@10.0.0.1:7000,10.0.0.2:7000' });
    const producer = createRedis(config, 'producer', { lazyConnect: true }) as Cluster;
    const consumer = createRedis(config, 'consumer', { lazyConnect: true }) as Cluster;
    try {
      expect(producer.options.redisOptions).toMatchObject({ username: 'app', password: 'pw', tls: {}, maxRetriesPerRequest: 1 });
      expect(producer.options.enableOfflineQueue).toBe(false); // fails fast: the gateway answers 503
      expect(typeof producer.options.dnsLookup).toBe('function');
      expect(consumer.options.redisOptions).toMatchObject({ maxRetriesPerRequest: null }); // as BullMQ requires
      expect(consumer.options.enableOfflineQueue).toBe(true);
    } finally {
      producer.disconnect();
      consumer.disconnect();
    }
  });

  it('names the cause when the seed nodes are no cluster (the machine\'s single Redis)', async () => {
    const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const wrong = createRedis(loadConfig({ NODE_ENV: 'test', REDIS_CLUSTER_NODES: `${url.hostname}:${url.port || 6379}` }), 'producer');
    try {
      const err = await new Promise<Error>((resolve) => wrong.once('error', resolve));
      expect(redisErrorText(err)).toMatch(/cluster support disabled/);
    } finally {
      wrong.disconnect();
    }
  });

  it('refuses a REDIS_PREFIX with braces on a cluster (it would move the hash tags)', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', REDIS_CLUSTER_NODES: '127.0.0.1:7000', REDIS_PREFIX: '{mg}' })).toThrow(/REDIS_PREFIX/);
    expect(loadConfig({ NODE_ENV: 'test', REDIS_PREFIX: '{mg}' }).REDIS_PREFIX).toBe('{mg}');
  });
});
