// POST /api/{video|image}/quote in the OpenAPI document (extension, docs/api.md): the generate body,
// the same refusals as generate (400, 413, 415, 422 cost_above_limit), never 409 (no idempotency
// claim). 402 and the in-progress 429 only for a body with reference media: the gateway fetches
// media only for a key that could submit (the lower bound of the cost covered, below its limit).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { quoteResponseSchema } from '@mediagen/catalog';
import { apiCommonResponses, type DocumentedBodies } from './public-paths';
import { errorResponse, ok, rateLimitHeaders, retryAfterHeader } from './responses';

export function registerQuotePaths(reg: OpenAPIRegistry, security: Record<string, string[]>[], documented: DocumentedBodies): void {
  const rl = rateLimitHeaders();
  for (const kind of ['video', 'image'] as const) {
    reg.registerPath({
      method: 'post',
      path: `/api/${kind}/quote`,
      operationId: kind === 'video' ? 'quoteVideo' : 'quoteImage',
      tags: ['Generation'],
      summary: `Price a ${kind} generation body without submitting it`,
      description:
        `Takes the body of POST /api/${kind}/generate, validates it and fetches and measures its reference media exactly as generate does, ` +
        'and answers what generate would charge. No task is created and nothing is charged. `max_cost_cents` is applied as generate applies it.',
      security,
      request: {
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
      responses: {
        200: ok(
          'What generate would charge for this body.',
          quoteResponseSchema,
          kind === 'video' ? { costCents: 65, billedSeconds: 4, outputSeconds: 4, model: 'video-b-2.0', type: 'video' } : { costCents: 3, model: 'image-b-2.5', type: 'image' },
          rl,
        ),
        400: errorResponse(400, 'Invalid input, the same 400 generate answers; `details` names the offending fields.', rl),
        ...apiCommonResponses(),
        402: errorResponse(402, 'Only with reference media: the balance does not cover the lowest price this body can have, so its media is not fetched.', rl),
        429: errorResponse(
          429,
          'Request rate exceeded (`rate_limited`); or, with reference media, too many tasks in progress (`too_many_tasks`) or media of two other requests being read; wait for Retry-After.',
          { ...rateLimitHeaders(true), 'Retry-After': retryAfterHeader },
          'rate_limited',
        ),
        413: errorResponse(413, 'Request body over 40 MB.', rl),
        415: errorResponse(415, 'Content-Encoding not accepted (send the JSON body uncompressed).', rl),
        422: errorResponse(422, 'The task costs more than `max_cost_cents` (`cost_above_limit`, with `costCents`).', rl, 'cost_above_limit'),
      },
    });
  }
}
