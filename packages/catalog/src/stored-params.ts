// The task's `params` column: the validated, normalized request (a TaskSpec) plus the output length
// the task was priced for, as the gateway stored it. The worker parses it with this schema instead
// of casting, so a row written by an older or newer release, or edited by hand, fails loudly.
// Unknown keys are kept: a newer gateway may store fields this worker does not use yet.
import { z } from 'zod';
import type { ImageTaskSpec, MediaRef, TaskSpec, VideoTaskSpec } from './types';

const mediaRefSchema = z.looseObject({
  kind: z.enum(['image', 'video', 'audio']),
  path: z.string(),
  source: z.enum(['url', 'inline']),
  url: z.string(),
  mime: z.string().optional(),
  inlineBytes: z.number().optional(),
  role: z.enum(['reference', 'first_frame', 'last_frame']),
}) satisfies z.ZodType<MediaRef>;

const outputSeconds = { outputSeconds: z.number().nullable().optional() };

const videoParamsSchema = z.looseObject({
  type: z.literal('video'),
  model: z.string().min(1),
  requestedModel: z.string().optional(),
  prompt: z.string().nullable(),
  duration: z.number().nullable(),
  ratio: z.string(),
  resolution: z.string().nullable(),
  tier: z.enum(['official', 'third-party']).nullable(),
  variant: z.string().nullable(),
  refMode: z.enum(['omni', 'first-last', 'okay', 'lip-sync']).nullable(),
  effort: z.enum(['1x', '1.5x', '2x']).nullable(),
  seed: z.number().nullable(),
  optimizePrompt: z.boolean().nullable(),
  media: z.array(mediaRefSchema),
  firstFrame: mediaRefSchema.nullable(),
  lastFrame: mediaRefSchema.nullable(),
  ...outputSeconds,
}) satisfies z.ZodType<VideoTaskSpec>;

const imageParamsSchema = z.looseObject({
  type: z.literal('image'),
  model: z.string().min(1),
  prompt: z.string(),
  ratio: z.string(),
  resolution: z.string().nullable(),
  images: z.array(mediaRefSchema),
  ...outputSeconds,
}) satisfies z.ZodType<ImageTaskSpec>;

export const storedTaskParamsSchema = z.discriminatedUnion('type', [videoParamsSchema, imageParamsSchema]);

export type StoredTaskParams = TaskSpec & { outputSeconds?: number | null };

/** The stored params of a task, or the zod error that says which field is wrong. */
export function parseStoredTaskParams(params: unknown): { ok: true; params: StoredTaskParams } | { ok: false; error: string } {
  const r = storedTaskParamsSchema.safeParse(params);
  return r.success ? { ok: true, params: r.data } : { ok: false, error: z.prettifyError(r.error) };
}
