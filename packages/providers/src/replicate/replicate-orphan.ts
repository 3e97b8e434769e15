// Finding a prediction whose create answer was lost (Replicate HTTP API "List predictions":
// `GET /v1/predictions`, newest first, 100 per page, `{next, previous, results}` with `next` a full
// URL; each result is a prediction with its `input`, `model`, `version`, `source`, `created_at`).
// Whether a listed prediction carries its `webhook` is not documented (the JS client's type has it
// optional): when it does, our webhook URL (per task, with its token) names the prediction; when it
// does not, the model and the input we sent do, and only a single match is taken (another task
// with the same input may be rendering). API predictions keep their input for an hour, longer than
// any orphan search waits.
import { z } from 'zod';
import { sameFields } from '../orphan-search';

export const listedPredictionSchema = z.looseObject({
  id: z.string().min(1),
  created_at: z.string().nullish(),
  model: z.string().nullish(),
  version: z.string().nullish(),
  source: z.string().nullish(),
  input: z.unknown().optional(),
  webhook: z.string().nullish(),
});
export type ListedPrediction = z.infer<typeof listedPredictionSchema>;

export const predictionPageSchema = z.looseObject({
  results: z.array(z.unknown()),
  next: z.string().nullish(),
});

export interface PredictionOrphanQuery {
  /** `owner/name` of the official-model route, or the version id of `POST /predictions`. */
  model: string;
  version?: string;
  input: Record<string, unknown>;
  /** Our webhook URL for the task, when the prediction was created with one. */
  webhook?: string;
  /** Epoch ms: predictions created before cannot be this attempt's. */
  since: number;
}

export type OrphanMatch = 'webhook' | 'input' | null;

export function predictionOrphanMatch(p: ListedPrediction, q: PredictionOrphanQuery): OrphanMatch {
  if (p.source && p.source !== 'api') return null;
  const created = p.created_at ? Date.parse(p.created_at) : NaN;
  if (Number.isFinite(created) && created < q.since) return null;
  if (p.webhook && q.webhook) return p.webhook === q.webhook ? 'webhook' : null;
  if (q.version) {
    if (p.version && p.version !== q.version) return null;
  } else if (p.model && p.model !== q.model) return null;
  return sameFields(q.input, p.input) ? 'input' : null;
}

/** Whether every prediction of a page is older than the window: the next pages are older still. */
export function predictionsBefore(results: readonly unknown[], since: number): boolean {
  if (!results.length) return true;
  return results.every((r) => {
    const p = listedPredictionSchema.safeParse(r);
    const t = p.success && p.data.created_at ? Date.parse(p.data.created_at) : NaN;
    return Number.isFinite(t) && t < since;
  });
}
