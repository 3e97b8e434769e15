// The extensions beyond the spec (docs/api.md) in the OpenAPI document: task
// listing, cancel, the admin webhook API with deliveries, admin task listing, and the `webhooks`
// section describing the signed task events a client receives.
import { z } from 'zod';
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { cancelResponseSchema, effectivePromptSchema, modelListResponseSchema, nextCursorSchema, TASK_STATUSES, taskListItemSchema, taskListResponseSchema, webhookEventSchema } from '@mediagen/catalog';
import { DELIVERY_STATUSES } from '@mediagen/db';
import { createWebhookSchema, deliveryListQuerySchema } from '../routes/admin-webhooks.routes';
import { adminTaskListQuerySchema } from '../routes/admin.routes';
import { taskListQuerySchema } from '../services/listing';
import { apiCommonResponses } from './public-paths';
import { baseHeaders, errorResponse, internalError, ok, rateLimitHeaders, unauthorized, unavailable } from './responses';

const ts = z.string().meta({ description: 'ISO 8601 time.', example: '2026-01-01T12:00:00.000Z' });
const webhookView = z
  .object({
    id: z.string(),
    url: z.string().nullable().meta({ description: 'null: the account\'s callback signing key, which signs per-task callback_url deliveries.' }),
    events: z.array(z.string()),
    createdAt: ts,
    previousSecretExpiresAt: ts.nullable().meta({ description: 'After a rotation: until then the previous secret signs too.' }),
  })
  .meta({ id: 'AdminWebhook' });
