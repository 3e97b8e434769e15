// Building blocks of the OpenAPI document: the response headers the gateway sets and one error
// body per HTTP status whose `code` enum is derived from packages/errors, so a new code shows up
// in the document (and in the SDK's generated types) without anyone remembering to add it.
import { z } from 'zod';
import type { ResponseConfig, ZodMediaTypeObject } from '@asteasolutions/zod-to-openapi';
import { codesForStatus, ERROR_STATUS, ErrorCode } from '@mediagen/errors';
import { errorResponseSchema, insufficientBalanceResponseSchema } from '@mediagen/catalog';

/** The subset of an OpenAPI header object this document uses. */
export interface HeaderObject {
  description: string;
  required: boolean;
  schema: { type: 'string' | 'integer'; minimum?: number };
  example: string | number;
  [extension: `x-${string}`]: unknown;
}
export type HeadersObject = Record<string, HeaderObject>;

const header = (description: string, schema: HeaderObject['schema'], example: string | number, required = false): HeaderObject => ({
  description,
  required,
  schema,
  example,
});

/** Every response of the gateway carries one (echoes a client-sent X-Request-Id). */
export const requestIdHeader = header('Correlates the response with the gateway log; echoes the request\'s X-Request-Id when one was sent.', { type: 'string' }, '0b6f1c52-8f0e-4c1b-9f5e-1f3c2a7d9e10', true);

/** IETF RateLimit fields draft, on every authenticated /api response (absent only while the rate-limit store is down). */
export const rateLimitHeaders = (required = false): HeadersObject => ({
  RateLimit: header('Quota left in the current window: `"<policy>"; r=<remaining>; t=<seconds until reset>`.', { type: 'string' }, '"per-key"; r=119; t=42', required),
  'RateLimit-Policy': header(
    'The quota: `"per-key"; q=<requests>; w=60` for the request rate, `"in-progress"; q=<tasks>; qu="concurrent-requests"` for tasks in progress.',
    { type: 'string' },
    '"per-key"; q=120; w=60; pk=:ZjQ5ZDBhOWFlNjFj:',
    required,
  ),
});

export const retryAfterHeader = header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }, 10, true);
export const wwwAuthenticateHeader = header('Bearer challenge (RFC 6750).', { type: 'string' }, 'Bearer realm="api"', true);

/** Error bodies by status; `code` lists exactly the codes answered with that status. */
const errorSchemas = new Map<number, z.ZodType>();
export function errorSchemaFor(status: number): z.ZodType {
  if (status === 402) return insufficientBalanceResponseSchema;
  let s = errorSchemas.get(status);
  if (!s) {
    const codes = codesForStatus(status) as [ErrorCode, ...ErrorCode[]];
    if (!codes.length) throw new Error(`no error code is answered with status ${status}`);
    const extra =
      status === 429
        ? {
            maxConcurrentTasks: z.number().int().optional().meta({ description: 'too_many_tasks: the account\'s limit of tasks in progress.', example: 20 }),
            tasksInProgress: z.number().int().optional().meta({ description: 'too_many_tasks: tasks in progress now.', example: 20 }),
          }
        : status === 410
          ? { expiresAt: z.string().optional().meta({ description: 'result_expired: when the result expired (ISO 8601).', example: '2026-02-01T12:00:05.000Z' }) }
        : status === 422
          ? {
              costCents: z.number().int().optional().meta({ description: 'cost_above_limit: what the task costs, in cents.', example: 65 }),
              maxCostCents: z.number().int().optional().meta({ description: 'cost_above_limit: the max_cost_cents sent.', example: 50 }),
            }
          : {};
    s = errorResponseSchema.extend({ code: z.enum(codes).meta({ description: 'Stable machine code.', example: codes[0] }), ...extra }).meta({ id: `Error${status}` });
    errorSchemas.set(status, s);
  }
  return s;
}

const exampleError = (status: number, error: string, code?: ErrorCode) => ({ error, code: code ?? codesForStatus(status)[0] });

export const json = (schema: ZodMediaTypeObject['schema'], example?: unknown): { 'application/json': ZodMediaTypeObject } => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

export function ok(description: string, schema: ZodMediaTypeObject['schema'], example: unknown, headers: HeadersObject = {}): ResponseConfig {
  return { description, headers: { 'X-Request-Id': requestIdHeader, ...headers }, content: json(schema, example) };
}

/** An error response; `example` is the `error` text shown, `code` picks the example's code. */
export function errorResponse(status: keyof typeof STATUS_TEXT, description: string, headers: HeadersObject = {}, code?: ErrorCode): ResponseConfig {
  const example =
    status === 402
      ? { error: 'Insufficient balance: this task costs 4 cents, the balance is 2 cents', code: 'insufficient_balance', costCents: 4, balanceCents: 2, topUpUrl: 'https://api.example.com/billing/top-up' }
      : exampleError(status, STATUS_TEXT[status], code);
  return { description, headers: { 'X-Request-Id': requestIdHeader, ...headers }, content: json(errorSchemaFor(status), example) };
}

const STATUS_TEXT = {
  400: 'duration: must be between 1 and 15 seconds at 768p',
  401: 'Invalid or revoked API key',
  402: 'Insufficient balance',
  404: 'Task tsk_01J9Z3N6K4 not found',
  409: 'A request with this idempotency id is still being processed; retry shortly with the same id',
  410: 'This result expired at 2026-02-01T12:00:05.000Z; its files are deleted',
  413: 'Request body exceeds the 40 MB limit',
  415: 'Content-Encoding gzip is not accepted',
  422: 'Idempotency id "batch-7" was already used for a different request; use a new id',
  429: 'Too many requests for this API key; retry after the time in the Retry-After header',
  500: 'Internal server error',
  503: 'Queue unavailable; retry shortly',
} as const;

// Every status above must be one the error model can answer.
for (const s of Object.keys(STATUS_TEXT)) if (!Object.values(ERROR_STATUS).includes(Number(s) as never)) throw new Error(`status ${s} has no error code`);

export const unauthorized = (realm: 'api' | 'admin') =>
  errorResponse(401, realm === 'api' ? 'Missing or invalid API key' : 'Missing or wrong admin token', { 'WWW-Authenticate': { ...wwwAuthenticateHeader, example: `Bearer realm="${realm}"` } });
export const internalError = () => errorResponse(500, 'Internal server error');

/** Headers of a response that has no body of its own to describe. */
export const baseHeaders = (): HeadersObject => ({ 'X-Request-Id': requestIdHeader });

/** The database did not answer in time (Retry-After: 1), or the queue is down (no Retry-After). */
export const unavailable = (description = 'The database did not answer in time; retry shortly.') =>
  errorResponse(503, description, { ...rateLimitHeaders(), 'Retry-After': { ...retryAfterHeader, required: false, example: 1 } });
