// Our task spec as the upstream's request body. Reference media go out as URLs only: inline files
// were already stored by the gateway and their refs rewritten to our /files URLs.
import type { RenderRequest } from './channel-adapter';

export function renderRequestBody(req: RenderRequest, upstreamModel: string): Record<string, unknown> {
  const s = req.spec;
  // client_ref lets the provider (and the simulator's per-task directives) group attempts of one task.
  if (s.type === 'image')
    return {
      type: 'image',
      model: upstreamModel,
      prompt: s.prompt,
      ratio: s.ratio,
      resolution: s.resolution,
      images: s.images.map((r) => r.url),
      client_ref: req.taskId,
    };
  return {
    type: 'video',
    model: upstreamModel,
    prompt: s.prompt,
    ratio: s.ratio,
    resolution: s.resolution,
    duration: req.outputSeconds ?? s.duration,
    variant: s.variant,
    tier: s.tier,
    ref_mode: s.refMode,
    effort: s.effort,
    seed: s.seed,
    optimize_prompt: s.optimizePrompt,
    media: s.media.map((m) => ({ type: m.kind, url: m.url })),
    first_frame: s.firstFrame?.url ?? null,
    last_frame: s.lastFrame?.url ?? null,
    client_ref: req.taskId,
  };
}
