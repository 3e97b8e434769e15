// The whole service on a real Redis Cluster (REDIS_CLUSTER_NODES). Three masters from the
// machine's redis-server on loopback; gateway, worker and simulator run on it with REDIS_URL still
// pointing at the machine's standalone Redis, which must receive nothing. Covered: image and video
// submits to completion (queues under the `{prefix}` hash tag, channel slots and breakers, task events
// waking an instant image submit, a webhook delivery), balances and ledger, the poll cache, a key revoked on one gateway
// refused at once by another (pub/sub across nodes), the per-account 429, Bull Board, /admin/channels
// and the gauges, and keys spread over more than one master.
import fs from 'node:fs';
import path from 'node:path';
import IORedis from 'ioredis';
import { masters, RedisClient } from '@mediagen/queue';
import { Account, apiClient } from './support/api';
import { freePort, Proc, startProcess, waitForHealthy } from './support/processes';
import { RedisCluster, redisClusterUnavailable, startRedisCluster } from './support/redis-cluster';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { eventually, waitFor } from './support/wait';
import { Receiver, startReceiver } from './support/webhook-receiver';

jest.setTimeout(60_000);

const unavailable = redisClusterUnavailable();
if (unavailable) console.warn(`redis-cluster.e2e skipped: ${unavailable}`);

/** Every key of this stack on one node: its own prefix and BullMQ's `{prefix}`. */
async function keysOn(node: IORedis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found;
}

