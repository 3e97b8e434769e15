// Failure taxonomy of the fal queue (docs.fal.ai/errors; providers.md 6): the explicit refusal is
// a 422 whose `detail[].type` is `content_policy_violation`; `no_media_generated` is an empty answer
// (no usable file), not a policy flag. `X-Fal-Retryable` (older docs: `X-Fal-Needs-Retry`) says
// whether retrying can help; both spellings are read.
import { isAxiosError } from 'axios';
import { classifyUpstreamError, parseRetryAfter } from '../classify-error';
import { UpstreamError } from '../upstream-error';
import { falErrorSchema } from './fal-schemas';

type Action = 'submit' | 'status' | 'download' | 'cancel';

export const STILL_IN_PROGRESS = 'Request is still in progress';

/** The `type`s of a 422 detail list, and its messages. */
export function falDetail(body: unknown): { types: string[]; text: string; errorType?: string; known: boolean } {
  const parsed = falErrorSchema.safeParse(body);
  if (!parsed.success || (parsed.data.detail == null && !parsed.data.error_type)) return { types: [], text: '', known: false };
  const d = parsed.data.detail;
  if (Array.isArray(d))
    return { types: d.map((x) => x.type ?? '').filter(Boolean), text: d.map((x) => x.msg ?? x.type ?? '').join('; '), errorType: parsed.data.error_type ?? undefined, known: true };
  return { types: [], text: d ?? '', errorType: parsed.data.error_type ?? undefined, known: true };
}

function retryableHeader(headers: Record<string, unknown> | undefined): boolean | undefined {
  const v = headers?.['x-fal-retryable'] ?? headers?.['x-fal-needs-retry'];
  if (v === undefined) return undefined;
  return String(v).toLowerCase() === 'true';
}

/**
 * An error answer as an UpstreamError. `finished` says the request is over (the result of a
 * COMPLETED request): then a fal error body is the render's own failure, not a passing outage.
 */
export function classifyFalAnswer(
  status: number,
  body: unknown,
  headers: Record<string, unknown> | undefined,
  ctx: { action: Action; reportsViolations: boolean; finished: boolean },
): UpstreamError {
  const detail = falDetail(body);
  const what = `${ctx.action}: HTTP ${status}${detail.errorType ? ` ${detail.errorType}` : ''}${detail.text ? `: ${detail.text}` : ''}`;
  if (detail.types.includes('content_policy_violation'))
    return new UpstreamError(ctx.reportsViolations ? 'violation' : 'failed', `fal flagged the content (${what})`, undefined, status);
  if (detail.types.includes('no_media_generated')) return new UpstreamError('unusable', `fal generated no media (${what})`, undefined, status);
  const retryable = retryableHeader(headers);
  if (status === 429) return new UpstreamError('transient', what, parseRetryAfter(headers?.['retry-after']), status);
  if (status >= 500) {
    // A finished request whose result is fal's error body failed for good (the queue already
    // retried runner failures itself); a bare 5xx from the gateway is an outage.
    if (retryable === false || (ctx.finished && detail.known && retryable !== true)) return new UpstreamError('failed', what, undefined, status);
    return new UpstreamError('transient', what, parseRetryAfter(headers?.['retry-after']), status);
  }
  if (status === 404 && ctx.action === 'status') return new UpstreamError('lost', `fal does not know this request (${what})`, undefined, status);
  // A submit goes to the app's own path: 404 there means fal has no such app (any more).
  if (status === 404 && ctx.action === 'submit') return new UpstreamError('unknown_model', `fal has no such app (${what})`, undefined, status);
  return new UpstreamError('failed', what, undefined, status);
}

export function classifyFalError(err: unknown, action: Action, reportsViolations: boolean): UpstreamError {
  if (isAxiosError(err) && err.response)
    return classifyFalAnswer(err.response.status, err.response.data, err.response.headers as Record<string, unknown>, { action, reportsViolations, finished: false });
  return classifyUpstreamError(err, { reportsViolations, action });
}
