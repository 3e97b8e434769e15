// A throwaway Redis Cluster for end-to-end tests: N masters (and optionally one replica each) from
// the machine's `redis-server`, each on its own loopback port with a private folder, joined with
// `redis-cli --cluster create`. The caller stops it (kills the servers it started, removes the folders).
import { ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import IORedis from 'ioredis';
import { freePort } from './processes';

const run = promisify(execFile);

export interface RedisCluster {
  /** REDIS_CLUSTER_NODES for the apps: `127.0.0.1:port,...`. */
  nodes: string;
  ports: number[];
  dir: string;
  /** Kills one server at once (SIGKILL), as a crashed machine would go. */
  kill(port: number): Promise<void>;
  /** Tail of every server's log (for a failing test's message). */
  logs(): string;
  stop(): Promise<void>;
}

/** Why a cluster cannot be started here (no redis-server / redis-cli on PATH), or null. */
export function redisClusterUnavailable(): string | null {
  const onPath = (bin: string) =>
    (process.env.PATH ?? '').split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, bin)));
  const missing = ['redis-server', 'redis-cli'].filter((b) => !onPath(b));
  return missing.length ? `${missing.join(' and ')} not found on PATH (apt-get install -y redis-server; .ci/run does it)` : null;
}

/** CLUSTER INFO of one node, or "" when it does not answer. */
export async function clusterInfo(port: number): Promise<string> {
  const r = new IORedis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return String(await r.call('CLUSTER', 'INFO'));
  } catch {
    return '';
  } finally {
    r.disconnect();
  }
}

/** INFO replication of one node, or "" when it does not answer. */
async function replication(port: number): Promise<string> {
  const r = new IORedis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await r.info('replication');
  } catch {
    return '';
  } finally {
    r.disconnect();
  }
}

async function until(what: string, check: () => Promise<boolean>, ms: number, logs: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`redis cluster: ${what} not reached within ${ms} ms\n${logs()}`);
}

export interface ClusterShape {
  masters?: number;
  /** Replicas per master (0 or 1 here). */
  replicas?: number;
  /** cluster-node-timeout: how long a silent master goes before its replica takes over. */
  nodeTimeoutMs?: number;
}

export async function startRedisCluster(shape: ClusterShape = {}): Promise<RedisCluster> {
  const masters = shape.masters ?? 3;
  const replicas = shape.replicas ?? 0;
  const total = masters * (1 + replicas);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-redis-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const logs = () =>
    ports.map((p) => `----- redis ${p}\n${fs.existsSync(path.join(dir, String(p), 'redis.log')) ? fs.readFileSync(path.join(dir, String(p), 'redis.log'), 'utf8').slice(-1500) : ''}`).join('\n');

  const killChild = (c: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  const stop = async () => {
    await Promise.all(children.map(killChild)); // nothing to save: the folders go next
    if (!process.env.KEEP_E2E_DATA) fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    for (let i = 0; i < total; i++) {
      // The cluster bus port is picked too (not port + 10000, which may fall among ephemeral ports).
      const [port, bus] = [await freePort(), await freePort()];
      const own = path.join(dir, String(port));
      fs.mkdirSync(own);
      ports.push(port);
      children.push(
        spawn('redis-server', [
          '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-port', String(bus),
          '--cluster-config-file', path.join(own, 'nodes.conf'), '--cluster-node-timeout', String(shape.nodeTimeoutMs ?? 5000), '--dir', own,
          '--save', '', '--appendonly', 'no', '--logfile', path.join(own, 'redis.log'), '--protected-mode', 'no',
        ], { stdio: 'ignore' }),
      );
    }
    await until('every server answering', async () => (await Promise.all(ports.map(clusterInfo))).every((i) => i !== ''), 30_000, logs);
    // Joining waits for the nodes' gossip, slow on a loaded machine: a generous bound, and what
    // redis-cli said (with the servers' logs) when it fails.
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: 60_000 }).catch(
      (err: Error & { stdout?: string; stderr?: string }) => {
        throw new Error(`redis-cli --cluster create failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}\n${logs()}`);
      },
    );
    await until(
      'cluster_state:ok on every node',
      async () => (await Promise.all(ports.map(clusterInfo))).every((i) => /cluster_state:ok/.test(i) && /cluster_known_nodes:(\d+)/.exec(i)?.[1] === String(total)),
      60_000,
      logs,
    );
    // A replica can take over only once it has synced with its master: wait for every link.
    if (replicas > 0)
      await until(
        'every replica linked to its master',
        async () => (await Promise.all(ports.map(replication))).filter((i) => /master_link_status:up/.test(i)).length === masters * replicas,
        60_000,
        logs,
      );
  } catch (err) {
    await stop();
    throw err;
  }
  const kill = (port: number) => killChild(children[ports.indexOf(port)]);
  return { nodes: ports.map((p) => `127.0.0.1:${p}`).join(','), ports, dir, logs, stop, kill };
}
