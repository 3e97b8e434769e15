// zod schemas of ModelArk's answers (providers.md §1.3-1.6, §4). Only the fields we act on are
// required; everything else is optional and passed through, so a field the upstream adds or drops
// does not break a running render.
import { z } from 'zod';
import { wireNumber } from '../wire-values';

const errorObject = z.object({
  code: z.union([z.string(), z.number()]).transform(String).nullish(),
  message: z.string().nullish(),
  param: z.string().nullish(),
  type: z.string().nullish(),
});

/** The error envelope of every non-2xx answer: `{"error":{"code","message","param","type"}}`. */
export const modelarkErrorSchema = z.object({ error: errorObject.nullish(), message: z.string().nullish() });

/** `POST /contents/generations/tasks` -> `{"id":"cgt-..."}`. */
export const seedanceCreateSchema = z.object({ id: z.string().min(1) });

/** `GET /contents/generations/tasks/{id}`; also the body of a callback. */
export const seedanceTaskSchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  status: z.string(),
  error: errorObject.nullish(),
  content: z.object({ video_url: z.string().nullish(), last_frame_url: z.string().nullish() }).nullish(),
  usage: z.object({ completion_tokens: wireNumber, total_tokens: wireNumber }).nullish(),
  seed: wireNumber,
  resolution: z.string().nullish(),
  ratio: z.string().nullish(),
  duration: wireNumber,
  created_at: wireNumber,
  updated_at: wireNumber,
});
export type SeedanceTask = z.infer<typeof seedanceTaskSchema>;

/** `GET /contents/generations/tasks?page_num&page_size&filter.model` -> `{items: [task...], total}`. */
export const seedanceListSchema = z.object({
  items: z.array(z.unknown()).nullish(),
  total: wireNumber,
});

/** `POST /images/generations`: one entry per image, each a file or its own error (group mode). */
export const seedreamAnswerSchema = z.object({
  model: z.string().nullish(),
  created: wireNumber,
  data: z
    .array(
      z.object({
        url: z.string().nullish(),
        b64_json: z.string().nullish(),
        size: z.string().nullish(),
        error: errorObject.nullish(),
      }),
    )
    .nullish(),
  usage: z.object({ generated_images: wireNumber, output_tokens: wireNumber, total_tokens: wireNumber }).nullish(),
  error: errorObject.nullish(),
});
export type SeedreamAnswer = z.infer<typeof seedreamAnswerSchema>;
