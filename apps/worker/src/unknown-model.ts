// A channel whose upstream said "this model does not exist / is no longer available" (UpstreamError
// kind unknown_model): the task moves on to the next channel at once (attempt-steps.ts), and the
// channel is marked in Redis as not serving that upstream model (packages/channel-health
// model-unavailable.ts), so no worker tries it for that model again until an operator re-enables it
// or a channel check finds the model. Its other models carry on. Visible as one warning line, the
// metric mediagen_channel_model_unavailable_total{channel, upstream_model}, and the channel's
// lastError (console, GET /admin/channels) naming the upstream model.
import { type ChoiceState, markModelUnavailable, readChoiceState } from '@mediagen/channel-health';
import type { TaskSpec } from '@mediagen/catalog';
import { type Channel, type ChannelAdapter, type UpstreamError, upstreamModelOf } from '@mediagen/providers';
import type { WorkerContext } from './context';

export async function noteUnknownModel(ctx: WorkerContext, taskId: string, adapter: ChannelAdapter, spec: TaskSpec, err: UpstreamError): Promise<void> {
  const channel = adapter.channel.id;
  const upstreamModel = upstreamModelOf(adapter.channel, adapter, spec) ?? spec.model;
  const model = spec.type === 'video' && spec.variant ? spec.variant : spec.model;
  try {
    const first = await markModelUnavailable(ctx.redis, ctx.config.REDIS_PREFIX, channel, { upstreamModel, model, message: err.message });
    ctx.metrics.channels.modelUnavailable.inc({ channel, upstream_model: upstreamModel });
    if (first) {
      ctx.log.warn(
        { channel, upstreamModel, model, taskId, err: err.message },
        `channel ${channel} does not know upstream model ${upstreamModel} (retired or unknown): not tried for ${model} until re-enabled or checked`,
      );
      await ctx.health.record(channel, 'unknown_model', `upstream model ${upstreamModel} is unknown or retired: ${err.message}`);
    }
  } catch (e) {
    // Bookkeeping: the task still moves on to its next channel; the next task meets the answer again.
    ctx.log.warn({ channel, upstreamModel, err: (e as Error).message }, 'unknown upstream model not recorded');
  }
}

/**
 * The channels of `order` whose upstream model for this task is not marked unavailable, with what
 * the same round trip read for pickChannel (packages/channel-health choice-reads.ts).
 */
export async function usableChannels(ctx: WorkerContext, order: readonly Channel[], spec: TaskSpec): Promise<{ usable: Channel[]; state: ChoiceState }> {
  const state = await readChoiceState(
    ctx.redis,
    ctx.config.REDIS_PREFIX,
    order.map((c) => ({ id: c.id, upstreamModel: upstreamModelOf(c, ctx.adapters.get(c.id), spec) ?? null })),
  );
  return { usable: order.filter((c) => !state.unavailable.has(c.id)), state };
}
