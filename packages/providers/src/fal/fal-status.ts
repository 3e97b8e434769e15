// fal answers as our RenderStatus (pure). COMPLETED does not mean success (providers.md 6): the
// result must be fetched, and it may be an error body, an `error` field, or an output without a file.
import type { RenderStatus, ResultRef, UpstreamUsage } from '../channel-adapter';
import { pricedUsage } from '../render-price';
import { UpstreamError, unknownAnswer } from '../upstream-error';
import type { FalPrice } from './fal-config';
import { classifyFalAnswer, falDetail, STILL_IN_PROGRESS } from './fal-errors';
import { falOutputSchema, FalStatus } from './fal-schemas';

/** The queue state: still running, finished (fetch the result), or over without a result. */
export function falQueueState(s: FalStatus): RenderStatus | 'completed' {
  // The docs write the states in capitals; a fake (or a proxy) writing them otherwise means the same.
  switch (s.status.trim().toUpperCase()) {
    case 'IN_QUEUE':
      return { state: 'running', progress: 0 };
    case 'IN_PROGRESS':
      return { state: 'running', progress: 50 };
    case 'COMPLETED':
      return 'completed';
    case 'FAILED':
    case 'ERROR':
      return { state: 'failed', error: new UpstreamError('failed', `fal request failed: ${describe(s.error)}`) };
    case 'CANCELED':
    case 'CANCELLED':
      return { state: 'failed', error: new UpstreamError('failed', 'fal request was cancelled') };
    default:
      // An unknown word is read again later rather than guessed.
      throw unknownAnswer(`status: unexpected fal status ${JSON.stringify(s.status)}`);
  }
}

const describe = (e: unknown): string => (typeof e === 'string' ? e : e ? JSON.stringify(e).slice(0, 300) : 'no detail');

export function falResultStatus(
  httpStatus: number,
  body: unknown,
  headers: Record<string, unknown> | undefined,
  reportsViolations: boolean,
  inferenceSeconds?: number | null,
  /** The app's price, and the seconds of video the render was asked for (null for images). */
  price?: { entry?: FalPrice; outputSeconds?: number | null },
): RenderStatus {
  if (httpStatus === 400 && falDetail(body).text === STILL_IN_PROGRESS) return { state: 'running', progress: 90 };
  if (httpStatus < 200 || httpStatus >= 300) {
    const error = classifyFalAnswer(httpStatus, body, headers, { action: 'status', reportsViolations, finished: true });
    if (error.kind === 'transient') throw error;
    // no_media_generated: the request finished and made nothing, which the worker settles as no_result.
    if (error.kind === 'unusable') return { state: 'succeeded', outputs: [] };
    return { state: 'failed', error };
  }
  const parsed = falOutputSchema.safeParse(body);
  if (!parsed.success) return { state: 'succeeded', outputs: [] };
  if (parsed.data.error) return { state: 'failed', error: new UpstreamError('failed', `fal result is an error: ${describe(parsed.data.error)}`) };
  const files = [parsed.data.video, parsed.data.image, ...(parsed.data.images ?? [])].filter((f) => !!f && /^https?:\/\//i.test(f.url));
  const outputs: ResultRef[] = files.map((f) => ({ kind: 'url', url: f!.url, ...(f!.content_type ? { contentType: f!.content_type } : {}) }));
  const usage = falUsage(inferenceSeconds, outputs.length, price);
  return { state: 'succeeded', outputs, ...(usage ? { usage } : {}) };
}

/** fal's reported run time as usage, with its cost when the channel prices the app. */
export function falUsage(inferenceSeconds: number | null | undefined, outputs: number, price?: { entry?: FalPrice; outputSeconds?: number | null }): UpstreamUsage | undefined {
  const reported = inferenceSeconds != null ? { units: 'inference_seconds', amount: inferenceSeconds } : undefined;
  const p = price?.entry;
  if (!p || outputs === 0) return reported;
  return pricedUsage(reported, outputs, [
    [p.microUsdPerOutput, outputs],
    [p.microUsdPerOutputSecond, price?.outputSeconds != null ? price.outputSeconds * outputs : null],
    [p.microUsdPerInferenceSecond, inferenceSeconds],
  ]);
}
