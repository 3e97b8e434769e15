// GET /api/tasks/{taskId}/events in the OpenAPI document (extension, docs/api.md): a
// text/event-stream of the task's states until its terminal event.
import { z } from 'zod';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { apiCommonResponses } from './public-paths';
import { errorResponse, rateLimitHeaders, requestIdHeader, retryAfterHeader } from './responses';

const EXAMPLE = [
  'retry: 3000',
  '',
  'id: 1040',
  'event: status',
  'data: {"status":"processing","progress":40,"type":"video"}',
  '',
  ': heartbeat',
  '',
  'id: 2000',
  'event: done',
  'data: {"status":"completed","resultUrls":["https://api.example.com/files/results/tsk_01J9Z3N6K4/0.mp4"],"type":"video"}',
  '',
].join('\n');

export function registerEventsPaths(reg: OpenAPIRegistry, security: Record<string, string[]>[]): void {
  const rl = rateLimitHeaders();
  reg.registerPath({
    method: 'get',
    path: '/api/tasks/{taskId}/events',
    operationId: 'streamTaskEvents',
    tags: ['Tasks'],
    summary: 'Follow a task as Server-Sent Events until it ends (extension)',
    description:
      'Answers `text/event-stream`. The first event is the task\'s current state; then one `status` event per status or progress change ' +
      '(`data` is the poll body), then one `done` event whose `data` is the terminal poll body, and the stream ends. A comment line ' +
      '(`: heartbeat`) comes every 15 s. Event ids order the states (pending 0, processing 1000 + progress, terminal 2000): reconnect ' +
      'with `Last-Event-ID` and only later states are sent (a terminal one already seen just ends the stream). Counts once against the ' +
      'request rate. Each account may hold a limited number of open streams per gateway (429 `too_many_streams`); a client that does ' +
      'not read its stream is cut.',
    security,
    request: {
      params: z.object({ taskId: z.string().meta({ description: 'The taskId from the submit response (a video or an image task).', example: 'tsk_01J9Z3N6K4' }) }),
      headers: z.object({ 'Last-Event-ID': z.string().optional().meta({ description: 'The id of the last event received, to resume.', example: '1040' }) }),
    },
    responses: {
      200: {
        description: 'The event stream.',
        headers: { 'X-Request-Id': requestIdHeader, ...rl },
        content: { 'text/event-stream': { schema: z.string().meta({ description: 'Server-Sent Events (see the description).' }), example: EXAMPLE } },
      },
      400: errorResponse(400, 'The task id is not valid percent-encoding.', rl, 'validation_error'),
      ...apiCommonResponses(),
      404: errorResponse(404, 'No task with this id belongs to the account.', rl),
      429: errorResponse(
        429,
        'Request rate exceeded (`rate_limited`), or the account already holds the most open streams on this gateway (`too_many_streams`, SSE_MAX_STREAMS_PER_ACCOUNT); wait for Retry-After or poll.',
        { ...rateLimitHeaders(true), 'Retry-After': retryAfterHeader },
        'too_many_streams',
      ),
    },
  });
}
