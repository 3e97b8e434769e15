// Channel configuration: which upstream channels exist, which wire protocol each speaks, which
// models each serves, in which order they are tried. Read from the JSON file named by
// PROVIDER_CONFIG, or the built-in default that serves every model from the provider simulator
// (default-channels.ts). The channel schema is a discriminated union on `protocol`: each protocol's
// branch lives in its own folder, so a protocol carries its own settings.
import fs from 'node:fs';
import { z } from 'zod';
import { falChannelSchema } from './fal/fal-config';
import { geminiChannelSchema } from './gemini/gemini-config';
import { httpJobsChannelSchema } from './http-jobs/http-jobs-config';
import { minimaxChannelSchema } from './minimax/minimax-config';
import { modelarkChannelSchema } from './modelark/modelark-config';
import { replicateChannelSchema } from './replicate/replicate-config';

/** Every protocol branch; adapters.ts must have a factory for each (checked by the compiler). */
export const channelUnionSchema = z.discriminatedUnion('protocol', [
  modelarkChannelSchema,
  minimaxChannelSchema,
  geminiChannelSchema,
  falChannelSchema,
  replicateChannelSchema,
  httpJobsChannelSchema,
]);

/** Entries written before protocols existed name none: they spoke the simulator's http-jobs. */
const withDefaultProtocol = (v: unknown): unknown =>
  v && typeof v === 'object' && !Array.isArray(v) && !('protocol' in v) ? { ...v, protocol: 'http-jobs' } : v;

/** One channel entry; `protocol` defaults to http-jobs. */
export const channelSchema = z.preprocess(withDefaultProtocol, channelUnionSchema);

export const channelConfigSchema = z
  .object({ channels: z.array(z.preprocess(withDefaultProtocol, channelSchema)).min(1) })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.channels.forEach((ch, i) => {
      if (seen.has(ch.id)) ctx.addIssue({ code: 'custom', path: ['channels', i, 'id'], message: `duplicate channel id ${ch.id}` });
      seen.add(ch.id);
    });
  });

export type Channel = z.infer<typeof channelUnionSchema>;
export type Protocol = Channel['protocol'];
/** The channel type of one protocol's branch. */
export type ChannelOf<P extends Protocol> = Extract<Channel, { protocol: P }>;
export type ChannelConfig = z.infer<typeof channelConfigSchema>;

/** The protocol names of the schema, read from the union itself (the registry test compares them). */
export const PROTOCOLS: readonly Protocol[] = channelUnionSchema.options.map((o) => o.shape.protocol.value);

export class ChannelConfigError extends Error {}

export interface ParseOptions {
  /** ALLOW_PRIVATE_MEDIA_URLS: channels may use http:// base URLs (development and tests only). */
  allowPrivate?: boolean;
  /** NODE_ENV=production: rules that only production enforces (a Replicate channel's webhookSecret). */
  production?: boolean;
}

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

/** "channels.2.webhookSecret (channel fal-main, field webhookSecret): ..." so an operator finds both. */
function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const path = issue.path.map(String);
  const where = path.join('.');
  let message = issue.message;
  if (path[0] === 'channels' && path.length >= 2) {
    const entry = (raw as { channels?: unknown[] })?.channels?.[Number(path[1])] as { id?: unknown; protocol?: unknown } | undefined;
    const id = typeof entry?.id === 'string' ? entry.id : `#${path[1]}`;
    const field = path.slice(2).join('.') || '(entry)';
    if (issue.code === 'invalid_union' && (field === 'protocol' || field === '(entry)'))
      message = `unknown protocol ${JSON.stringify(entry?.protocol)} (one of: ${PROTOCOLS.join(', ')})`;
    return `  ${where} (channel ${id}, field ${field}): ${message}`;
  }
  return `  ${where || '(file)'}: ${message}`;
}

export function parseChannelConfig(
  raw: unknown,
  env: Record<string, string | undefined> = process.env,
  source = 'channel config',
  opts: ParseOptions = {},
): ChannelConfig {
  const missing = new Set<string>();
  const resolved = interpolate(raw, env, missing);
  if (missing.size) throw new ChannelConfigError(`${source}: environment variables not set: ${[...missing].join(', ')}`);
  const parsed = channelConfigSchema.safeParse(resolved);
  if (!parsed.success) {
    throw new ChannelConfigError(`Invalid ${source}:\n${parsed.error.issues.map((i) => describeIssue(i, resolved)).join('\n')}`);
  }
  if (opts.allowPrivate === false) {
    // Same rule as for reference media: plain http only where private URLs are allowed at all.
    const plain = parsed.data.channels.filter((c) => new URL(c.baseUrl).protocol !== 'https:');
    if (plain.length)
      throw new ChannelConfigError(
        `Invalid ${source}:\n${plain.map((c) => `  channel ${c.id}, field baseUrl: must be https:// unless ALLOW_PRIVATE_MEDIA_URLS is on`).join('\n')}`,
      );
  }
  if (opts.production) {
    // Without the secret, verifying a callback means fetching it from Replicate with our key, which
    // anyone who can reach /hooks/upstream could make us do; a poll-only channel takes no callbacks.
    const unsigned = parsed.data.channels.filter((c) => c.protocol === 'replicate' && c.callbacks !== false && !c.webhookSecret);
    if (unsigned.length)
      throw new ChannelConfigError(
        `Invalid ${source}:\n${unsigned.map((c) => `  channel ${c.id}, field webhookSecret: required in production (the whsec_... secret of GET /v1/webhooks/default/secret), or set "callbacks": false to poll only`).join('\n')}`,
      );
  }
  return parsed.data;
}

export function loadChannelConfigFile(file: string, env: Record<string, string | undefined> = process.env, opts: ParseOptions = {}): ChannelConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ChannelConfigError(`Cannot read PROVIDER_CONFIG ${file}: ${(err as Error).message}`);
  }
  return parseChannelConfig(raw, env, `PROVIDER_CONFIG ${file}`, opts);
}

/**
 * The upstream model name for a task on this channel: the variant's own entry (video-c-3.1
 * variants), else the model's. Undefined when the channel does not serve it.
 */
export function upstreamModelFor(channel: Pick<Channel, 'models'>, model: string, variant?: string | null): string | undefined {
  const own = (k: string) => Object.prototype.hasOwnProperty.call(channel.models, k);
  if (variant && own(variant)) return channel.models[variant];
  return own(model) ? channel.models[model] : undefined;
}
