// The public API (submit, poll, balance) in the OpenAPI document: every status, header and body a
// client can meet on submit, poll and balance.
import { z } from 'zod';
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import {
  LEGACY_MODEL_ALIASES,
  MAX_PROMPT_CHARS,
  WHOLE_CATALOG,
  balanceResponseSchema,
  type SoldCatalog,
  imageSubmitBodySchema,
  pollResponseSchema,
  submitResponseSchema,
  videoSubmitBodySchema,
} from '@mediagen/catalog';
import { errorResponse, internalError, ok, rateLimitHeaders, retryAfterHeader, unauthorized, unavailable } from './responses';

// The validators keep `model` and `prompt` as plain strings so that their own error codes
// (invalid_model, model_withdrawn, model_not_offered, validation_error) name the problem; the
// document states the same rules as an enum and a maximum length, both taken from the catalog,
// and the enum lists only what this deployment sells (SOLD_MODELS).
const promptSchema = z.string().max(MAX_PROMPT_CHARS);
const modelEnum = (ids: string[], description: string, example: string) =>
  ids.length > 0
    ? z.enum(ids as [string, ...string[]]).meta({ description, example: ids.includes(example) ? example : ids[0] })
    : z.string().meta({ description: `${description} None is offered by this deployment.` });

export type DocumentedBodies = ReturnType<typeof documentedBodies>;

/** The submit bodies as documented for what is sold; the quote paths document the same bodies. */
export function documentedBodies(sold: SoldCatalog) {
  const video = sold.models('video').map((m) => m.id);
  const aliases = Object.entries(LEGACY_MODEL_ALIASES).filter(([, to]) => video.includes(to));
  const aliasText = aliases.map(([from, to]) => ` The legacy alias ${from} maps to ${to}.`).join('');
  const videoBody = videoSubmitBodySchema
    .extend({
      model: modelEnum([...video, ...aliases.map(([from]) => from)], `Video model.${aliasText}`, 'video-a-h3'),
      prompt: promptSchema.nullable().optional().meta({ description: `Text prompt, ${MAX_PROMPT_CHARS} characters at most, not blank. Required, except for video-a-h3 with ref_mode lip-sync.`, example: 'A red fox runs through fresh snow at dawn' }),
    })
    .meta({ id: 'VideoSubmitBody', description: 'POST /api/video/generate body.' });
  const imageBody = imageSubmitBodySchema
    .extend({
      model: modelEnum(sold.models('image').map((m) => m.id), 'Image model.', 'image-b-2.5'),
      prompt: promptSchema.meta({ description: `Text prompt, ${MAX_PROMPT_CHARS} characters at most, not blank.`, example: 'A watercolor lighthouse at dusk' }),
    })
    .meta({ id: 'ImageSubmitBody', description: 'POST /api/image/generate body.' });
  // The examples name a sold model: the catalog's usual one, or the first sold.
  const example = (ids: string[], usual: string, full: Record<string, unknown>, prompt: string) =>
    ids.length === 0 || ids.includes(usual) ? full : { model: ids[0], prompt };
  return {
    videoBody,
    imageBody,
    videoExample: example(video, 'video-a-h3', { model: 'video-a-h3', prompt: 'A red fox runs through fresh snow at dawn', duration: 5, ratio: '16:9' }, 'A red fox runs through fresh snow at dawn'),
    imageExample: example(sold.models('image').map((m) => m.id), 'image-b-2.5', { model: 'image-b-2.5', prompt: 'A red fox in fresh snow', ratio: '16:9' }, 'A red fox in fresh snow'),
  };
}

const rl = rateLimitHeaders();
const rateLimited = (description: string): ResponseConfig =>
  errorResponse(429, description, { ...rateLimitHeaders(true), 'Retry-After': retryAfterHeader }, 'rate_limited');

/** Responses every authenticated /api operation can give. */
export const apiCommonResponses = (): Record<number, ResponseConfig> => ({
  401: unauthorized('api'),
  429: rateLimited('Request rate exceeded for this API key (RATE_LIMIT_PER_MINUTE); see RateLimit and Retry-After.'),
  500: internalError(),
  503: unavailable(),
});

