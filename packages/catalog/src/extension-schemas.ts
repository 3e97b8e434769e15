// Response bodies of the extensions beyond the spec (docs/api.md): task listing, cancel, and the
// webhook event body. Like response-schemas.ts, the OpenAPI document is built from these.
import { z } from 'zod';
import { pollResponseSchema } from './response-schemas';

/** optimize_prompt (docs/prompt-format.md): the prompt that went upstream. */
export const effectivePromptSchema = z
  .string()
  .nullable()
  .meta({
    description:
      'The prompt sent upstream: with optimize_prompt, the structured rewrite (or the prompt as written when the rewrite failed); otherwise the prompt as written. Null while the rewrite is pending, or when the task has no prompt.',
    example: 'Subjects:\n- <Picture 1>: a red fox\nShots:\n1. 0-5 s: the fox runs through snow\nSound:\n- Voice: none\n- Music: soft piano\n- Effects: wind',
  });

export const taskListItemSchema = pollResponseSchema
  .extend({
    taskId: z.string().meta({ example: 'tsk_01J9Z3N6K4' }),
    model: z.string().meta({ example: 'video-a-h3' }),
    createdAt: z.string().meta({ description: 'ISO 8601 time the task was created.', example: '2026-01-01T12:00:00.000Z' }),
    effectivePrompt: effectivePromptSchema,
  })
  .meta({ id: 'TaskListItem', description: 'The task\'s poll body plus taskId, model, createdAt and effectivePrompt.' });

export const nextCursorSchema = z
  .string()
  .nullable()
  .meta({ description: 'Pass as `cursor` for the next page; null on the last page. Opaque; stable while tasks are created.', example: 'WyJ0YXNrcyIsIjIwMjYtMDEtMDFUMTI6MDA6MDAuMDAwWiIsInRza18xIl0' });

export const taskListResponseSchema = z
  .object({ data: z.array(taskListItemSchema), nextCursor: nextCursorSchema })
  .meta({ id: 'TaskListResponse' });

export const cancelResponseSchema = pollResponseSchema
  .extend({
    taskId: z.string().meta({ example: 'tsk_01J9Z3N6K4' }),
    cancelRequested: z.literal(true).optional().meta({ description: 'Present (202 only) while the provider is cancelling the render.' }),
  })
  .meta({ id: 'CancelResponse', description: 'The task after the cancel: failed with errorCode cancelled (200), or still processing with cancelRequested (202).' });

export const webhookEventSchema = z
  .object({
    type: z.enum(['task.completed', 'task.failed']),
    timestamp: z.string().meta({ description: 'ISO 8601 time the task settled.', example: '2026-01-01T12:00:05.000Z' }),
    data: pollResponseSchema.extend({ taskId: z.string(), model: z.string(), effectivePrompt: effectivePromptSchema.optional() }),
  })
  .meta({ id: 'WebhookEvent', description: 'Standard Webhooks body; verify webhook-signature before trusting it.' });

export const modelListResponseSchema = z
  .object({
    models: z.array(
      z.object({
        id: z.string().meta({ example: 'image-b-2.5' }),
        type: z.enum(['video', 'image']),
        tiers: z.array(z.enum(['official', 'third-party'])).optional().meta({ description: 'video-b: the tiers sold here.' }),
        variants: z.array(z.string()).optional().meta({ description: 'video-c-3.1: the variants sold here.' }),
      }),
    ),
  })
  .meta({ id: 'ModelListResponse', description: 'The models this deployment sells (SOLD_MODELS), in catalog order.' });

export type ModelListResponse = z.infer<typeof modelListResponseSchema>;
export type TaskListResponse = z.infer<typeof taskListResponseSchema>;
export type CancelResponse = z.infer<typeof cancelResponseSchema>;
export type WebhookEvent = z.infer<typeof webhookEventSchema>;
