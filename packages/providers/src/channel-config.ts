// Channel configuration: which upstream channels exist, which models each serves, in which order
// they are tried. Read from the JSON file named by PROVIDER_CONFIG, or the built-in default that
// serves every model from the provider simulator (default-channels.ts).
import fs from 'node:fs';
import { z } from 'zod';

export const channelSchema = z.object({
  /** Stable id, recorded on every TaskAttempt; renaming a channel orphans its running renders. */
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and dashes'),
  /** Wire protocol of the upstream; one adapter per protocol. */
  protocol: z.literal('http-jobs').default('http-jobs'),
  baseUrl: z.string().url(),
  apiKey: z.string().min(1),
  /** video-b tiers (spec 4.1.2). Null for channels of models without tiers. */
  tier: z.enum(['official', 'third-party']).nullable().default(null),
  /** Lower is cheaper and is tried first among the channels of a model. */
  costOrder: z.number().int().min(0),
  /** Our model id -> the model name the upstream expects. */
  models: z.record(z.string().min(1), z.string().min(1)).refine((m) => Object.keys(m).length > 0, 'serves no model'),
  /**
   * Whether this provider says explicitly that content was refused (spec 7.2). Only such channels
   * can produce content_violation; on the others a refusal is an ordinary failed render.
   */
  reportsViolations: z.boolean().default(false),
  /** Renders in flight on this channel across all workers; more wait for a free slot. */
  maxInFlight: z.number().int().positive().default(1000),
  timeouts: z
    .object({
      submitMs: z.number().int().positive().default(30_000),
      pollMs: z.number().int().positive().default(15_000),
      downloadMs: z.number().int().positive().default(300_000),
    })
    .prefault({}),
  /** Poll schedule: first poll after firstMs, then every renderAge/10 clamped to [minMs, maxMs]. */
  poll: z
    .object({
      firstMs: z.number().int().min(0).default(5_000),
      minMs: z.number().int().positive().default(5_000),
      maxMs: z.number().int().positive().default(60_000),
    })
    .prefault({}),
  enabled: z.boolean().default(true),
});

export const channelConfigSchema = z
  .object({ channels: z.array(channelSchema).min(1) })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.channels.forEach((ch, i) => {
      if (seen.has(ch.id)) ctx.addIssue({ code: 'custom', path: ['channels', i, 'id'], message: `duplicate channel id ${ch.id}` });
      seen.add(ch.id);
    });
  });

export type Channel = z.infer<typeof channelSchema>;
export type ChannelConfig = z.infer<typeof channelConfigSchema>;

export class ChannelConfigError extends Error {}

/**
 * Replaces `${NAME}` in string values with environment variables, so keys stay out of the file.
 * A missing variable is an error: a channel with an empty key would only fail later, per task.
 */
function interpolate(value: unknown, env: Record<string, string | undefined>, missing: Set<string>): unknown {
  if (typeof value === 'string')
    return value.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
      const v = env[name];
      if (v === undefined) missing.add(name);
      return v ?? '';
    });
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env, missing));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, missing)]));
  return value;
}

export function parseChannelConfig(raw: unknown, env: Record<string, string | undefined> = process.env, source = 'channel config'): ChannelConfig {
  const missing = new Set<string>();
  const resolved = interpolate(raw, env, missing);
  if (missing.size) throw new ChannelConfigError(`${source}: environment variables not set: ${[...missing].join(', ')}`);
  const parsed = channelConfigSchema.safeParse(resolved);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ChannelConfigError(`Invalid ${source}:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export function loadChannelConfigFile(file: string, env: Record<string, string | undefined> = process.env): ChannelConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ChannelConfigError(`Cannot read PROVIDER_CONFIG ${file}: ${(err as Error).message}`);
  }
  return parseChannelConfig(raw, env, `PROVIDER_CONFIG ${file}`);
}
