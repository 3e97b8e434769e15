// `--render`: a real render per channel and upstream model, the smallest one the catalog sells for
// a model mapped to it (defaults: shortest length, default resolution, no references), after its
// price was printed: our catalog price for it and the channel's own price entry for the upstream
// model, when the config has one. It proves what the lookup cannot (the render path, the result
// link); it costs money, so it runs only when asked for.
import { computeCost, getModel, parseImageSubmit, parseVideoSubmit, type TaskSpec } from '@mediagen/catalog';
import type { ChannelAdapter, RenderStatus } from '@mediagen/providers';
import type { CheckTarget } from './check-targets';

export interface RenderPlan {
  spec: TaskSpec;
  outputSeconds: number | null;
  /** Our price of this render, in cents. */
  catalogCents: number;
  /** The channel's price entry for the upstream model, as configured (null: none). */
  upstreamPrice: unknown;
}

/** The cheapest render of the first of our models mapped to the target, or null when none can be built. */
export function planRender(target: CheckTarget): RenderPlan | null {
  const key = target.models[0]?.split(' ')[0];
  if (!key) return null;
  const variant = key.startsWith('video-c-3.1-') ? key : undefined;
  const info = getModel(variant ? 'video-c-3.1' : key);
  if (!info) return null;
  const opts = { allowPrivateMediaUrls: false };
  const prompt = 'A calm lake at sunrise (mediagen channel check).';
  let spec: TaskSpec;
  if (info.type === 'image') spec = parseImageSubmit({ model: info.id, prompt }, opts).spec;
  else {
    const shortest = info.durations ? Math.min(...Object.values(info.durations).map((r) => r.min)) : undefined;
    spec = parseVideoSubmit({ model: info.id, prompt, ...(variant ? { variant } : {}), ...(shortest ? { duration: shortest } : {}) }, opts).spec;
  }
  const cost = computeCost(spec, { videoSeconds: [], audioSeconds: [] });
  const prices = (target.channel as { prices?: Record<string, unknown> }).prices;
  return { spec, outputSeconds: cost.outputSeconds, catalogCents: cost.costCents, upstreamPrice: prices?.[target.upstreamModel] ?? null };
}

/** Sends the render and polls it until it ends or the deadline passes; the final status. */
export async function renderOnce(adapter: ChannelAdapter, plan: RenderPlan, deadlineMs: number, pollMs = 2_000): Promise<RenderStatus | { state: 'timeout' }> {
  const id = `check-${Date.now().toString(36)}`;
  const until = Date.now() + deadlineMs;
  const submitted = await adapter.submit({ taskId: id, attemptId: id, spec: plan.spec, outputSeconds: plan.outputSeconds, references: [], signal: AbortSignal.timeout(deadlineMs) });
  let status: RenderStatus | undefined = submitted.status;
  while (!status || status.state === 'running') {
    if (Date.now() >= until) return { state: 'timeout' };
    await new Promise((r) => setTimeout(r, pollMs));
    status = await adapter.poll(submitted.upstreamId, { spec: plan.spec, outputSeconds: plan.outputSeconds });
  }
  return status;
}
