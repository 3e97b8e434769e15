// Maps transport and HTTP failures of an upstream call to an UpstreamError.
import { isAxiosError } from 'axios';
import { isUpstreamError, UpstreamError } from './upstream-error';

const TRANSIENT_STATUS = new Set([408, 425, 429]);
const TRANSIENT_CODES = new Set([
  'ECONNABORTED', 'ETIMEDOUT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND',
  'EHOSTUNREACH', 'ENETUNREACH', 'ERR_NETWORK', 'ERR_SOCKET_CONNECTION_TIMEOUT', 'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_CANCELED', 'ABORT_ERR',
]);
/**
 * Failures of a new connection, before one byte of the request was written: DNS NXDOMAIN, nothing
 * listening, no route, a TLS handshake refused (certificate, protocol). A reused keep-alive socket
 * never gives these, so they prove the upstream did not get the request. EAI_AGAIN (a resolver that
 * did not answer in time) and ECONNRESET / timeouts (which may come after the request left) are not
 * in the list: they stay `transient`.
 */
const UNSENT_CODES = new Set([
  'ENOTFOUND', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EPROTO',
  'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
]);

/** A submit that failed before it was sent (see UNSENT_CODES); other actions keep retrying their channel. */
function unsent(code: string, ctx: ClassifyContext, detail: string): UpstreamError | undefined {
  if (ctx.action !== 'submit' || !UNSENT_CODES.has(code)) return undefined;
  return new UpstreamError('unsent', `${ctx.action}: ${detail} (not sent: the request never reached the upstream)`);
}

/** Retry-After beyond this is capped: the task's own deadline is what bounds waiting. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const v = value.trim();
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** The provider's own error code in a JSON error body, e.g. {"error": {"code": "content_policy"}}. */
export function upstreamErrorCode(body: unknown): string | undefined {
  const err = (body as { error?: unknown } | null)?.error;
  if (err && typeof err === 'object' && typeof (err as { code?: unknown }).code === 'string') return (err as { code: string }).code;
  return undefined;
}

export interface ClassifyContext {
  /** Whether the channel reports content violations explicitly (only those give `violation`). */
  reportsViolations: boolean;
  /** What was being done, for the message: "submit", "status", "download". */
  action: string;
}

export function classifyUpstreamError(err: unknown, ctx: ClassifyContext): UpstreamError {
  if (isUpstreamError(err)) return err;
  if (isAxiosError(err)) {
    const status = err.response?.status;
    if (status === undefined) {
      const code = err.code ?? '';
      const notSent = unsent(code, ctx, err.message && err.message !== code ? `${code} ${err.message}` : code);
      if (notSent) return notSent;
      // Anything below HTTP (refused, reset, timed out) may well work on the next try.
      return new UpstreamError('transient', `${ctx.action}: ${code || err.message}`);
    }
    const retryAfterMs = parseRetryAfter(err.response?.headers?.['retry-after']);
    if (TRANSIENT_STATUS.has(status) || status >= 500)
      return new UpstreamError('transient', `${ctx.action}: HTTP ${status}`, retryAfterMs, status);
    if (upstreamErrorCode(err.response?.data) === 'content_policy' && ctx.reportsViolations)
      return new UpstreamError('violation', `${ctx.action}: the provider flagged the content`, undefined, status);
    // 400/401/403/404/422...: this channel will not do it (bad credentials, unknown render,
    // refused request). Another channel may.
    return new UpstreamError('failed', `${ctx.action}: HTTP ${status}`, undefined, status);
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const message = (err as Error)?.message ?? String(err);
  const notSent = code ? unsent(code, ctx, message && !message.includes(code) ? `${code} ${message}` : message || code) : undefined;
  if (notSent) return notSent;
  if (code && TRANSIENT_CODES.has(code)) return new UpstreamError('transient', `${ctx.action}: ${code}`);
  // Stream errors while reading a body (socket closed mid-download) are worth another try;
  // anything else is a bug or a response we cannot read, which another channel may not share.
  if (code || /aborted|socket|timed? ?out|premature|reset/i.test(message)) return new UpstreamError('transient', `${ctx.action}: ${message}`);
  return new UpstreamError('failed', `${ctx.action}: ${message}`);
}
