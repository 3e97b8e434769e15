// Failure taxonomy of Replicate (providers.md 7 and corrections 7): refusals are free text,
// matched on "flagged as sensitive" (some hosts omit the "(E005)") or E005; the 429 body says
// "... resets in ~30s" or "Expected available in 3 seconds": both are read as the retry hint.
import { isAxiosError } from 'axios';
import { classifyUpstreamError, parseRetryAfter } from '../classify-error';
import { UpstreamError } from '../upstream-error';
import { replicateErrorSchema } from './replicate-schemas';

type Action = 'submit' | 'status' | 'download' | 'cancel';

export const isSensitiveFlag = (text: string): boolean => /flagged as sensitive|\bE005\b/i.test(text);

/** Seconds named by a Replicate throttle message, in ms. */
export function throttleHintMs(detail: string | null | undefined): number | undefined {
  const m = /resets in ~?\s*(\d+(?:\.\d+)?)\s*s/i.exec(detail ?? '') ?? /available in\s*(\d+(?:\.\d+)?)\s*second/i.exec(detail ?? '');
  return m ? Math.min(Math.ceil(Number(m[1]) * 1000), 10 * 60_000) : undefined;
}

export function classifyReplicateError(err: unknown, action: Action, reportsViolations: boolean): UpstreamError {
  if (!isAxiosError(err) || !err.response) return classifyUpstreamError(err, { reportsViolations, action });
  const status = err.response.status;
  const parsed = replicateErrorSchema.safeParse(err.response.data);
  const detail = parsed.success ? (parsed.data.detail ?? parsed.data.title ?? '') : typeof err.response.data === 'string' ? err.response.data : '';
  const what = `${action}: HTTP ${status}${detail ? `: ${detail.slice(0, 300)}` : ''}`;
  if (status === 429 || status >= 500)
    return new UpstreamError('transient', what, parseRetryAfter(err.response.headers?.['retry-after']) ?? throttleHintMs(detail), status);
  if (isSensitiveFlag(detail)) return new UpstreamError(reportsViolations ? 'violation' : 'failed', what, undefined, status);
  if (status === 404 && action === 'status') return new UpstreamError('lost', `Replicate does not know this prediction (${what})`, undefined, status);
  // A create names the model in its path (or its version in the body): 404 / "invalid version"
  // means Replicate has no such model or version (any more), or this key may not run it. (The
  // orphan search's list call is classified as a submit too; its 404 is not about the model.)
  if (action === 'submit' && err.config?.method === 'post' && (status === 404 || (status === 422 && /invalid version|version does not exist/i.test(detail))))
    return new UpstreamError('unknown_model', `Replicate has no such model (${what})`, undefined, status);
  return new UpstreamError('failed', what, undefined, status);
}
