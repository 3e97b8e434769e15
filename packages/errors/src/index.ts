// One error model for the whole service: a stable code, its HTTP status, human text, and for
// validation errors the offending fields. Rendered by the gateway's single error middleware as
// `{ error, code, details? , ...extra }` (docs/api.md).

export const ERROR_STATUS = {
  invalid_json: 400,
  /** A listing cursor that this service did not issue (or that was altered). */
  invalid_cursor: 400,
  validation_error: 400,
  unknown_field: 400,
  invalid_model: 400,
  model_withdrawn: 400,
  /** A catalog model (or one of its tiers or variants) this deployment does not sell (SOLD_MODELS). */
  model_not_offered: 400,
  wrong_endpoint: 400,
  unsupported_parameter: 400,
  invalid_media: 400,
  /** A signed callback (Stripe's events at POST /billing/stripe/webhook) whose signature does not verify against its body. */
  invalid_signature: 400,
  unauthorized: 401,
  insufficient_balance: 402,
  forbidden: 403,
  not_found: 404,
  idempotency_in_progress: 409,
  /** POST .../cancel on a finished task, or a running one whose channel cannot cancel upstream. */
  not_cancellable: 409,
  /** A result URL past its task's expiresAt: the files were (or are about to be) deleted. */
  result_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  balance_limit_exceeded: 422,
  /** The task would cost more than the submit's max_cost_cents; nothing was charged. */
  cost_above_limit: 422,
  too_many_tasks: 429,
  rate_limited: 429,
  /** The account holds SSE_MAX_STREAMS_PER_ACCOUNT open task event streams on this gateway. */
  too_many_streams: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Every code, for enums in the OpenAPI document and the SDK's typed errors. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** The codes answered with one HTTP status. */
export const codesForStatus = (status: number): ErrorCode[] => ERROR_CODES.filter((c) => ERROR_STATUS[c] === status);

export interface ErrorDetail {
  /** Field path as the client wrote it, e.g. `media[2].url`, `duration`. */
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra top-level body fields (402: costCents, balanceCents, topUpUrl). */
    readonly extra?: Record<string, unknown>,
    /** Extra response headers (429: RateLimit, RateLimit-Policy, Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }

  toBody(): Record<string, unknown> {
    return {
      error: this.message,
      code: this.code,
      ...(this.details && this.details.length ? { details: this.details } : {}),
      ...(this.extra ?? {}),
    };
  }
}

/** A 400 naming one field. */
export const invalid = (path: string, message: string, code: ErrorCode = 'validation_error'): AppError =>
  new AppError(code, `${path ? `${path}: ` : ''}${message}`, [{ path, message }]);

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
