// Load shapes shared by the sections: submits that collect task ids, polls over such tasks, and
// the samplers a section wraps around a load (RSS, CPU).
import type { BenchAccount } from './admin';
import { expectJson, load, LoadRequest, LoadResult } from './load';
import { cpuMs, RssSampler, rssBytes, sleep } from './procs';
import { percentile } from './stats';
import type { Stack } from './stack';

export interface Submitted {
  taskId: string;
  account: BenchAccount;
}

export const auth = (a: BenchAccount) => ({ Authorization: `Bearer ${a.key}` });
export const jsonAuth = (a: BenchAccount) => ({ ...auth(a), 'Content-Type': 'application/json' });
export const fmt = (r: LoadResult) =>
  `${r.rps.toFixed(0)}/s ok=${r.ok} bad=${r.bad} errors=${r.errors} p50=${r.p50}ms p99=${r.p99}ms${r.firstBad ? ` first bad: ${r.firstBad}` : ''}`;

/** Submits round-robin over `accounts`; collects the task ids of the accepted ones. */
export function submitLoad(
  s: Stack,
  accounts: BenchAccount[],
  body: object,
  opts: { connections: number; duration?: number; amount?: number },
  into: Submitted[],
  kind: 'image' | 'video' = 'image',
) {
  const text = JSON.stringify(body);
  let i = 0;
  return load({
    url: s.base,
    method: 'POST',
    connections: opts.connections,
    duration: opts.duration,
    amount: opts.amount,
    request: () => {
      const account = accounts[i++ % accounts.length];
      return { path: `/api/${kind}/generate`, headers: jsonAuth(account), body: text, tag: account };
    },
    check: expectJson(200, (b, tag) => {
      if (typeof b.taskId !== 'string' || b.status !== 'pending') return 'expected {taskId, status: "pending"}';
      into.push({ taskId: b.taskId, account: tag as BenchAccount });
      return null;
    }),
  });
}

/** Polls of `tasks` in turn, each with its account's key: the request stream of a poll load. */
export function pollRequests(tasks: Submitted[]): () => LoadRequest {
  let i = 0;
  return () => {
    const t = tasks[i++ % tasks.length];
    return { path: `/api/image/tasks/${t.taskId}`, headers: auth(t.account) };
  };
}

/** Polls with undici: the poll figures compare servers that send different header sets (load.ts). */
export function pollLoad(s: Stack, tasks: Submitted[], opts: { connections: number; duration: number }, expectStatus: string[], url = s.base) {
  return load({
    engine: 'undici',
    url,
    method: 'GET',
    connections: opts.connections,
    duration: opts.duration,
    request: pollRequests(tasks),
    check: expectJson(200, (b) => (expectStatus.includes(b.status as string) && b.type === 'image' ? null : `expected status ${expectStatus.join('|')}`)),
  });
}

export interface Sampled<T> {
  out: T;
  peak: number;
  mean: number;
  cpuMs: number;
}

/** Runs `fn` while sampling the RSS of `pid`. */
export async function withRss<T>(pid: number, fn: () => Promise<T>, everyMs = 50): Promise<Sampled<T>> {
  const sampler = new RssSampler(pid, everyMs);
  const cpu0 = cpuMs(pid) ?? 0;
  try {
    const out = await fn();
    return { out, ...sampler.stop(), cpuMs: (cpuMs(pid) ?? 0) - cpu0 };
  } catch (e) {
    sampler.stop();
    throw e;
  }
}

export async function idleRss(pid: number, ms = 1500): Promise<number> {
  const samples: number[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    samples.push(rssBytes(pid) ?? 0);
    await sleep(50);
  }
  samples.sort((a, b) => a - b);
  return percentile(samples, 50);
}
