// CHANNEL_CHECK_AT_START=1: the worker runs the channel check (packages/channel-check, the same as
// `npm run channels:check`) once it has started, and logs the result: one line per channel and
// upstream model that needs attention, and a summary. It runs beside the worker's work, never
// holding up its start, and stores the results for the console (a model found again is re-enabled).
import { saveCheckResults } from '@mediagen/channel-health';
import { isProblem, runChannelChecks, summary, verdictText } from '@mediagen/channel-check';
import type { WorkerContext } from './context';

export async function checkChannelsAtStart(ctx: WorkerContext): Promise<void> {
  const results = await runChannelChecks(ctx.channels, ctx.adapters, { timeoutMs: ctx.config.CHANNEL_CHECK_TIMEOUT_MS });
  for (const r of results.filter(isProblem))
    ctx.log.warn({ channel: r.channel, upstreamModel: r.upstreamModel, models: r.models, verdict: r.verdict, ms: r.ms, detail: r.detail }, `channel check: ${r.channel} ${r.upstreamModel} ${verdictText(r.verdict)}`);
  const cleared = await saveCheckResults(ctx.redis, ctx.config.REDIS_PREFIX, results).catch((err: Error) => {
    ctx.log.warn({ err: err.message }, 'channel check results not stored');
    return [];
  });
  const problems = results.filter(isProblem).length;
  ctx.log[problems ? 'warn' : 'info']({ checks: results.length, problems, reEnabled: cleared }, `channel check: ${summary(results)}`);
}
