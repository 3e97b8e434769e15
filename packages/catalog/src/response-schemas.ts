// Response bodies of the task, the balance and the error (the service spec's resources and HTTP
// statuses; the error body of docs/api.md). The gateway
// builds its OpenAPI document from these and its tests parse real responses with them, so the
// documented and the actual shapes cannot drift apart.
import { z } from 'zod';
import { ERROR_CODES } from '@mediagen/errors';
import { TASK_ERROR_CODES, TASK_STATUSES } from './task-vocabulary';

export const submitResponseSchema = z
  .object({
    taskId: z.string().meta({ description: 'Identifier used to poll. Equal to generationId.', example: 'tsk_01J9Z3N6K4' }),
    generationId: z.string().meta({ description: 'Same value as taskId.', example: 'tsk_01J9Z3N6K4' }),
    status: z.enum(TASK_STATUSES).meta({
      description: 'pending, processing or completed; a replay of a failed task shows failed.',
      example: 'pending',
    }),
    resultUrls: z.array(z.string()).optional().meta({ description: 'Present when status is completed (image models that answer at once).' }),
    idempotentReplay: z.literal(true).optional().meta({ description: 'Present and true only when the response replays an earlier submit.' }),
    costCents: z.number().int().min(0).meta({ description: 'Extension: what the task was charged, in cents (a failed task is refunded).', example: 4 }),
  })
  .meta({ id: 'SubmitResponse' });

export const pollResponseSchema = z
  .object({
    status: z.enum(TASK_STATUSES).meta({ example: 'processing' }),
    progress: z.number().int().min(0).max(100).optional().meta({ description: 'Present while processing.', example: 40 }),
    resultUrls: z.array(z.string()).optional().meta({ description: 'Present when completed; https URLs of the result files.' }),
    errorCode: z.enum(TASK_ERROR_CODES).optional().meta({ description: 'Present when failed; branch on this, not on errorMessage.' }),
    retryable: z.boolean().optional().meta({ description: 'Present when failed.' }),
    errorMessage: z.string().optional().meta({ description: 'Present when failed; human text, not to be branched on.' }),
    type: z.enum(['video', 'image']),
    expiresAt: z
      .string()
      .optional()
      .meta({
        description:
          'Extension. Present when completed and the results expire (absent: kept forever): ISO 8601 instant after which the result files are deleted and each result URL answers 410 `result_expired`. May lie in the past; the task stays completed.',
        example: '2026-02-01T12:00:05.000Z',
      }),
  })
  .meta({ id: 'PollResponse' });

export const balanceResponseSchema = z
  .object({
    balanceCents: z.number().int().meta({ description: 'Account balance in cents.', example: 1250 }),
    topUpUrl: z.string().meta({ description: 'Where the balance can be topped up.', example: 'https://example.com/billing' }),
  })
  .meta({ id: 'BalanceResponse' });

export const errorDetailSchema = z
  .object({
    path: z.string().meta({ description: 'The field as the client wrote it, e.g. media[2].url.', example: 'duration' }),
    message: z.string().meta({ example: 'must be between 1 and 15 seconds at 768p' }),
  })
  .meta({ id: 'ErrorDetail' });

export const errorResponseSchema = z
  .object({
    error: z.string().meta({ description: 'Human text.', example: 'duration: must be between 1 and 15 seconds at 768p' }),
    code: z.enum(ERROR_CODES).meta({ description: 'Stable machine code: branch on this, not on error.', example: 'validation_error' }),
    details: z.array(errorDetailSchema).optional().meta({ description: 'The offending fields, for validation errors.' }),
  })
  .meta({ id: 'ErrorResponse' });

export const insufficientBalanceResponseSchema = z
  .object({
    error: z.string().meta({ example: 'Insufficient balance' }),
    code: z.literal('insufficient_balance'),
    costCents: z.number().int().meta({ description: 'Cost of the request in cents.', example: 4 }),
    balanceCents: z.number().int().meta({ example: 2 }),
    topUpUrl: z.string().meta({ example: 'https://example.com/billing' }),
  })
  .meta({ id: 'InsufficientBalanceResponse' });

export type SubmitResponse = z.infer<typeof submitResponseSchema>;
export type PollResponse = z.infer<typeof pollResponseSchema>;
export type BalanceResponse = z.infer<typeof balanceResponseSchema>;
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
export type InsufficientBalanceResponse = z.infer<typeof insufficientBalanceResponseSchema>;
