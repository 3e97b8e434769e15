// ModelArk's failure taxonomy (providers.md §1.6-1.7, BytePlus error codes page 1299023):
// - content policy: codes containing `SensitiveContentDetected` or `RiskDetection` (input side as a
//   synchronous 400 on create, output side as a `failed` task) -> violation on reporting channels;
// - `ContentSecurityDetectionError`: the moderation service itself failed -> transient;
// - 429 `RateLimitExceeded.*`, `*RateLimitExceeded`, `ServerOverloaded`, `QuotaExceeded` and any
//   5xx -> transient, with Retry-After when sent (ModelArk does not document one);
// - 429 `SetLimitExceeded` (a spend cap the account owner set) and 401/403/400 -> failed: this
//   channel will not do it, another may;
// - 404 on a task we created -> lost (tasks older than 7 days are gone; cancelled ones after 24 h).
import { isAxiosError } from 'axios';
import { classifyUpstreamError, parseRetryAfter } from '../classify-error';
import { isUpstreamError, UpstreamError } from '../upstream-error';
import { modelarkErrorSchema } from './modelark-schemas';

export type ModelarkAction = 'submit' | 'status' | 'download' | 'cancel';

const VIOLATION = /SensitiveContentDetected|RiskDetection/i;
const MODERATION_DOWN = /^ContentSecurityDetectionError/i;
const RATE_LIMITED = /RateLimitExceeded|ServerOverloaded|^QuotaExceeded/i;
/**
 * The model (or endpoint) does not exist, is no longer offered, or is not activated for this key
 * (BytePlus error codes: `InvalidEndpointOrModel.NotFound`, `.ModelIDAccessDisabled`, `ModelNotOpen`).
 */
export const MODEL_UNAVAILABLE = /^InvalidEndpointOrModel|^ModelNotOpen/i;

/** What a ModelArk error code means for the task; `code` as the upstream wrote it. */
export function classifyModelarkCode(
  code: string,
  message: string,
  ctx: { reportsViolations: boolean; action: ModelarkAction; httpStatus?: number; retryAfterMs?: number },
): UpstreamError {
  const text = `${ctx.action}: ${code}${message ? ` ${message}` : ''}`.slice(0, 500);
  if (MODERATION_DOWN.test(code)) return new UpstreamError('transient', text, ctx.retryAfterMs, ctx.httpStatus);
  if (VIOLATION.test(code))
    return ctx.reportsViolations
      ? new UpstreamError('violation', `${ctx.action}: the provider flagged the content (${code})`, undefined, ctx.httpStatus)
      : new UpstreamError('failed', text, undefined, ctx.httpStatus);
  if (RATE_LIMITED.test(code)) return new UpstreamError('transient', text, ctx.retryAfterMs, ctx.httpStatus);
  if (MODEL_UNAVAILABLE.test(code) && ctx.action === 'submit') return new UpstreamError('unknown_model', text, undefined, ctx.httpStatus);
  return new UpstreamError('failed', text, undefined, ctx.httpStatus);
}

export function classifyModelarkError(err: unknown, action: ModelarkAction, reportsViolations: boolean): UpstreamError {
  if (isUpstreamError(err)) return err;
  if (!isAxiosError(err) || !err.response) return classifyUpstreamError(err, { reportsViolations, action });
  const status = err.response.status;
  const retryAfterMs = parseRetryAfter(err.response.headers?.['retry-after']);
  const parsed = modelarkErrorSchema.safeParse(err.response.data);
  const code = parsed.success ? parsed.data.error?.code ?? '' : '';
  const message = parsed.success ? parsed.data.error?.message ?? parsed.data.message ?? '' : '';

  if (action === 'download') {
    // Result links are signed and live 24 h: an expired or revoked link will not come back.
    if (status === 403 || status === 404 || status === 410) return new UpstreamError('unusable', `download: HTTP ${status}: the result link has expired`, undefined, status);
    return classifyUpstreamError(err, { reportsViolations: false, action });
  }
  if (action === 'status' && status === 404) return new UpstreamError('lost', `status: HTTP 404: the upstream no longer knows this task ${code}`.trim(), undefined, 404);
  if (code) {
    const byCode = classifyModelarkCode(code, message, { reportsViolations, action, httpStatus: status, retryAfterMs });
    // An unknown code on a 429 or 5xx is still a "come back later".
    if (byCode.kind !== 'failed' || (status !== 429 && status < 500) || /^SetLimitExceeded/i.test(code)) return byCode;
  }
  if (status === 408 || status === 429 || status >= 500)
    return new UpstreamError('transient', `${action}: HTTP ${status}${code ? ` ${code}` : ''}`, retryAfterMs, status);
  return new UpstreamError('failed', `${action}: HTTP ${status}${code ? ` ${code}` : ''}${message ? ` ${message}` : ''}`.slice(0, 500), undefined, status);
}