(unavailable ? describe.skip : describe)('on a Redis Cluster of three masters', () => {
  let cluster: RedisCluster;
  let receiver: Receiver;
  beforeAll(async () => {
    [cluster, receiver] = await Promise.all([startRedisCluster({ masters: 3 }), startReceiver()]);
  }, 120_000);
  // Outer afterAll: runs after the suite's own, which stops the processes that use the cluster.
  afterAll(async () => {
    await Promise.all([cluster?.stop(), receiver?.close()]);
  });

  describe('the service', () => {
    let stack: Stack;
    let api: ReturnType<typeof apiClient>;
    let account: Account;
    e2eSuite(
      'cluster',
      {
        balanceCents: 100_000,
        // The poll cache is on (the stack's default turns it off), and an instant image submit waits
        // for its task event far longer than this file's timeout: only the event can answer it.
        stack: () => ({ env: { REDIS_CLUSTER_NODES: cluster.nodes, POLL_CACHE_MS: '2000', INSTANT_WAIT_MS: '120000' } }),
      },
      (s) => ({ stack, api, account } = s),
    );
    const redis = (): RedisClient => stack.redis;
    // A second gateway on the same cluster, started beside the first tests (it is only needed by the
    // revocation test) and stopped with the stack.
    let second: Promise<{ proc: Proc; url: string }>;
    beforeAll(() => {
      second = (async () => {
        const port = await freePort();
        const proc = startProcess('gateway-2', 'apps/gateway/src/main.ts', { ...stack.env, PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }, path.dirname(stack.gateway.logFile));
        stack.procs.push(proc); // stopped with the stack, its log printed with the others
        await waitForHealthy(`http://127.0.0.1:${port}/healthz`, proc);
        return { proc, url: `http://127.0.0.1:${port}` };
      })();
      second.catch(() => undefined); // awaited (and reported) by the test that uses it
    });
    const balance = async (a: Account) => {
      const res = await fetch(`${stack.gatewayUrl}/api/balance`, { headers: { Authorization: `Bearer ${a.apiKey}` } });
      return { status: res.status, body: (await res.json()) as { balanceCents?: number } };
    };

    it('runs image and video submits to completion and charges each once', async () => {
      const before = (await balance(account)).body.balanceCents!;
      // image-c-2.1 answers at once: the submit returns when the worker's task event reaches the gateway.
      const instant = await api.submit(account, 'image', { model: 'image-c-2.1', prompt: 'a lighthouse at dusk' });
      expect(instant.status).toBe(200);
      expect(instant.body.status).toBe('completed');

      const submits = await Promise.all([
        api.submit(account, 'image', { model: 'image-a-5.0', prompt: 'a red fox', ratio: '16:9', resolution: '2k' }),
        // Its webhook goes through the webhooks queue, on the cluster too.
        api.submit(account, 'video', { model: 'video-a-h3', prompt: 'a harbour at night', duration: 2, resolution: '480p', callback_url: receiver.url('/hook') }),
        api.submit(account, 'video', { model: 'video-a-h3', prompt: 'a comet', duration: 3, resolution: '480p' }),
      ]);
      for (const s of submits) expect(s.status).toBe(200);
      const kinds = ['image', 'video', 'video'] as const;
      const ids = submits.map((s) => String(s.body.taskId));
      const last = await Promise.all(ids.map((id, i) => api.untilSettled(account, kinds[i], id).then((b) => b.at(-1)!)));
      expect(last.map((b) => b.status)).toEqual(['completed', 'completed', 'completed']);
      for (const b of last) expect((b.resultUrls as string[]).length).toBeGreaterThan(0);
      // A second poll of a finished task is answered from the poll cache on the cluster.
      const again = await api.poll(account, 'video', ids[1]);
      expect(again.body).toMatchObject({ status: 'completed', resultUrls: last[1].resultUrls });

      const all = [String(instant.body.taskId), ...ids];
      const tasks = await stack.db.task.findMany({ where: { id: { in: all } }, select: { id: true, costCents: true } });
      const ledger = await stack.db.ledgerEntry.findMany({ where: { taskId: { in: all } }, select: { taskId: true, kind: true } });
      expect(ledger.map((e) => e.kind).sort()).toEqual(['charge', 'charge', 'charge', 'charge']);
      const spent = tasks.reduce((sum, t) => sum + Number(t.costCents), 0);
      expect(spent).toBeGreaterThan(0);
      expect((await balance(account)).body.balanceCents).toBe(before - spent);
      const hook = await eventually('the task.completed webhook', async () => receiver.calls.find((c) => c.path === '/hook' && c.body.includes(ids[1])));
      expect(JSON.parse(hook.body)).toMatchObject({ type: 'task.completed', data: { taskId: ids[1] } });
    });

    it('a key revoked on one gateway is refused at once by another (pub/sub across the cluster)', async () => {
      const { url } = await second;
      const key = await api.admin('POST', `/accounts/${account.accountId}/api-keys`);
      expect(key.status).toBe(201);
      const balanceOn2 = () => fetch(`${url}/api/balance`, { headers: { Authorization: `Bearer ${key.body.key}` } });
      // The second gateway now holds the key in its auth cache (kept for 5 s without a revocation).
      expect((await balanceOn2()).status).toBe(200);
      expect((await api.admin('DELETE', `/api-keys/${key.body.id}`)).status).toBeLessThan(300);
      // Within 4 s, before the 5 s cache entry could have expired on its own: the revocation came
      // through the cluster's pub/sub.
      let status = 200;
      await waitFor(async () => (status = (await balanceOn2()).status) !== 200, 4_000, 'the revoked key refused by the second gateway').catch(() => undefined);
      expect(status).toBe(401);
    });

    it('answers 429 past the per-account rate limit, polls counted too', async () => {
      const acc = await api.admin('POST', '/accounts', { name: 'cluster-limited', balanceCents: 100, rateLimitPerMinute: 3 });
      expect(acc.status).toBe(201);
      const key = await api.admin('POST', `/accounts/${acc.body.id}/api-keys`);
      const limited: Account = { accountId: String(acc.body.id), apiKey: String(key.body.key) };
      // Polls (with the poll cache on) take another path through the limiter than other requests.
      const poll = async () => (await fetch(`${stack.gatewayUrl}/api/video/tasks/task_unknown_0001`, { headers: { Authorization: `Bearer ${limited.apiKey}` } })).status;
      const statuses: number[] = [(await balance(limited)).status];
      for (let i = 0; i < 4; i++) statuses.push(await poll());
      expect(statuses).toEqual([200, 404, 404, 429, 429]);
    });

    it('Bull Board, /admin/channels and the queue gauges read the cluster', async () => {
      const board = await fetch(`${stack.gatewayUrl}/admin/queues/api/queues?activeQueue=tasks&status=completed&page=1&jobsPerPage=10`, {
        headers: { Authorization: `Bearer ${stack.adminToken}` },
      });
      expect(board.status).toBe(200);
      const queues = ((await board.json()) as { queues: { name: string; counts: Record<string, number> }[] }).queues;
      expect(queues.map((q) => q.name).sort()).toEqual(['maintenance', 'tasks', 'webhooks']);
      expect(queues.find((q) => q.name === 'tasks')!.counts.completed).toBeGreaterThanOrEqual(4);

      const channels = await api.admin('GET', '/channels');
      expect(channels.status).toBe(200);
      const list = channels.body.channels as { id: string; state: string; recent: { succeeded: number } }[];
      expect(list.length).toBeGreaterThan(0);
      expect(list.reduce((n, c) => n + c.recent.succeeded, 0)).toBeGreaterThanOrEqual(4);

      const metrics = await fetch(`${stack.gatewayUrl}/metrics`, { headers: { Authorization: `Bearer ${stack.adminToken}` } });
      expect(await metrics.text()).toMatch(/mediagen_queue_jobs\{[^}]*queue="tasks"/);
    });

    it('spreads keys over more than one master and writes nothing to the standalone Redis', async () => {
      const perMaster = await Promise.all((await masters(redis())).map((n) => keysOn(n, stack.prefix)));
      expect(perMaster).toHaveLength(3);
      const all = perMaster.flat();
      expect(all.some((k) => k.startsWith(`{${stack.prefix}}:tasks:`))).toBe(true); // BullMQ, hash-tagged
      expect(all.some((k) => k.startsWith(`${stack.prefix}:rl:`))).toBe(true); // rate-limit counters
      expect(all.some((k) => k.startsWith(`${stack.prefix}:channel-health:{`))).toBe(true); // breakers
      expect(perMaster.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);

      const standalone = new IORedis(stack.env.REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        expect(await keysOn(standalone, stack.prefix)).toEqual([]);
      } finally {
        standalone.disconnect();
      }
      // No process met a command spanning slots (the server's CROSSSLOT, ioredis's own checks of
      // pipelines) or a Redis failure the request paths swallow.
      for (const p of stack.procs)
        expect(fs.readFileSync(p.logFile, 'utf8')).not.toMatch(/CROSSSLOT|same slot|slots allocation group|MOVED \d+|rate limit store failed|not published/);
    });
  });
});
