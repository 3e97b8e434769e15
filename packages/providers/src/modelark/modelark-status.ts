// ModelArk answers as our RenderStatus (pure). Seedance statuses (providers.md §1.4): queued,
// running, succeeded, failed, cancelled, expired; `deleted` (LiteLLM's map) means the record is gone.
// Seedream answers synchronously with one entry per image, each a file or its own error (§4).
import type { RenderStatus, ResultRef, UpstreamUsage } from '../channel-adapter';
import { UpstreamError, unknownAnswer } from '../upstream-error';
import { classifyModelarkCode } from './modelark-errors';
import type { ModelarkChannel } from './modelark-config';
import type { SeedanceTask, SeedreamAnswer } from './modelark-schemas';

type Prices = ModelarkChannel['prices'];

/** Usage with its cost when the channel knows the upstream model's price. */
function priced(usage: UpstreamUsage, model: string | null | undefined, prices: Prices | undefined, images?: number): UpstreamUsage {
  const price = model ? prices?.[model] : undefined;
  if (price?.microUsdPerImage !== undefined && images !== undefined) return { ...usage, costMicroUsd: images * price.microUsdPerImage };
  if (price?.microUsdPerMillionTokens !== undefined && usage.units === 'tokens')
    return { ...usage, costMicroUsd: Math.round((usage.amount * price.microUsdPerMillionTokens) / 1_000_000) };
  return usage;
}

export function seedanceStatus(task: SeedanceTask, reportsViolations: boolean, prices?: Prices): RenderStatus {
  const status = task.status.toLowerCase();
  switch (status) {
    case 'queued':
    case 'pending':
      return { state: 'running', progress: 0 };
    case 'running':
    case 'processing':
      // Seedance reports no progress figure.
      return { state: 'running', progress: 50 };
    case 'succeeded': {
      const url = task.content?.video_url;
      // Success without a video_url: no outputs, which the worker settles as no_result (unusable).
      // The signed link is passed on exactly as given: re-encoding its query breaks the signature.
      const outputs: ResultRef[] = url ? [{ kind: 'url', url, contentType: 'video/mp4' }] : [];
      const tokens = task.usage?.completion_tokens ?? task.usage?.total_tokens;
      const usage: UpstreamUsage | undefined = typeof tokens === 'number' ? priced({ units: 'tokens', amount: tokens }, task.model, prices) : undefined;
      return usage ? { state: 'succeeded', outputs, usage } : { state: 'succeeded', outputs };
    }
    case 'failed': {
      const code = task.error?.code ?? '';
      const message = task.error?.message ?? 'render failed';
      if (!code) return { state: 'failed', error: new UpstreamError('failed', `render failed: ${message}`.slice(0, 500)) };
      const error = classifyModelarkCode(code, message, { reportsViolations, action: 'status' });
      // A failed task is final: even a moderation outage inside it needs a new render, on the next channel.
      return { state: 'failed', error: error.kind === 'transient' ? new UpstreamError('failed', error.message) : error };
    }
    case 'cancelled':
    case 'canceled':
      return { state: 'failed', error: new UpstreamError('failed', 'render cancelled upstream') };
    case 'expired':
      // Ran past execution_expires_after (queue too long): the render never happened; another channel may.
      return { state: 'failed', error: new UpstreamError('failed', 'render expired upstream before it ran (execution_expires_after)') };
    case 'deleted':
      return { state: 'failed', error: new UpstreamError('lost', 'the upstream deleted this task') };
    default:
      // An answer we cannot read is treated like a dropped connection: ask again later.
      throw unknownAnswer(`status: unexpected task status ${JSON.stringify(task.status)}`);
  }
}

/** Image type from the first bytes; Seedream's inline images carry no type of their own. */
export function sniffImageType(b: Buffer): string {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return 'application/octet-stream';
}

export function seedreamStatus(answer: SeedreamAnswer, reportsViolations: boolean, prices?: Prices, model?: string): RenderStatus {
  if (answer.error?.code) return { state: 'failed', error: classifyModelarkCode(answer.error.code, answer.error.message ?? '', { reportsViolations, action: 'submit' }) };
  const items = answer.data ?? [];
  const outputs: ResultRef[] = [];
  for (const item of items) {
    if (item.url) outputs.push({ kind: 'url', url: item.url });
    else if (item.b64_json) {
      const data = Buffer.from(item.b64_json, 'base64');
      outputs.push({ kind: 'inline', data, contentType: sniffImageType(data) });
    }
  }
  if (outputs.length === 0) {
    // Every image failed on its own (group mode): its code says whether it was refused.
    const failed = items.find((i) => i.error?.code);
    if (failed?.error?.code) {
      const error = classifyModelarkCode(failed.error.code, failed.error.message ?? '', { reportsViolations, action: 'submit' });
      return { state: 'failed', error: error.kind === 'transient' ? new UpstreamError('failed', error.message) : error };
    }
    // Success without an image: no outputs, which the worker settles as no_result (unusable).
    return { state: 'succeeded', outputs: [] };
  }
  const tokens = answer.usage?.output_tokens ?? answer.usage?.total_tokens;
  const images = answer.usage?.generated_images ?? outputs.length;
  const raw: UpstreamUsage | undefined =
    typeof tokens === 'number' ? { units: 'tokens', amount: tokens }
      : typeof answer.usage?.generated_images === 'number' ? { units: 'images', amount: answer.usage.generated_images } : undefined;
  const usage = raw && priced(raw, answer.model ?? model, prices, images);
  return usage ? { state: 'succeeded', outputs, usage } : { state: 'succeeded', outputs };
}
