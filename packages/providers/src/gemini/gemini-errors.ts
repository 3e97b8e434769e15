// Failure taxonomy of the Gemini API (providers.md 2.1, 2.2, 3): which answers are explicit content
// refusals, which are worth retrying and after how long (RetryInfo.retryDelay), which are lost ids.
import { isAxiosError } from 'axios';
import { classifyUpstreamError, parseRetryAfter } from '../classify-error';
import { UpstreamError } from '../upstream-error';
import { GoogleStatus, googleErrorEnvelopeSchema } from './gemini-schemas';

/**
 * Vertex RAI support codes (providers.md 2.2). Only these numbers make an error message an explicit
 * refusal: an 8-digit number alone could be anything (a project number, a request id).
 */
export const RAI_SUPPORT_CODES = new Set([
  '58061214', '17301594', '29310472', '15236754', '64151117', '42237218', '62263041', '57734940', '22137204',
  '74803281', '29578790', '42876398', '89371032', '49114662', '63429089', '72817394', '60599140', '35561574',
  '35561575', '90789179', '43188360', '78610348', '61493863', '56562880', '32635315',
]);

/** Prompt-level block reasons of generateContent (all are content refusals). */
export const PROMPT_BLOCK_REASONS = new Set(['SAFETY', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'IMAGE_SAFETY', 'MODEL_ARMOR', 'JAILBREAK']);

/**
 * Candidate finish reasons that name a content filter. NO_IMAGE, OTHER and IMAGE_OTHER are not in
 * the list: they say nothing was drawn, not that a policy refused it.
 */
export const SAFETY_FINISH_REASONS = new Set([
  'SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'SPII', 'BLOCKLIST', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION',
]);

/** The RAI support codes quoted in a message ("Support codes: 58061214"), if any. */
export function supportCodes(text: string | null | undefined): string[] {
  return [...(text ?? '').matchAll(/\b(\d{8})\b/g)].map((m) => m[1]).filter((c) => RAI_SUPPORT_CODES.has(c));
}

/** google.rpc.RetryInfo.retryDelay ("34.4s") in ms. */
export function retryDelayMs(status: GoogleStatus | null | undefined): number | undefined {
  for (const d of status?.details ?? []) {
    const m = /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay ?? '');
    if (m && String(d['@type'] ?? '').endsWith('google.rpc.RetryInfo')) return Math.min(Math.ceil(Number(m[1]) * 1000), 10 * 60_000);
  }
  return undefined;
}

/** A refusal is a violation only on channels that report them; elsewhere an ordinary failure. */
export const refusal = (reportsViolations: boolean, message: string, httpStatus?: number) =>
  new UpstreamError(reportsViolations ? 'violation' : 'failed', message, undefined, httpStatus);

/** A finished operation's error: the render is over, so it is never transient. */
export function operationError(err: GoogleStatus, reportsViolations: boolean): UpstreamError {
  const text = `${err.status ?? err.code ?? 'error'}: ${err.message ?? 'the operation failed'}`;
  if (supportCodes(err.message).length) return refusal(reportsViolations, `Veo refused the content (${text})`);
  return new UpstreamError('failed', `Veo render failed (${text})`);
}

type Action = 'submit' | 'status' | 'download' | 'cancel';

export function classifyGeminiError(err: unknown, action: Action, reportsViolations: boolean): UpstreamError {
  if (!isAxiosError(err) || !err.response) return classifyUpstreamError(err, { reportsViolations, action });
  const status = err.response.status;
  const parsed = googleErrorEnvelopeSchema.safeParse(err.response.data);
  const body = parsed.success ? parsed.data.error : undefined;
  const what = `${action}: HTTP ${status}${body?.status ? ` ${body.status}` : ''}${body?.message ? `: ${body.message}` : ''}`;
  if (status === 429 || status >= 500) {
    const hint = retryDelayMs(body) ?? parseRetryAfter(err.response.headers?.['retry-after']);
    return new UpstreamError('transient', what, hint, status);
  }
  // Input refusals may come synchronously as 400 INVALID_ARGUMENT / FAILED_PRECONDITION quoting a support code.
  if (status === 400 && supportCodes(body?.message).length) return refusal(reportsViolations, what, status);
  // The operation (or an image "id" from a synchronous call) is unknown here: one fresh attempt.
  if (status === 404 && action === 'status') return new UpstreamError('lost', what, undefined, status);
  // On a model call (generateContent, predictLongRunning) 404 NOT_FOUND names the model: shut down
  // ("models/<id> is not found for API version v1beta", "is no longer available") or never existed.
  if (status === 404 && action === 'submit') return new UpstreamError('unknown_model', what, undefined, status);
  return new UpstreamError('failed', what, undefined, status);
}
