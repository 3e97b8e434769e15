// MiniMax's failure taxonomy (providers.md §5, corrections 1; platform.minimax.io error codes):
// - content policy, only on these explicit signals: code 1026 (input sensitive), 1027 (output
//   sensitive), HTTP 422 `unprocessable_entity_error` whose message says "sensitive" (MiniMax's
//   own CLI, isV2ContentFilter), or a failed task whose error says "input/output ... sensitive"
//   (the CLI's mapApiError: `/output.*sensitive/`) -> violation on reporting channels, else failed.
//   A task's `error.code` is a string ("1027", or a word): its digits are read, never Number() alone;
// - HTTP 429 / code 1002 (rate limit), 5xx, 1000 (unknown), 1001 (timeout), 1024 (internal) ->
//   transient, with Retry-After when sent;
// - 1004 auth, 1008 balance, 2013 invalid params and any other 4xx -> failed (next channel);
// - 404 on a task we created -> lost.
// The legacy numeric code sits in `base_resp.status_code` (HTTP 200 answers) or inside the v2
// message, e.g. "invalid params (2013)".
import { isAxiosError } from 'axios';
import { classifyUpstreamError, parseRetryAfter } from '../classify-error';
import { isUpstreamError, UpstreamError } from '../upstream-error';
import { minimaxErrorSchema } from './minimax-schemas';

export type MinimaxAction = 'submit' | 'status' | 'download' | 'cancel';

const VIOLATION_CODES = new Set([1026, 1027]);
const TRANSIENT_CODES = new Set([1000, 1001, 1002, 1024]);
/**
 * MiniMax has no code of its own for a model it does not offer: it answers 2013 (invalid params)
 * with the model named in the message, e.g. "invalid params, unknown model 'x' (2013)".
 */
/** 2061: "model not available on your current plan" (MiniMax-AI/cli src/errors/api.ts): not for this key. */
export const MODEL_NOT_ON_PLAN = 2061;
export const UNKNOWN_MODEL_TEXT = /unknown model|invalid model|model\b[^()]*\b(not (exist|found|support|available)|no longer)/i;

export interface MinimaxSignal {
  /** The legacy numeric code, as a number (`base_resp`) or text (a v2 task's `error.code`). */
  code?: number | string;
  /** v2 `error.type`, e.g. `unprocessable_entity_error`. */
  type?: string;
  message?: string;
  httpStatus?: number;
}

/** The legacy code a v2 message carries at its end: "... (1026)". */
export const codeInMessage = (message: string | undefined): number | undefined => {
  const m = /\((\d{4})\)\s*$/.exec(message ?? '');
  return m ? Number(m[1]) : undefined;
};

/** The four digits of a code given as a number or as text ("1027", "E1027"); undefined for a word. */
export const numericCode = (code: number | string | undefined): number | undefined => {
  if (typeof code === 'number') return Number.isFinite(code) ? code : undefined;
  const m = /(?:^|\D)(\d{4})(?:\D|$)/.exec(code ?? '');
  return m ? Number(m[1]) : undefined;
};

/** A refusal worded rather than numbered: "output new_sensitive", "input sensitive content". */
const SENSITIVE_WORDING = /\b(input|output)\b.*sensitive/i;

export function classifyMinimaxSignal(s: MinimaxSignal, ctx: { reportsViolations: boolean; action: MinimaxAction; retryAfterMs?: number }): UpstreamError {
  const code = numericCode(s.code) ?? codeInMessage(s.message);
  const words = `${typeof s.code === 'string' && numericCode(s.code) === undefined ? s.code : ''} ${s.message ?? ''}`;
  const text = `${ctx.action}: ${s.httpStatus ? `HTTP ${s.httpStatus} ` : ''}${s.code ?? code ?? ''} ${s.message ?? ''}`.replace(/\s+/g, ' ').trim().slice(0, 500);
  const refused = (code !== undefined && VIOLATION_CODES.has(code)) ||
    ((s.httpStatus === 422 || s.type === 'unprocessable_entity_error') && /sensitive/i.test(s.message ?? '')) ||
    (ctx.action === 'status' && SENSITIVE_WORDING.test(words));
  if (refused)
    return ctx.reportsViolations
      ? new UpstreamError('violation', `${ctx.action}: the provider flagged the content (${code ?? s.code ?? s.type})`, undefined, s.httpStatus)
      : new UpstreamError('failed', text, undefined, s.httpStatus);
  if ((code !== undefined && TRANSIENT_CODES.has(code)) || s.httpStatus === 408 || s.httpStatus === 429 || (s.httpStatus ?? 0) >= 500)
    return new UpstreamError('transient', text, ctx.retryAfterMs, s.httpStatus);
  if (ctx.action === 'status' && s.httpStatus === 404) return new UpstreamError('lost', `${text}: the upstream no longer knows this task`, undefined, 404);
  if (ctx.action === 'submit' && (code === MODEL_NOT_ON_PLAN || UNKNOWN_MODEL_TEXT.test(s.message ?? ''))) return new UpstreamError('unknown_model', text, undefined, s.httpStatus);
  return new UpstreamError('failed', text, undefined, s.httpStatus);
}

export function classifyMinimaxError(err: unknown, action: MinimaxAction, reportsViolations: boolean): UpstreamError {
  if (isUpstreamError(err)) return err;
  if (!isAxiosError(err) || !err.response) return classifyUpstreamError(err, { reportsViolations, action });
  const status = err.response.status;
  if (action === 'download') {
    // v2 result links are time-limited; an expired one will not come back by itself.
    if (status === 403 || status === 404 || status === 410) return new UpstreamError('unusable', `download: HTTP ${status}: the result link has expired`, undefined, status);
    return classifyUpstreamError(err, { reportsViolations: false, action });
  }
  const parsed = minimaxErrorSchema.safeParse(err.response.data);
  const body = parsed.success ? parsed.data : undefined;
  return classifyMinimaxSignal(
    {
      code: body?.base_resp?.status_code ?? undefined,
      type: body?.error?.type ?? undefined,
      message: body?.error?.message ?? body?.base_resp?.status_msg ?? undefined,
      httpStatus: status,
    },
    { reportsViolations, action, retryAfterMs: parseRetryAfter(err.response.headers?.['retry-after']) },
  );
}
