// The fields every channel has, whatever its wire protocol. Each protocol's branch of the channel
// union (`<protocol>/<protocol>-config.ts`) extends this with `protocol: z.literal(...)` and its own
// settings; channel-config.ts joins the branches into one discriminated union.
import { z } from 'zod';

export const channelBaseSchema = z.object({
  /** Stable id, recorded on every TaskAttempt; renaming a channel orphans its running renders. */
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and dashes'),
  /** The base the upstream documents, version path included (`.../api/v3`, `.../v1beta`, `.../v1`). */
  baseUrl: z.string().url(),
  apiKey: z.string().min(1),
  /** video-b tiers. Null for channels of models without tiers. */
  tier: z.enum(['official', 'third-party']).nullable().default(null),
  /** Lower is cheaper and is tried first among the channels of a model. */
  costOrder: z.number().int().min(0),
  /**
   * Our model id -> the model name the upstream expects. For video-c-3.1 the key may be a variant id
   * (`video-c-3.1-pro`); a `video-c-3.1` key serves every variant the channel has no own key for.
   */
  models: z.record(z.string().min(1), z.string().min(1)).refine((m) => Object.keys(m).length > 0, 'serves no model'),
  /**
   * Whether this provider says explicitly that content was refused. Only such channels
   * can produce content_violation; on the others a refusal is an ordinary failed render.
   */
  reportsViolations: z.boolean().default(false),
  /** Renders in flight on this channel across all workers; more wait for a free slot. */
  maxInFlight: z.number().int().positive().default(1000),
  timeouts: z
    .object({
      /** Whole submit call, body included (synchronous upstreams render inside it). */
      submitMs: z.number().int().positive().default(30_000),
      pollMs: z.number().int().positive().default(15_000),
      /** Whole download of all result files of one attempt. */
      downloadMs: z.number().int().positive().default(300_000),
    })
    .prefault({}),
  /**
   * Largest JSON answer read from this upstream (decompressed). Synchronous image upstreams answer
   * with base64 images inline (a 4K PNG is ~20 MB as base64), hence the generous default.
   */
  maxResponseBytes: z.number().int().positive().default(64 * 1024 * 1024),
  /** Poll schedule: first poll after firstMs, then every renderAge/10 clamped to [minMs, maxMs]. */
  poll: z
    .object({
      firstMs: z.number().int().min(0).default(5_000),
      minMs: z.number().int().positive().default(5_000),
      maxMs: z.number().int().positive().default(60_000),
      /**
       * Status calls per second the upstream allows this channel (all workers together), when it
       * limits them: each render then waits at least its share, renders in flight / maxPerSecond,
       * which wins over the age-based delay and over maxMs (docs/workers-and-channels.md).
       */
      maxPerSecond: z.number().positive().optional(),
    })
    .prefault({}),
  enabled: z.boolean().default(true),
});
