// A Replicate prediction as our RenderStatus (pure): `canceled` and `aborted` (Cancel-After passed
// before it started) are over without a result; `succeeded` needs at least one URL in `output`.
import type { RenderStatus, ResultRef, UpstreamUsage } from '../channel-adapter';
import { UpstreamError, unknownAnswer } from '../upstream-error';
import { isSensitiveFlag } from './replicate-errors';
import type { Prediction } from './replicate-schemas';

/** Output is a URL, a list of URLs, or (some models) an object holding them. */
export function outputUrls(output: unknown): string[] {
  if (typeof output === 'string') return /^https?:\/\//i.test(output) ? [output] : [];
  if (Array.isArray(output)) return output.flatMap(outputUrls);
  if (output && typeof output === 'object') return Object.values(output).flatMap(outputUrls);
  return [];
}

/** A channel's price of one prediction (replicate-config.ts `prices`). */
export interface PredictionPrice {
  microUsdPerPredictSecond?: number;
  microUsdPerOutput?: number;
}

/** The run time as usage, with its cost when the channel knows the model's price. */
export function predictionUsage(seconds: number | null | undefined, outputs: number, price?: PredictionPrice): UpstreamUsage | undefined {
  const perOutput = price?.microUsdPerOutput !== undefined ? price.microUsdPerOutput * outputs : undefined;
  const perSecond = price?.microUsdPerPredictSecond !== undefined && seconds != null ? Math.round(seconds * price.microUsdPerPredictSecond) : undefined;
  const cost = perOutput !== undefined || perSecond !== undefined ? (perOutput ?? 0) + (perSecond ?? 0) : undefined;
  if (seconds == null && cost === undefined) return undefined;
  return { units: 'predict_seconds', amount: seconds ?? 0, ...(cost !== undefined ? { costMicroUsd: cost } : {}) };
}

export function predictionStatus(p: Prediction, reportsViolations: boolean, price?: PredictionPrice): RenderStatus {
  // The docs write the states in lower case; another casing (a fake, a proxy) means the same.
  switch (p.status.trim().toLowerCase()) {
    case 'starting':
      return { state: 'running', progress: 0 };
    case 'processing':
      return { state: 'running', progress: 50 };
    case 'succeeded': {
      const outputs: ResultRef[] = outputUrls(p.output).map((url) => ({ kind: 'url', url }));
      // No URL in `output`: success without a file, which the worker settles as no_result.
      const usage = predictionUsage(p.metrics?.predict_time, outputs.length, price);
      return { state: 'succeeded', outputs, ...(usage ? { usage } : {}) };
    }
    case 'failed': {
      const text = typeof p.error === 'string' ? p.error : JSON.stringify(p.error ?? 'no detail');
      if (isSensitiveFlag(text)) return { state: 'failed', error: new UpstreamError(reportsViolations ? 'violation' : 'failed', `Replicate flagged the content: ${text}`) };
      return { state: 'failed', error: new UpstreamError('failed', `Replicate prediction failed: ${text.slice(0, 300)}`) };
    }
    case 'canceled':
    case 'cancelled':
      return { state: 'failed', error: new UpstreamError('failed', 'Replicate prediction was canceled') };
    case 'aborted':
      return { state: 'failed', error: new UpstreamError('failed', 'Replicate prediction was aborted before it started (Cancel-After)') };
    default:
      throw unknownAnswer(`status: unexpected Replicate status ${JSON.stringify(p.status)}`);
  }
}