const secretField = z.string().meta({ description: 'Signing secret `whsec_<base64>`; shown only in this response.', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
const delivery = z
  .object({
    id: z.string().meta({ description: 'Also the webhook-id header: the same on every attempt of this event.' }),
    endpointId: z.string(),
    taskId: z.string(),
    target: z.enum(['endpoint', 'callback']),
    url: z.string(),
    eventType: z.enum(['task.completed', 'task.failed']),
    status: z.enum(DELIVERY_STATUSES),
    attemptCount: z.number().int(),
    nextAttemptAt: ts.nullable(),
    lastError: z.string().nullable(),
    createdAt: ts,
    deliveredAt: ts.nullable(),
  })
  .meta({ id: 'AdminWebhookDelivery' });
const deliveryDetail = delivery
  .extend({
    body: webhookEventSchema,
    attempts: z.array(z.object({ attemptNo: z.number().int(), statusCode: z.number().int().nullable(), error: z.string().nullable(), durationMs: z.number().int(), createdAt: ts })),
  })
  .meta({ id: 'AdminWebhookDeliveryDetail' });
const adminTaskListItem = z
  .object({
    id: z.string(),
    accountId: z.string(),
    type: z.enum(['video', 'image']),
    status: z.enum(TASK_STATUSES),
    model: z.string(),
    progress: z.number().int(),
    resultUrls: z.array(z.string()),
    errorCode: z.string().nullable(),
    errorMessage: z.string().nullable(),
    retryable: z.boolean().nullable(),
    costCents: z.number().int(),
    createdAt: ts,
    finishedAt: ts.nullable(),
    effectivePrompt: effectivePromptSchema,
  })
  .meta({ id: 'AdminTaskListItem' });

const exampleDelivery = {
  id: 'msg_5f0c', endpointId: 'wh_1a2b', taskId: 'tsk_01J9Z3N6K4', target: 'endpoint', url: 'https://example.com/hooks/mediagen', eventType: 'task.completed',
  status: 'delivered', attemptCount: 1, nextAttemptAt: null, lastError: null, createdAt: '2026-01-01T12:00:05.000Z', deliveredAt: '2026-01-01T12:00:05.210Z',
};
const exampleEvent = {
  type: 'task.completed', timestamp: '2026-01-01T12:00:05.000Z',
  data: { status: 'completed', resultUrls: ['https://api.example.com/files/results/tsk_01J9Z3N6K4/0.mp4'], type: 'video', taskId: 'tsk_01J9Z3N6K4', model: 'video-a-h3', effectivePrompt: 'a fox runs through snow' },
};

export function registerExtensionPaths(reg: OpenAPIRegistry, apiSecurity: Record<string, string[]>[], adminSecurity: Record<string, string[]>[]): void {
  const rl = rateLimitHeaders();
  const taskId = z.object({ taskId: z.string().meta({ description: 'The taskId from the submit response.', example: 'tsk_01J9Z3N6K4' }) });
  reg.registerPath({
    method: 'get', path: '/api/models', operationId: 'listModels', tags: ['Account'], security: apiSecurity,
    summary: 'The models this deployment sells (extension)',
    description: 'A deployment may sell a subset of the catalog (SOLD_MODELS); a submit naming another model answers 400 `model_not_offered`.',
    responses: {
      200: ok('The models sold here, in catalog order.', modelListResponseSchema, { models: [{ id: 'image-b-2.5', type: 'image' }, { id: 'video-b-2.5', type: 'video', tiers: ['third-party'] }] }, rl),
      ...apiCommonResponses(),
    },
  });
  reg.registerPath({
    method: 'get', path: '/api/tasks', operationId: 'listTasks', tags: ['Tasks'], security: apiSecurity,
    summary: 'List the account\'s tasks, newest first (extension)',
    description: 'Cursor-paginated: pass `nextCursor` back as `cursor` until it is null. Tasks created while paging appear on a new first page, never as duplicates.',
    request: { query: taskListQuerySchema },
    responses: {
      200: ok('A page of tasks.', taskListResponseSchema, { data: [{ taskId: 'tsk_01J9Z3N6K4', status: 'processing', progress: 40, type: 'video', model: 'video-a-h3', createdAt: '2026-01-01T12:00:00.000Z', effectivePrompt: null }], nextCursor: null }, rl),
      400: errorResponse(400, 'Bad query parameter (`validation_error`) or a cursor this listing did not issue (`invalid_cursor`).', rl, 'invalid_cursor'),
      ...apiCommonResponses(),
    },
  });
  reg.registerPath({
    method: 'get', path: '/api/tasks/{taskId}', operationId: 'getTaskItem', tags: ['Tasks'], security: apiSecurity,
    summary: 'One task as the listing shows it (extension)',
    description: 'The listing item of one task, whatever its kind: its poll body plus taskId, model, createdAt and effectivePrompt (the prompt sent upstream, docs/prompt-format.md). Not cached; poll the per-kind path for status.',
    request: { params: taskId },
    responses: {
      200: ok('The task.', taskListItemSchema, { taskId: 'tsk_01J9Z3N6K4', status: 'completed', resultUrls: ['https://api.example.com/files/results/tsk_01J9Z3N6K4/0.mp4'], type: 'video', model: 'video-a-h3', createdAt: '2026-01-01T12:00:00.000Z', effectivePrompt: 'Subjects:\n- <Picture 1>: a red fox\nShots:\n1. 0-5 s: the fox runs through snow\nSound:\n- Voice: none\n- Music: soft piano\n- Effects: wind' }, rl),
      ...apiCommonResponses(),
      404: errorResponse(404, 'No task with this id belongs to the account.', rl),
    },
  });
  for (const kind of ['video', 'image'] as const) {
    reg.registerPath({
      method: 'post', path: `/api/${kind}/tasks/{taskId}/cancel`, operationId: kind === 'video' ? 'cancelVideoTask' : 'cancelImageTask', tags: ['Tasks'], security: apiSecurity,
      summary: `Cancel a ${kind} task (extension)`,
      description:
        'A task no provider has accepted yet ends failed with errorCode `cancelled`, retryable false, refunded. A running render is cancelled at the provider where it can be ' +
        '(then the same), otherwise 409 `not_cancellable`. A finished task is 409. Cancelling a cancelled task again answers the same 200 body.',
      request: { params: taskId },
      responses: {
        200: ok('Cancelled and refunded.', cancelResponseSchema, { taskId: 'tsk_01J9Z3N6K4', status: 'failed', errorCode: 'cancelled', retryable: false, errorMessage: 'The task was cancelled at your request. You were refunded.', type: kind }, rl),
        202: ok('The provider is cancelling the render; poll for the outcome.', cancelResponseSchema, { taskId: 'tsk_01J9Z3N6K4', status: 'processing', progress: 40, type: kind, cancelRequested: true }, rl),
        ...apiCommonResponses(),
        404: errorResponse(404, 'No task with this id belongs to the account.', rl),
        409: errorResponse(409, 'The task has finished, or its provider cannot cancel a running render (`not_cancellable`).', rl, 'not_cancellable'),
        503: unavailable('The database did not answer in time, or the task is changing state; retry shortly.'),
      },
    });
  }

  const common = (): Record<number, ResponseConfig> => ({ 401: unauthorized('admin'), 500: internalError(), 503: unavailable() });
  const notFound = (what: string) => ({ 404: errorResponse(404, `${what} not found.`) });
  const badQuery = () => ({ 400: errorResponse(400, 'Bad query parameter or cursor.', {}, 'invalid_cursor') });
  const id = (name: string, example: string) => z.object({ [name]: z.string().meta({ example }) });
  const op = (c: Parameters<OpenAPIRegistry['registerPath']>[0]) => reg.registerPath({ tags: ['Admin'], security: adminSecurity, ...c });
  op({
    method: 'get', path: '/admin/tasks', operationId: 'adminListTasks', summary: 'Tasks, newest first, optionally of one account (cursor-paginated)',
    request: { query: adminTaskListQuerySchema },
    responses: {
      200: ok('A page of tasks.', z.object({ data: z.array(adminTaskListItem), nextCursor: nextCursorSchema }), { data: [], nextCursor: null }),
      ...badQuery(),
      ...common(),
    },
  });
  op({
    method: 'post', path: '/admin/accounts/{id}/webhooks', operationId: 'adminCreateWebhook', summary: 'Add a webhook endpoint (its secret is shown once)',
    request: { params: id('id', 'acc_01J9Z3N6K4'), body: { required: true, content: { 'application/json': { schema: createWebhookSchema.meta({ id: 'AdminCreateWebhookBody' }), example: { url: 'https://example.com/hooks/mediagen' } } } } },
    responses: {
      201: ok('Created.', z.object({ id: z.string(), url: z.string(), events: z.array(z.string()), secret: secretField, createdAt: ts }), {
        id: 'wh_1a2b', url: 'https://example.com/hooks/mediagen', events: ['task.completed', 'task.failed'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', createdAt: '2026-01-01T12:00:00.000Z',
      }),
      400: errorResponse(400, 'Invalid body or URL; `details` names the field.', {}, 'validation_error'),
      413: errorResponse(413, 'Body over 100 kB.'),
      415: errorResponse(415, 'Content-Encoding not accepted.'),
      ...notFound('Account'),
      ...common(),
    },
  });
  op({
    method: 'get', path: '/admin/accounts/{id}/webhooks', operationId: 'adminListWebhooks', summary: 'The account\'s webhook endpoints and its callback signing key (no secrets)',
    request: { params: id('id', 'acc_01J9Z3N6K4') },
    responses: {
      200: ok('Endpoints, oldest first.', z.object({ webhooks: z.array(webhookView) }), { webhooks: [{ id: 'wh_1a2b', url: null, events: ['task.completed', 'task.failed'], createdAt: '2026-01-01T12:00:00.000Z', previousSecretExpiresAt: null }] }),
      ...notFound('Account'),
      ...common(),
    },
  });
  op({
    method: 'delete', path: '/admin/webhooks/{id}', operationId: 'adminDeleteWebhook', summary: 'Delete a webhook endpoint (its pending deliveries stop)',
    request: { params: id('id', 'wh_1a2b') },
    responses: { 204: { description: 'Deleted.', headers: baseHeaders() }, ...notFound('Webhook'), ...common() },
  });
  op({
    method: 'post', path: '/admin/webhooks/{id}/rotate', operationId: 'adminRotateWebhookSecret', summary: 'New signing secret; the old one keeps signing alongside it for 24 h',
    request: { params: id('id', 'wh_1a2b') },
    responses: {
      200: ok('The new secret (shown once).', z.object({ id: z.string(), url: z.string().nullable(), events: z.array(z.string()), secret: secretField, previousSecretExpiresAt: ts.nullable() }), {
        id: 'wh_1a2b', url: 'https://example.com/hooks/mediagen', events: ['task.completed', 'task.failed'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', previousSecretExpiresAt: '2026-01-02T12:00:00.000Z',
      }),
      ...notFound('Webhook'),
      ...common(),
    },
  });
  op({
    method: 'get', path: '/admin/webhooks/{id}/deliveries', operationId: 'adminListWebhookDeliveries', summary: 'Deliveries of an endpoint, newest first (cursor-paginated)',
    request: { params: id('id', 'wh_1a2b'), query: deliveryListQuerySchema },
    responses: { 200: ok('A page of deliveries.', z.object({ data: z.array(delivery), nextCursor: nextCursorSchema }), { data: [exampleDelivery], nextCursor: null }), ...badQuery(), ...notFound('Webhook'), ...common() },
  });
  op({
    method: 'get', path: '/admin/deliveries/{id}', operationId: 'adminGetWebhookDelivery', summary: 'A delivery with its body and every attempt',
    request: { params: id('id', 'msg_5f0c') },
    responses: { 200: ok('The delivery.', deliveryDetail, { ...exampleDelivery, body: exampleEvent, attempts: [{ attemptNo: 1, statusCode: 200, error: null, durationMs: 210, createdAt: '2026-01-01T12:00:05.000Z' }] }), ...notFound('Delivery'), ...common() },
  });
  op({
    method: 'post', path: '/admin/deliveries/{id}/resend', operationId: 'adminResendWebhookDelivery', summary: 'Send the same event again (same webhook-id), with a fresh retry schedule',
    request: { params: id('id', 'msg_5f0c') },
    responses: { 202: ok('Queued again.', deliveryDetail, { ...exampleDelivery, status: 'pending', body: exampleEvent, attempts: [] }), ...notFound('Delivery'), ...common() },
  });

  const signedHeaders = z.object({
    'webhook-id': z.string().meta({ description: 'Event id: the same on every retry of this event; deduplicate on it.', example: 'msg_5f0c' }),
    'webhook-timestamp': z.string().meta({ description: 'Unix seconds of this attempt; reject old ones (replay protection).', example: '1767268805' }),
    'webhook-signature': z.string().meta({
      description: 'Space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` signatures; two during a secret rotation. Verify with any Standard Webhooks library.',
      example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    }),
  });
  for (const type of ['task.completed', 'task.failed'] as const) {
    reg.registerWebhook({
      method: 'post', path: type, operationId: type === 'task.completed' ? 'onTaskCompleted' : 'onTaskFailed', tags: ['Tasks'], security: [],
      summary: `${type}: a task ${type === 'task.completed' ? 'completed' : 'failed'} (signed, Standard Webhooks)`,
      description: 'Sent to each account webhook subscribed to the type and to the task\'s callback_url, after the state is committed, at least once. Answer 2xx quickly; other answers are retried with exponential backoff for about a day.',
      request: { headers: signedHeaders, body: { required: true, content: { 'application/json': { schema: webhookEventSchema, example: type === 'task.completed' ? exampleEvent : { type, timestamp: exampleEvent.timestamp, data: { status: 'failed', errorCode: 'generation_failed', retryable: true, errorMessage: 'The provider could not generate this result. You were refunded; please try again.', type: 'video', taskId: 'tsk_01J9Z3N6K4', model: 'video-a-h3' } } } } } },
      responses: { 200: { description: 'Any 2xx acknowledges the event.' } },
    });
  }
}
