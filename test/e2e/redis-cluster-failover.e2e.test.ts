// A case beyond the happy path: the master holding the queues (BullMQ's `{prefix}` slot)
// dies on a cluster of three masters with a replica each. Its replica takes over, and the service
// carries on without a restart: submits are accepted again, workers run them to completion, and an
// instant image submit is still woken by its task event (the gateway's subscription follows).
import IORedis from 'ioredis';
import { Account, apiClient } from './support/api';
import { clusterInfo, RedisCluster, redisClusterUnavailable, startRedisCluster } from './support/redis-cluster';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { eventually } from './support/wait';

jest.setTimeout(90_000);

const unavailable = redisClusterUnavailable();
if (unavailable) console.warn(`redis-cluster-failover.e2e skipped: ${unavailable}`);

type SlotRange = [number, number, [string, number, ...unknown[]], ...unknown[]];

/** The port of the master serving `slot`, as the node on `askPort` sees it. */
async function masterOf(askPort: number, slot: number): Promise<number | null> {
  const r = new IORedis({ host: '127.0.0.1', port: askPort, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    const ranges = (await r.call('CLUSTER', 'SLOTS')) as SlotRange[];
    const range = ranges.find(([from, to]) => from <= slot && slot <= to);
    return range ? Number(range[2][1]) : null;
  } catch {
    return null;
  } finally {
    r.disconnect();
  }
}

(unavailable ? describe.skip : describe)('a Redis Cluster master fails over', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicas: 1, nodeTimeoutMs: 2_000 });
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  describe('the service', () => {
    let stack: Stack;
    let api: ReturnType<typeof apiClient>;
    let account: Account;
    e2eSuite(
      'clusterfo',
      { balanceCents: 100_000, stack: () => ({ env: { REDIS_CLUSTER_NODES: cluster.nodes, INSTANT_WAIT_MS: '120000' } }) },
      (s) => ({ stack, api, account } = s),
    );

    const video = (prompt: string) => ({ model: 'video-a-h3', prompt, duration: 2, resolution: '480p' });

    it('keeps taking and finishing submits after the queues\' master dies', async () => {
      const before = await api.submit(account, 'video', video('before the failover'));
      expect(before.status).toBe(200);
      expect((await api.untilSettled(account, 'video', String(before.body.taskId))).at(-1)!.status).toBe('completed');

      const slot = Number(await stack.redis.cluster('KEYSLOT', `{${stack.prefix}}`));
      const dead = await masterOf(cluster.ports[0], slot);
      expect(dead).not.toBeNull();
      await cluster.kill(dead!);
      const survivor = cluster.ports.find((p) => p !== dead)!;
      // The replica is promoted once the others have given up on the master (cluster-node-timeout).
      await eventually(
        'a replica promoted for the queues\' slot',
        async () => /cluster_state:ok/.test(await clusterInfo(survivor)) && ((await masterOf(survivor, slot)) ?? dead) !== dead,
        30_000,
      );

      // Submits may answer 503 while the gateway learns the new slot map; then they are accepted.
      const instant = await eventually(
        'an accepted submit after the failover',
        async () => {
          const r = await api.submit(account, 'image', { model: 'image-c-2.1', prompt: 'after the failover' });
          if (r.status === 503) return null;
          return r;
        },
        20_000,
      );
      expect(instant.status).toBe(200);
      // Woken by its task event: the subscription survived the failover (INSTANT_WAIT_MS is 2 minutes).
      expect(instant.body.status).toBe('completed');

      const after = await api.submit(account, 'video', video('after the failover'));
      expect(after.status).toBe(200);
      expect((await api.untilSettled(account, 'video', String(after.body.taskId))).at(-1)!.status).toBe('completed');
    });
  });
});
