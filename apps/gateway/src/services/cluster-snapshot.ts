// What the gateway's scrape-time gauges read from Redis: job counts of every queue, and per channel
// the renders in flight and the breaker state (packages/metrics cluster-gauges.ts).
import { Queue } from 'bullmq';
import { readChannelViews } from '@mediagen/channel-health';
import type { ClusterSnapshot } from '@mediagen/metrics';
import { QUEUES, queuePrefix, RedisClient, TaskQueue } from '@mediagen/queue';

const STATES = ['waiting', 'active', 'delayed'] as const;

/**
 * BullMQ keeps prioritized jobs apart from the wait list; for the gauge they are waiting like the
 * others (a task's job is prioritized once its render runs: packages/queue RUNNING_TASK_PRIORITY).
 */
async function jobCounts(q: Queue): Promise<Record<string, number>> {
  const { prioritized = 0, ...counts } = await q.getJobCounts(...STATES, 'prioritized');
  return { ...counts, waiting: (counts.waiting ?? 0) + prioritized };
}

export function clusterSnapshotReader(redis: RedisClient, prefix: string, taskQueue: TaskQueue): () => Promise<ClusterSnapshot> {
  const queues: Queue[] = Object.values(QUEUES).map((name) => {
    if (name === taskQueue.name) return taskQueue;
    const q = new Queue(name, { connection: redis, prefix: queuePrefix(redis, prefix) });
    q.on('error', () => undefined); // connection errors: the gateway's Redis client reports them
    return q;
  });
  return async () => {
    // Without Redis every read below would wait for its command timeout; say so at once instead.
    if (redis.status !== 'ready') throw new Error(`redis is ${redis.status}`);
    const [counts, channels] = await Promise.all([Promise.all(queues.map(jobCounts)), readChannelViews(redis, prefix)]);
    return {
      queues: Object.fromEntries(queues.map((q, i) => [q.name, counts[i]])),
      rendersInFlight: Object.fromEntries(channels.map((c) => [c.id, c.rendersInFlight])),
      breakerStates: Object.fromEntries(channels.map((c) => [c.id, c.state])),
    };
  };
}
