// Adapter for the `gemini` protocol (providers.md 2.1 and 3):
//   POST {base}/models/{model}:predictLongRunning -> {name}        Veo, polled with GET {base}/{name}
//   POST {base}/models/{model}:generateContent     -> candidates   Gemini images, synchronous, inline base64
// Auth: `x-goog-api-key`. No cancel (none documented for Veo operations: a timed-out task is only
// abandoned locally) and no callbacks (Gemini's per-request webhooks are signed with a JWT whose key
// set is unverified, providers.md corrections 6: we poll).
import { sniffMime } from '@mediagen/media';
import type { ChannelAdapter, RenderContext, RenderRequest, RenderStatus, SubmitResult } from '../channel-adapter';
import { upstreamModelFor } from '../channel-config';
import { UpstreamError, unknownAnswer } from '../upstream-error';
import { createUpstreamHttp } from '../upstream-http';
import { geminiCoverage, geminiMappingError } from './gemini-coverage';
import { probeGeminiModel } from './gemini-probe';
import type { GeminiChannel } from './gemini-config';
import { classifyGeminiError } from './gemini-errors';
import { geminiImageBody, InlineReference, veoRequestBody } from './gemini-request';
import { generateContentSchema, veoOperationSchema } from './gemini-schemas';
import { geminiImageStatus, GeminiRenderPrice, veoStatus } from './gemini-status';

/** Synchronous image renders have no upstream id; ours names the attempt so a stored id is never reused. */
const SYNC_PREFIX = 'sync/';

export function createGeminiAdapter(channel: GeminiChannel): ChannelAdapter {
  const base = channel.baseUrl.replace(/\/+$/, '');
  // Inline images in base64 come back in the answer: the channel's maxResponseBytes caps it.
  const { client, close } = createUpstreamHttp(channel, { headers: { 'x-goog-api-key': channel.apiKey, 'Content-Type': 'application/json' } });
  const statusContext = { reportsViolations: channel.reportsViolations, baseUrl: base, apiKey: channel.apiKey };
  const classify = (err: unknown, action: 'submit' | 'status' | 'download' | 'cancel') => classifyGeminiError(err, action, channel.reportsViolations);
  const upstreamModel = (spec: RenderRequest['spec']) => upstreamModelFor(channel, spec.model, spec.type === 'video' ? spec.variant : null);

  /** The channel's price of the model, with the seconds of video asked for. */
  const priceOf = (model: string | null, render?: RenderContext): GeminiRenderPrice | undefined => {
    const entry = model ? channel.prices?.[model] : undefined;
    return entry ? { entry, outputSeconds: render?.spec.type === 'video' ? render.outputSeconds : null } : undefined;
  };

  const inlineReferences = async (req: RenderRequest): Promise<InlineReference[]> =>
    Promise.all(
      (req.references ?? [])
        .filter((r) => r.role === 'first_frame' || r.role === 'last_frame' || r.role === 'reference_image')
        .map(async (r) => {
          const bytes = await r.data();
          // A reference fetched by URL may only be known as 'image/*'; Google needs the real type.
          const mimeType = sniffMime(bytes) ?? (/^image\/[a-z0-9.+-]+$/i.test(r.contentType) ? r.contentType : 'image/png');
          return { role: r.role, mimeType, base64: bytes.toString('base64') };
        }),
    );

  return {
    channel,
    capabilities: { idempotentSubmit: false, cancel: false, callbacks: 'none', synchronous: true, findOrphan: false, pollUsesRender: true },
    classifyError: classify,
    unsupported: (model, variant) => geminiMappingError(model, upstreamModelFor(channel, model, variant)),
    coverage: (model, variant) => geminiCoverage(model, upstreamModelFor(channel, model, variant)),
    probeModel: (model, signal) => probeGeminiModel(client, model, signal),

    async submit(req: RenderRequest): Promise<SubmitResult> {
      const model = upstreamModel(req.spec);
      if (!model) throw new UpstreamError('failed', `channel ${channel.id} does not serve ${req.spec.model}`);
      try {
        const refs = await inlineReferences(req);
        if (req.spec.type === 'image') {
          const res = await client.post<unknown>(`/models/${encodeURIComponent(model)}:generateContent`, geminiImageBody(req.spec, refs, model), {
            timeout: channel.timeouts.submitMs,
            signal: req.signal,
          });
          const parsed = generateContentSchema.safeParse(res.data);
          if (!parsed.success) throw new UpstreamError('failed', 'submit: unreadable generateContent answer');
          return { upstreamId: `${SYNC_PREFIX}${req.attemptId}`, status: geminiImageStatus(parsed.data, channel.reportsViolations, priceOf(model, req)) };
        }
        const body = veoRequestBody(req.spec, refs, channel.veoReferenceType);
        const res = await client.post<unknown>(`/models/${encodeURIComponent(model)}:predictLongRunning`, body, { timeout: channel.timeouts.submitMs, signal: req.signal });
        const op = veoOperationSchema.safeParse(res.data);
        if (!op.success || !op.data.name) throw new UpstreamError('failed', 'submit: the API answered without an operation name');
        return { upstreamId: op.data.name, ...(op.data.done ? { status: veoStatus(op.data, statusContext, priceOf(model, req)) } : {}) };
      } catch (err) {
        throw classify(err, 'submit');
      }
    },

    async poll(upstreamId: string, render?: RenderContext): Promise<RenderStatus> {
      // A synchronous render's result lived only in the submit answer: after a crash it is gone.
      if (upstreamId.startsWith(SYNC_PREFIX)) throw new UpstreamError('lost', 'status: a synchronous Gemini image render cannot be polled');
      if (!/^[A-Za-z0-9._/-]+$/.test(upstreamId) || upstreamId.includes('..')) throw new UpstreamError('lost', `status: not an operation name: ${upstreamId}`);
      try {
        const res = await client.get<unknown>(`/${upstreamId}`, { timeout: channel.timeouts.pollMs });
        const op = veoOperationSchema.safeParse(res.data);
        if (!op.success) throw unknownAnswer('status: unexpected answer from the upstream (unreadable operation)');
        // The operation's name carries its model (`models/{model}/operations/{id}`) when the poll has no render.
        const model = (render && upstreamModel(render.spec)) ?? /^models\/([^/]+)\/operations\//.exec(upstreamId)?.[1] ?? null;
        return veoStatus(op.data, statusContext, priceOf(model, render));
      } catch (err) {
        throw classify(err, 'status');
      }
    },

    close,
  };
}
