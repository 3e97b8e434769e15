// The zod schemas produce a readable OpenAPI document (the gateway generates its docs from them)
// and accept the response bodies: task, balance, HTTP errors and the error body of docs/api.md.
import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { AppError } from '@mediagen/errors';
import type { z } from 'zod';
import {
  balanceResponseSchema, errorResponseSchema, imageSubmitBodySchema, insufficientBalanceResponseSchema,
  pollResponseSchema, submitResponseSchema, videoSubmitBodySchema,
} from '../src';

describe('OpenAPI generation', () => {
  // The way the gateway uses them: schemas named with .meta({id}) become components via paths.
  const registry = new OpenAPIRegistry();
  const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
  const errors = { 400: { description: 'invalid', ...json(errorResponseSchema) }, 402: { description: 'balance', ...json(insufficientBalanceResponseSchema) } };
  registry.registerPath({ method: 'post', path: '/api/video/generate', request: { body: json(videoSubmitBodySchema) }, responses: { 200: { description: 'ok', ...json(submitResponseSchema) }, ...errors } });
  registry.registerPath({ method: 'post', path: '/api/image/generate', request: { body: json(imageSubmitBodySchema) }, responses: { 200: { description: 'ok', ...json(submitResponseSchema) }, ...errors } });
  registry.registerPath({ method: 'get', path: '/api/video/tasks/{taskId}', responses: { 200: { description: 'ok', ...json(pollResponseSchema) } } });
  registry.registerPath({ method: 'get', path: '/api/balance', responses: { 200: { description: 'ok', ...json(balanceResponseSchema) } } });
  const doc = new OpenApiGeneratorV3(registry.definitions).generateDocument({ openapi: '3.0.0', info: { title: 't', version: '1.0.0' } });
  const schemas = doc.components!.schemas as Record<string, any>;

  test('request bodies refuse unknown fields and describe every field', () => {
    const video = schemas.VideoSubmitBody;
    expect(video.additionalProperties).toBe(false);
    expect(video.required).toEqual(['model']);
    for (const [field, prop] of Object.entries<any>(video.properties)) expect([field, typeof prop.description]).toEqual([field, 'string']);
    expect(schemas.ImageSubmitBody.required).toEqual(['model', 'prompt']);
    expect(schemas.ImageSubmitBody.properties.images.maxItems).toBe(6);
  });
  test('response bodies are named components', () => {
    for (const name of ['SubmitResponse', 'PollResponse', 'BalanceResponse', 'ErrorResponse', 'InsufficientBalanceResponse', 'MediaItem']) {
      expect(schemas[name]).toBeDefined();
    }
  });
});

describe('response schemas accept the documented bodies', () => {
  test.each([
    ['submit, pending', submitResponseSchema, { taskId: 't1', generationId: 't1', status: 'pending', costCents: 4 }],
    ['submit, image completed at once', submitResponseSchema, { taskId: 't1', generationId: 't1', status: 'completed', resultUrls: ['https://x/y.png'], costCents: 3 }],
    ['submit, idempotent replay', submitResponseSchema, { taskId: 't1', generationId: 't1', status: 'processing', idempotentReplay: true, costCents: 4 }],
    ['poll, processing', pollResponseSchema, { status: 'processing', progress: 40, type: 'video' }],
    ['poll, completed', pollResponseSchema, { status: 'completed', resultUrls: ['https://x/y.mp4'], type: 'video' }],
    ['poll, failed', pollResponseSchema, { status: 'failed', errorCode: 'timeout', retryable: true, errorMessage: 'No result within 6 hours', type: 'image' }],
    ['balance', balanceResponseSchema, { balanceCents: 120, topUpUrl: 'https://x/top-up' }],
    ['402', insufficientBalanceResponseSchema, { error: 'Insufficient balance', code: 'insufficient_balance', costCents: 4, balanceCents: 1, topUpUrl: 'https://x' }],
    ['validation error', errorResponseSchema, new AppError('validation_error', 'duration: bad', [{ path: 'duration', message: 'bad' }]).toBody()],
  ] as const)('%s', (_label, schema, body) => {
    expect(schema.safeParse(body).success).toBe(true);
  });
  test('a failed poll needs a known errorCode', () => {
    expect(pollResponseSchema.safeParse({ status: 'failed', errorCode: 'oops', type: 'video' }).success).toBe(false);
  });
});
