// POST /api/video/generate: structure first (zod), then the model, then the model family's rules.
// Returns the normalized task spec with every default applied, so the gateway, pricing and the
// worker never have to know a default themselves.
import type { ValidateOptions, VideoTaskSpec } from './types';
import { videoSubmitBodySchema } from './request-schemas';
import { resolveVideoModel } from './model-resolution';
import { checkSold } from './sold';
import { checkInlineCount, parseStructure } from './param-checks';
import { parseCallbackUrl } from './callback-url';
import { videoASpec } from './video-a-rules';
import { videoBSpec } from './video-b-rules';
import { videoCSpec } from './video-c-rules';

const RULES = { 'video-a': videoASpec, 'video-b': videoBSpec, 'video-c': videoCSpec } as const;

export function parseVideoSubmit(body: unknown, opts: ValidateOptions): { spec: VideoTaskSpec; clientRequestId: string | null; callbackUrl: string | null; maxCostCents: number | null } {
  const parsed = parseStructure(videoSubmitBodySchema, body);
  const { model, requestedModel } = resolveVideoModel(parsed.model);
  checkSold(opts.sold, model, null, null);
  const base = RULES[model.family](parsed, model, opts);
  // A tier or variant not sold here, once the defaults have chosen one.
  if (base.tier) checkSold(opts.sold, model, base.tier, 'tier');
  if (base.variant) checkSold(opts.sold, model, base.variant, 'variant');
  checkInlineCount([...base.media, ...(base.firstFrame ? [base.firstFrame] : []), ...(base.lastFrame ? [base.lastFrame] : [])]);
  const spec: VideoTaskSpec = requestedModel === undefined ? base : { ...base, requestedModel };
  return { spec, clientRequestId: parsed.client_request_id ?? null, callbackUrl: parseCallbackUrl(parsed.callback_url, opts), maxCostCents: parsed.max_cost_cents ?? null };
}