/** Returns the documented submit bodies, for the paths that take the same body (quote). */
export function registerPublicPaths(reg: OpenAPIRegistry, security: Record<string, string[]>[], sold: SoldCatalog = WHOLE_CATALOG): DocumentedBodies {
  const documented = documentedBodies(sold);
  const idempotencyHeader = z.object({
    'Idempotency-Key': z.string().min(1).max(255).optional().meta({ description: 'Client-chosen unique id (1-255 chars); wins over client_request_id.', example: 'batch-7-item-42' }),
  });
  const submitResponses = (kind: 'video' | 'image'): Record<number, ResponseConfig> => ({
    200: ok(
      kind === 'image' ? 'Task accepted, or already completed (models that answer at once), or an idempotent replay.' : 'Task accepted, or an idempotent replay.',
      submitResponseSchema,
      kind === 'image'
        ? { taskId: 'tsk_01J9Z3N6K4', generationId: 'tsk_01J9Z3N6K4', status: 'completed', resultUrls: ['https://api.example.com/files/results/tsk_01J9Z3N6K4/0.png'], costCents: 3 }
        : { taskId: 'tsk_01J9Z3N6K4', generationId: 'tsk_01J9Z3N6K4', status: 'pending', costCents: 4 },
      rl,
    ),
    400: errorResponse(400, 'Invalid input; `details` names the offending fields.', rl),
    ...apiCommonResponses(),
    402: errorResponse(402, 'Insufficient balance; nothing was charged.', rl),
    409: errorResponse(409, 'A request with the same idempotency id is still being processed; retry after Retry-After with the same id.', { ...rl, 'Retry-After': retryAfterHeader }),
    413: errorResponse(413, 'Request body over 40 MB.', rl),
    415: errorResponse(415, 'Content-Encoding not accepted (send the JSON body uncompressed).', rl),
    422: errorResponse(422, 'Idempotency id reused with a different request (`idempotency_key_reused`), or the task costs more than `max_cost_cents` (`cost_above_limit`, with `costCents`; nothing was charged).', rl),
    429: errorResponse(
      429,
      'Too many tasks in progress (`too_many_tasks`, policy "in-progress") or request rate exceeded (`rate_limited`, policy "per-key"); wait for Retry-After.',
      { ...rateLimitHeaders(true), 'Retry-After': retryAfterHeader },
      'too_many_tasks',
    ),
    503: unavailable('The queue or the database is unavailable; nothing was charged. Retry with the same idempotency id.'),
  });
  const submit = (kind: 'video' | 'image') =>
    reg.registerPath({
      method: 'post',
      path: `/api/${kind}/generate`,
      operationId: kind === 'video' ? 'generateVideo' : 'generateImage',
      tags: ['Generation'],
      summary: `Submit a ${kind} generation task`,
      description:
        (kind === 'image' ? 'Some models answer at once with `status: completed` and `resultUrls`; otherwise poll. ' : '') +
        'Send an Idempotency-Key and reuse it when retrying, so a retry never charges twice.',
      security,
      request: {
        headers: idempotencyHeader,
        body: {
          required: true,
          content: {
            'application/json':
              kind === 'video'
                ? { schema: documented.videoBody, example: documented.videoExample }
                : { schema: documented.imageBody, example: documented.imageExample },
          },
        },
      },
      responses: submitResponses(kind),
    });
  const poll = (kind: 'video' | 'image') =>
    reg.registerPath({
      method: 'get',
      path: `/api/${kind}/tasks/{taskId}`,
      operationId: kind === 'video' ? 'getVideoTask' : 'getImageTask',
      tags: ['Tasks'],
      summary: `Poll a ${kind} task`,
      description: 'Poll every 5-10 s until `status` is completed or failed; polls within 5 s return the cached status. Image tasks that did not complete at submit must be polled again like video tasks.',
      security,
      request: { params: z.object({ taskId: z.string().meta({ description: 'The taskId from the submit response.', example: 'tsk_01J9Z3N6K4' }) }) },
      responses: {
        200: ok('Task status.', pollResponseSchema, { status: 'processing', progress: 40, type: kind }, rl),
        // A task id that is not valid percent-encoding (e.g. `%E0%A4%A`) cannot name a task.
        400: errorResponse(400, 'The task id is not valid percent-encoding (`validation_error`).', rateLimitHeaders(true), 'validation_error'),
        ...apiCommonResponses(),
        404: errorResponse(404, 'No task with this id belongs to the account.', rl),
      },
    });
  submit('video');
  poll('video');
  submit('image');
  poll('image');
  reg.registerPath({
    method: 'get',
    path: '/api/balance',
    operationId: 'getBalance',
    tags: ['Account'],
    summary: 'Account balance',
    security,
    responses: {
      200: ok('Balance of the account behind the key.', balanceResponseSchema, { balanceCents: 1250, topUpUrl: 'https://api.example.com/billing/top-up' }, rl),
      ...apiCommonResponses(),
    },
  });
  return documented;
}
