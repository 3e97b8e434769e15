// OpenAPI 3.1 document generated from the same zod schemas that validate requests
// (packages/catalog), so the reference cannot drift from the validator.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  videoSubmitBodySchema,
  imageSubmitBodySchema,
  submitResponseSchema,
  pollResponseSchema,
  balanceResponseSchema,
  errorResponseSchema,
  insufficientBalanceResponseSchema,
} from '@mediagen/catalog';

const err = (description: string) => ({ description, content: { 'application/json': { schema: errorResponseSchema } } });

export function buildOpenApiDocument(serverUrl: string): object {
  const reg = new OpenAPIRegistry();
  const bearer = reg.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer' });
  const security = [{ [bearer.name]: [] }];
  const idempotencyHeader = z.object({
    'Idempotency-Key': z.string().min(1).max(255).optional().meta({ description: 'Client-chosen unique id (1-255 chars); wins over client_request_id.' }),
  });
  const submitErrors = {
    400: err('Invalid input; `details` names the offending fields'),
    401: err('Missing or invalid API key'),
    402: { description: 'Insufficient balance', content: { 'application/json': { schema: insufficientBalanceResponseSchema } } },
    409: err('A request with the same idempotency id is still being processed'),
    413: err('Request body over 40 MB'),
    422: err('Idempotency id reused with a different request'),
    429: err('Too many tasks in progress, or request rate exceeded; see RateLimit and Retry-After headers'),
    500: err('Internal server error'),
    503: err('Temporarily unavailable; retry'),
  };
  const pollPath = (type: 'video' | 'image') =>
    reg.registerPath({
      method: 'get',
      path: `/api/${type}/tasks/{taskId}`,
      summary: `Poll a ${type} task`,
      description: 'Poll every 5-10 s; polls within 5 s return the cached status.',
      security,
      request: { params: z.object({ taskId: z.string() }) },
      responses: { 200: { description: 'Task status', content: { 'application/json': { schema: pollResponseSchema } } }, 401: err('Missing or invalid API key'), 404: err('Task not found') },
    });
  reg.registerPath({
    method: 'post',
    path: '/api/video/generate',
    summary: 'Submit a video generation task',
    security,
    request: { headers: idempotencyHeader, body: { content: { 'application/json': { schema: videoSubmitBodySchema } } } },
    responses: { 200: { description: 'Task accepted', content: { 'application/json': { schema: submitResponseSchema } } }, ...submitErrors },
  });
  pollPath('video');
  reg.registerPath({
    method: 'post',
    path: '/api/image/generate',
    summary: 'Submit an image generation task',
    description: 'Some models answer at once with `status: completed` and `resultUrls`.',
    security,
    request: { headers: idempotencyHeader, body: { content: { 'application/json': { schema: imageSubmitBodySchema } } } },
    responses: { 200: { description: 'Task accepted (or already completed)', content: { 'application/json': { schema: submitResponseSchema } } }, ...submitErrors },
  });
  pollPath('image');
  reg.registerPath({
    method: 'get',
    path: '/api/balance',
    summary: 'Account balance',
    security,
    responses: { 200: { description: 'Balance', content: { 'application/json': { schema: balanceResponseSchema } } }, 401: err('Missing or invalid API key') },
  });
  return new OpenApiGeneratorV31(reg.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Media generation task service', version: '1.0.0', description: 'Asynchronous video and image generation. Submit a task, then poll it until it is completed or failed.' },
    servers: [{ url: serverUrl }],
  });
}
