// Gemini answers as our RenderStatus (pure). The traps of providers.md: a Veo operation that is
// `done` may still hold zero samples (every video filtered by RAI), and a Gemini image answer may be
// HTTP 200 with only text and finishReason STOP (a soft refusal): "done" never means "succeeded"
// without a usable file.
import type { RenderStatus, ResultRef, UpstreamUsage } from '../channel-adapter';
import { pricedUsage } from '../render-price';
import { UpstreamError } from '../upstream-error';
import type { GeminiPrice } from './gemini-config';
import { operationError, PROMPT_BLOCK_REASONS, refusal, SAFETY_FINISH_REASONS } from './gemini-errors';
import type { GenerateContentResponse, VeoOperation } from './gemini-schemas';

export interface VeoStatusContext {
  reportsViolations: boolean;
  /** Where the API lives; the key goes only to result URLs on this origin. */
  baseUrl: string;
  apiKey: string;
}

const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/** The model's price, and the seconds of video the render was asked for (null for images). */
export interface GeminiRenderPrice {
  entry?: GeminiPrice;
  outputSeconds?: number | null;
}

export function veoStatus(op: VeoOperation, ctx: VeoStatusContext, price?: GeminiRenderPrice): RenderStatus {
  // No finer state and no progress value exist before `done` (providers.md 2.1).
  if (!op.done) return { state: 'running', progress: 0 };
  if (op.error) return { state: 'failed', error: operationError(op.error, ctx.reportsViolations) };
  const res = op.response?.generateVideoResponse;
  const samples = res?.generatedSamples ?? res?.generatedVideos ?? [];
  const origin = originOf(ctx.baseUrl);
  const outputs: ResultRef[] = [];
  for (const s of samples) {
    const uri = s.video?.uri;
    if (!uri || !/^https?:\/\//i.test(uri) || !originOf(uri)) continue;
    // Veo downloads need the key (providers.md 2.1); sent as a header, and only to Google's own
    // origin so a hostile answer cannot make us hand the key to another host.
    const headers = originOf(uri) === origin ? { 'x-goog-api-key': ctx.apiKey } : undefined;
    outputs.push({ kind: 'url', url: uri, contentType: s.video?.mimeType ?? 'video/mp4', ...(headers ? { headers } : {}) });
  }
  if (outputs.length) {
    // Veo reports no usage: its cost is the seconds of video it made, when the channel prices them.
    const p = price?.entry;
    const usage = p
      ? pricedUsage(undefined, outputs.length, [
          [p.microUsdPerOutput, outputs.length],
          [p.microUsdPerOutputSecond, price?.outputSeconds != null ? price.outputSeconds * outputs.length : null],
        ])
      : undefined;
    return { state: 'succeeded', outputs, ...(usage ? { usage } : {}) };
  }
  const filtered = res?.raiMediaFilteredCount ?? 0;
  const reasons = res?.raiMediaFilteredReasons ?? [];
  if (filtered > 0 || reasons.length)
    return { state: 'failed', error: refusal(ctx.reportsViolations, `Veo filtered the video: ${reasons.join('; ') || `${filtered} filtered`}`) };
  // Done without a video and without a filter: success without a file, which the worker settles
  // as no_result (the project's convention: no outputs, not an error).
  return { state: 'succeeded', outputs: [] };
}

/** The answer's token counts as usage, with their cost when the channel prices the model. */
export function geminiImageUsage(meta: GenerateContentResponse['usageMetadata'], outputs: number, price?: GeminiRenderPrice): UpstreamUsage | undefined {
  const reported = meta?.totalTokenCount != null ? { units: 'tokens', amount: meta.totalTokenCount } : undefined;
  const p = price?.entry;
  if (!p || outputs === 0) return reported;
  const perToken = (perMillion: number | undefined) => (perMillion === undefined ? undefined : perMillion / 1_000_000);
  return pricedUsage(reported, outputs, [
    [perToken(p.microUsdPerMillionOutputTokens), meta?.candidatesTokenCount],
    [perToken(p.microUsdPerMillionInputTokens), meta?.promptTokenCount],
    [p.microUsdPerOutput, outputs],
  ]);
}

export function geminiImageStatus(body: GenerateContentResponse, reportsViolations: boolean, price?: GeminiRenderPrice): RenderStatus {
  const block = body.promptFeedback?.blockReason;
  if (block && PROMPT_BLOCK_REASONS.has(block))
    return { state: 'failed', error: refusal(reportsViolations, `Gemini blocked the prompt (${block})${body.promptFeedback?.blockReasonMessage ? `: ${body.promptFeedback.blockReasonMessage}` : ''}`) };
  const candidate = body.candidates?.[0];
  const parts = candidate?.content?.parts ?? [];
  const outputs: ResultRef[] = [];
  const texts: string[] = [];
  for (const p of parts) {
    const inline = p.inlineData ?? (p.inline_data ? { mimeType: p.inline_data.mime_type, data: p.inline_data.data } : null);
    if (inline?.data && /^image\//i.test(inline.mimeType ?? '') && !p.thought)
      outputs.push({ kind: 'inline', data: Buffer.from(inline.data, 'base64'), contentType: String(inline.mimeType).toLowerCase() });
    else if (p.text && !p.thought) texts.push(p.text);
  }
  const usage = geminiImageUsage(body.usageMetadata, outputs.length, price);
  if (outputs.length) return { state: 'succeeded', outputs, ...(usage ? { usage } : {}) };
  const reason = candidate?.finishReason ?? null;
  if (reason && SAFETY_FINISH_REASONS.has(reason))
    return { state: 'failed', error: refusal(reportsViolations, `Gemini withheld the image (${reason})`) };
  // A finished answer with nothing in it at all is success without a file (no_result).
  if (reason === 'STOP' && !texts.length) return { state: 'succeeded', outputs: [], ...(usage ? { usage } : {}) };
  // STOP with only text is a soft refusal ("I can't draw that"), NO_IMAGE / OTHER an empty answer:
  // neither is an explicit content flag, and another channel may draw it, so the render failed.
  const said = texts.join(' ').slice(0, 300);
  return { state: 'failed', error: new UpstreamError('failed', `Gemini answered without an image (finishReason ${reason ?? 'none'})${said ? `: ${said}` : ''}`) };
}
