// zod schemas of MiniMax's answers (providers.md §5 and corrections 1). v2 answers errors with real
// HTTP statuses and `{type:"error", error:{type, message, http_code}, request_id}`; older endpoints
// answer HTTP 200 with `base_resp.status_code != 0`. Both are read.
import { z } from 'zod';
import { wireNumber } from '../wire-values';

const code = z.union([z.number(), z.string()]).transform((v) => Number(v)).nullish();

export const baseRespSchema = z.object({ status_code: code, status_msg: z.string().nullish() });

export const minimaxErrorSchema = z.object({
  type: z.string().nullish(),
  error: z.object({ type: z.string().nullish(), message: z.string().nullish(), http_code: code }).nullish(),
  base_resp: baseRespSchema.nullish(),
  request_id: z.string().nullish(),
});

/** `POST /v2/video_generation` -> `{task_id, base_resp?}`. */
export const minimaxCreateSchema = z.object({ task_id: z.union([z.string(), z.number()]).transform(String).nullish(), base_resp: baseRespSchema.nullish() });

const taskSchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String).nullish(),
  task_id: z.union([z.string(), z.number()]).transform(String).nullish(),
  model: z.string().nullish(),
  status: z.string(),
  content: z.object({ url: z.string().nullish(), file_id: z.union([z.string(), z.number()]).transform(String).nullish() }).nullish(),
  /** v1 shape: the result is a file to retrieve. */
  file_id: z.union([z.string(), z.number()]).transform(String).nullish(),
  resolution: z.string().nullish(),
  duration: wireNumber,
  ratio: z.string().nullish(),
  usage: z.object({ output_seconds: wireNumber, input_seconds: wireNumber, total_seconds: wireNumber }).nullish(),
  /**
   * `code` is a string in MiniMax's own client (MiniMax-AI/cli src/types/api.ts `VideoV2Task`), a
   * number in vercel/ai's tests: kept as text either way (Number("output_sensitive") would be NaN).
   */
  error: z.object({ code: z.union([z.string(), z.number()]).transform(String).nullish(), message: z.string().nullish() }).nullish(),
});
export type MinimaxTask = z.infer<typeof taskSchema>;

/** `GET /v2/query/video_generation/{id}` -> `{task:{...}}`; a bare v1-style task is accepted too. */
export const minimaxQuerySchema = z.union([
  z.object({ task: taskSchema, base_resp: baseRespSchema.nullish() }),
  taskSchema.extend({ base_resp: baseRespSchema.nullish() }).transform((t) => ({ task: t, base_resp: t.base_resp })),
]);

/** `GET /v1/files/retrieve?file_id=` -> `{file:{file_id, download_url}, base_resp}`. */
export const minimaxFileSchema = z.object({
  file: z.object({ file_id: z.union([z.string(), z.number()]).nullish(), download_url: z.string().nullish() }).nullish(),
  base_resp: baseRespSchema.nullish(),
});
