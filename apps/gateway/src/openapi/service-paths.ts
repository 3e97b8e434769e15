// Everything outside /api and /admin in the OpenAPI document: the front page, the document itself,
// health checks, the top-up page, metrics and the result files.
import { z } from 'zod';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { baseHeaders, errorResponse, internalError, ok, retryAfterHeader, unauthorized, unavailable, HeaderObject } from './responses';

const html = (description: string, example: string) => ({ description, headers: baseHeaders(), content: { 'text/html': { schema: z.string(), example } } });

const readiness = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    code: z.literal('service_unavailable').optional(),
    error: z.string().optional(),
    postgres: z.string().optional().meta({ description: '`ok` or why the check failed.' }),
    redis: z.string().optional().meta({ description: '`ok` or why the check failed.' }),
  })
  .meta({ id: 'Readiness' });

const fileHeader = (description: string, example: string): HeaderObject => ({ description, required: true, schema: { type: 'string' }, example });

export function registerServicePaths(reg: OpenAPIRegistry, adminSecurity: Record<string, string[]>[]): void {
  const open: Record<string, string[]>[] = []; // no credential
  reg.registerPath({
    method: 'get', path: '/', operationId: 'getFrontPage', tags: ['Service'], security: open, summary: 'What this service is, with links and the SDK\'s five-line start',
    responses: { 200: html('The front page.', '<!doctype html><title>Media generation task service</title>...') },
  });
  reg.registerPath({
    method: 'get', path: '/openapi.json', operationId: 'getOpenApiDocument', tags: ['Service'], security: open, summary: 'This document',
    responses: { 200: ok('The OpenAPI 3.1 document.', z.looseObject({ openapi: z.string() }), { openapi: '3.1.0' }) },
  });
  reg.registerPath({
    method: 'get', path: '/healthz', operationId: 'getLiveness', tags: ['Service'], security: open, summary: 'Liveness: the process answers',
    responses: { 200: ok('Alive.', z.object({ status: z.literal('ok') }), { status: 'ok' }) },
  });
  reg.registerPath({
    method: 'get', path: '/readyz', operationId: 'getReadiness', tags: ['Service'], security: open, summary: 'Readiness: Postgres and Redis answer',
    responses: {
      200: ok('Ready.', readiness, { status: 'ready' }),
      503: ok('Not ready; says which dependency failed.', readiness, { status: 'not_ready', code: 'service_unavailable', error: 'Dependencies unavailable', postgres: 'ok', redis: 'timed out' }),
    },
  });
  reg.registerPath({
    method: 'get', path: '/billing/top-up', operationId: 'getTopUpPage', tags: ['Service'], security: open, summary: 'The former default topUpUrl: leads to the account holder\'s top-up page',
    responses: { 200: html('A page that moves on to /account/top-up (meta refresh and a link).', '<!doctype html><title>Top up your balance</title>...') },
  });
  reg.registerPath({
    method: 'post', path: '/billing/stripe/webhook', operationId: 'receiveStripeEvent', tags: ['Service'], security: open,
    summary: 'Stripe events: credits card top-ups (checkout.session.completed), reverses refunds and disputes',
    description: 'Verified with the Stripe SDK against the raw body and STRIPE_WEBHOOK_SECRET; each event and each Checkout Session acts once (docs/account.md). Not for API clients.',
    request: {
      headers: z.object({ 'stripe-signature': z.string().meta({ example: 't=1700000000,v1=5257a869e7...' }) }),
      body: { required: true, content: { 'application/json': { schema: z.looseObject({}), example: { id: 'evt_1', type: 'checkout.session.completed', data: { object: { id: 'cs_test_1' } } } } } },
    },
    responses: {
      200: ok('Received (also for events that change nothing: a repeat, an unknown session).', z.object({ received: z.literal(true) }), { received: true }),
      400: errorResponse(400, 'Missing or bad Stripe-Signature: nothing is credited.', {}, 'invalid_signature'),
      404: errorResponse(404, 'Card top-ups are not configured (no STRIPE_SECRET_KEY).'),
      500: internalError(),
    },
  });
  reg.registerPath({
    method: 'get', path: '/metrics', operationId: 'getMetrics', tags: ['Admin'], security: adminSecurity, summary: 'Prometheus metrics',
    responses: {
      200: { description: 'Prometheus text format.', headers: baseHeaders(), content: { 'text/plain': { schema: z.string(), example: '# HELP http_requests_total ...' } } },
      401: unauthorized('admin'),
      500: internalError(),
    },
  });
  reg.registerPath({
    method: 'post', path: '/hooks/upstream/{channelId}', operationId: 'receiveUpstreamCallback', tags: ['Provider callbacks'], security: open,
    summary: 'Callback from an upstream provider: wakes the task, which then reads the upstream state itself',
    description: 'Verified with the channel\'s signature scheme (fal, Replicate) or a per-task token in the URL (others). Not for API clients.',
    request: {
      params: z.object({ channelId: z.string().meta({ example: 'modelark-video' }) }),
      body: { required: true, content: { 'application/json': { schema: z.looseObject({}), example: { id: 'cgt-2025', status: 'succeeded' } } } },
    },
    responses: {
      200: ok('Received.', z.object({ received: z.literal(true), woken: z.boolean() }), { received: true, woken: true }),
      401: errorResponse(401, 'The signature or token does not verify.'),
      404: errorResponse(404, 'No such channel, a channel without callbacks, or no task has this render.'),
      413: errorResponse(413, 'Body over 1 MB.'),
      429: errorResponse(429, 'Too many callbacks without their task\'s token from this address (UPSTREAM_HOOKS_RATE_LIMIT_PER_MINUTE); nothing was read. A callback to the URL the service gave the upstream is never refused this way.', { 'Retry-After': retryAfterHeader }, 'rate_limited'),
      500: internalError(),
      503: unavailable(),
    },
  });
  const key = z.object({ key: z.string().meta({ description: 'The file key as found in resultUrls; it may contain `/`.', example: 'results/tsk_01J9Z3N6K4/0.png' }) });
  const file = { schema: z.string().meta({ description: 'The file bytes.' }), example: '<bytes>' };
  const fileContent = { 'image/*': file, 'video/*': file, 'audio/*': file };
  const fileHeaders = {
    ...baseHeaders(),
    'Content-Type': fileHeader('The type checked against the bytes when stored.', 'image/png'),
    'Accept-Ranges': fileHeader('Byte ranges are served.', 'bytes'),
    'Cache-Control': fileHeader('A key never changes once written; cached a day at most, never past the result\'s expiresAt.', 'public, max-age=86400, immutable'),
  };
  const fileResponses = (method: 'get' | 'head') => ({
    200: { description: 'The whole file.', headers: fileHeaders, ...(method === 'get' ? { content: fileContent } : {}) },
    206: {
      description: 'One byte range (`Range: bytes=start-end`).',
      headers: { ...fileHeaders, 'Content-Range': fileHeader('The range sent.', 'bytes 0-1023/48213') },
      ...(method === 'get' ? { content: fileContent } : {}),
    },
    404: errorResponse(404, 'No such file.'),
    410: errorResponse(410, 'The result expired (its task\'s `expiresAt` passed) and its files are deleted; the body names the expiry in `error` and `expiresAt`.'),
    416: {
      description: 'The range lies outside the file.',
      headers: { ...baseHeaders(), 'Content-Range': fileHeader('The file size.', 'bytes */48213') },
      content: { 'application/json': { schema: z.object({ error: z.string(), code: z.literal('validation_error') }).meta({ id: 'Error416' }), example: { error: 'Requested range not satisfiable', code: 'validation_error' } } },
    },
  });
  for (const method of ['get', 'head'] as const) {
    reg.registerPath({
      method,
      path: '/files/{key}',
      operationId: method === 'get' ? 'getFile' : 'headFile',
      tags: ['Files'],
      security: open,
      summary: method === 'get' ? 'A result or reference file (public, unguessable URL)' : 'A file\'s headers only',
      request: { params: key },
      responses: fileResponses(method),
    });
  }
}
