// Typed errors, one class per kind of answer, built from status + body by ApiError.generate (the
// shape of trigger.dev's apiClient/errors.ts). Branch on `instanceof` or on `code`, never on text.
import type { ErrorCode, ErrorDetail } from './types';

export class MediaGenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ApiError extends MediaGenError {
  constructor(
    readonly status: number,
    /** The service's stable code (every non-2xx body carries one). */
    readonly code: ErrorCode | undefined,
    message: string,
    readonly body: Record<string, unknown> | undefined,
    readonly headers: Headers | undefined,
  ) {
    super(message);
  }

  /** Fields the service named as the problem (validation errors). */
  get details(): ErrorDetail[] {
    return Array.isArray(this.body?.details) ? (this.body!.details as ErrorDetail[]) : [];
  }

  /** The gateway's X-Request-Id, to quote when reporting a problem. */
  get requestId(): string | undefined {
    return this.headers?.get('x-request-id') ?? undefined;
  }

  static generate(status: number, body: unknown, headers?: Headers): ApiError {
    const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
    const code = typeof b?.code === 'string' ? (b.code as ErrorCode) : undefined;
    const message = typeof b?.error === 'string' ? `${status} ${b.error}` : `${status} status code (no error body)`;
    const args = [status, code, message, b, headers] as const;
    switch (status) {
      case 400:
        return new BadRequestError(...args);
      case 422:
        return code === 'cost_above_limit' ? new CostAboveLimitError(...args) : new BadRequestError(...args);
      case 401:
        return new AuthenticationError(...args);
      case 402:
        return new InsufficientBalanceError(...args);
      case 404:
        return new NotFoundError(...args);
      case 409:
        return new ConflictError(...args);
      case 413:
        return new BadRequestError(...args);
      case 429:
        return new RateLimitError(...args);
      default:
        return status >= 500 ? new InternalServerError(...args) : new ApiError(...args);
    }
  }
}

export class BadRequestError extends ApiError {}

/** 422 `cost_above_limit`: the task would cost more than maxCostCents; nothing was created or charged. */
export class CostAboveLimitError extends BadRequestError {
  get costCents(): number {
    return Number(this.body?.costCents);
  }
  get maxCostCents(): number {
    return Number(this.body?.maxCostCents);
  }
}
export class AuthenticationError extends ApiError {}
export class NotFoundError extends ApiError {}
/** 409: the same idempotency key is still in flight (retried by the SDK), or `not_cancellable`. */
export class ConflictError extends ApiError {}
export class InternalServerError extends ApiError {}

/** 402: nothing was charged; the body says what the task costs and what the balance is. */
export class InsufficientBalanceError extends ApiError {
  get costCents(): number {
    return Number(this.body?.costCents);
  }
  get balanceCents(): number {
    return Number(this.body?.balanceCents);
  }
  get topUpUrl(): string {
    return String(this.body?.topUpUrl ?? '');
  }
}

/** 429: `too_many_tasks` (tasks in progress) or `rate_limited` (request rate). */
export class RateLimitError extends ApiError {
  /** Seconds the service asked to wait (Retry-After), if it said. */
  get retryAfterSeconds(): number | undefined {
    return parseRetryAfter(this.headers?.get('retry-after') ?? null);
  }
}

/** The request never got an answer (DNS, refused connection, reset, timeout). */
export class ApiConnectionError extends MediaGenError {}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
