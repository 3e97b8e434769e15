// npm run channels:check [-- --json] [-- --render] [-- --channel <id>]
// Checks every channel and upstream model of PROVIDER_CONFIG (or the development default) with the
// channel's real key: the base URL answers, the key is accepted, the model exists. One line per
// channel and model; exit code 1 when anything is wrong. `--render` then sends one real render per
// model, after printing its price. The logic is packages/channel-check; this file is the terminal.
import { parseArgs } from 'node:util';
import { loadConfig } from '@mediagen/config';
import { createAdapters, loadChannelConfig } from '@mediagen/providers';
import { saveCheckResults } from '@mediagen/channel-health';
import { createRedis, type RedisClient } from '@mediagen/queue';
import { checkTargets, formatLines, isProblem, planRender, renderOnce, runChannelChecks, summary } from '@mediagen/channel-check';

/** Stores the results where the console shows them (and clears marks of models found again), when Redis answers. */
async function store(redis: RedisClient | null, prefix: string, results: Parameters<typeof saveCheckResults>[2]): Promise<string> {
  if (!redis) return 'results not stored (Redis not reachable)';
  const cleared = await saveCheckResults(redis, prefix, results);
  return cleared.length ? `re-enabled: ${cleared.map((c) => `${c.channel} ${c.upstreamModel}`).join(', ')}` : '';
}

async function connect(config: ReturnType<typeof loadConfig>): Promise<RedisClient | null> {
  const redis = createRedis(config, 'producer');
  redis.on('error', () => undefined);
  const ready = await Promise.race([
    new Promise<boolean>((r) => (redis.status === 'ready' ? r(true) : redis.once('ready', () => r(true)))),
    new Promise<boolean>((r) => setTimeout(() => r(false), 2_000).unref()),
  ]);
  if (ready) return redis;
  redis.disconnect();
  return null;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, render: { type: 'boolean', default: false }, channel: { type: 'string', multiple: true } } });
  const config = loadConfig();
  const channels = loadChannelConfig(config);
  const adapters = createAdapters(channels);
  const redis = await connect(config);
  try {
    const results = await runChannelChecks(channels, adapters, { timeoutMs: config.CHANNEL_CHECK_TIMEOUT_MS, channelIds: values.channel });
    const note = await store(redis, config.REDIS_PREFIX, results).catch((err: Error) => `results not stored: ${err.message}`);
    let failed = results.some(isProblem);
    if (values.json) console.log(JSON.stringify({ ok: !failed, results }, null, 2));
    else {
      for (const line of formatLines(results)) console.log(line);
      console.log(summary(results));
      if (note) console.log(note);
    }
    if (values.render) {
      for (const t of checkTargets(channels, values.channel)) {
        const r = results.find((x) => x.channel === t.channel.id && x.upstreamModel === t.upstreamModel);
        const adapter = adapters.get(t.channel.id);
        const plan = planRender(t);
        if (!adapter || !plan || (r && isProblem(r))) continue;
        // The price first, then the render.
        console.log(`render ${t.channel.id} ${t.upstreamModel}: ${plan.spec.model} at our price ${plan.catalogCents} cents; upstream price entry: ${plan.upstreamPrice === null ? 'none configured' : JSON.stringify(plan.upstreamPrice)}`);
        const start = Date.now();
        const status = await renderOnce(adapter, plan, 15 * 60_000).catch((err: Error) => ({ state: 'failed' as const, error: err }));
        const ok = status.state === 'succeeded' && status.outputs.length > 0;
        if (!ok) failed = true;
        console.log(`render ${t.channel.id} ${t.upstreamModel}: ${ok ? 'ok' : status.state === 'failed' ? `failed: ${status.error.message}` : status.state} (${Date.now() - start} ms)`);
      }
    }
    return failed ? 1 : 0;
  } finally {
    for (const a of adapters.values()) a.close();
    redis?.disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error((err as Error).message ?? err);
    process.exit(2);
  },
);
