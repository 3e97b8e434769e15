// The prompt optimizer's settings: the JSON file named by PROMPT_OPTIMIZER (docs/prompt-format.md),
// with `${ENV}` substitution so keys stay out of the file, as for channels. Unset in development
// (no PROVIDER_CONFIG): the provider simulator's optimizer, so `npm start` runs the whole path
// offline; `off` (or unset elsewhere): no optimizer, optimize_prompt sends the prompt as written.
import fs from 'node:fs';
import { z } from 'zod';

export const OPTIMIZER_PROTOCOLS = ['openai-chat', 'gemini'] as const;
export type OptimizerProtocol = (typeof OPTIMIZER_PROTOCOLS)[number];

export const optimizerConfigSchema = z.strictObject({
  protocol: z.enum(OPTIMIZER_PROTOCOLS),
  /** As the upstream documents it, version included: `https://api.openai.com/v1`, `https://generativelanguage.googleapis.com/v1beta`. */
  baseUrl: z.url(),
  /** `${ENV}` substitution; empty for keyless local servers (Ollama, vLLM). */
  apiKey: z.string().default(''),
  model: z.string().min(1),
  /** The whole rewrite's deadline, reference bytes included; past it the prompt goes as sent. */
  timeoutMs: z.number().int().min(100).max(120_000).default(20_000),
  maxTokens: z.number().int().min(256).max(32_768).default(2_048),
  /**
   * How references reach the model: `url` (image parts carry the task's reference URL; the model's
   * host fetches it) or `inline` (we fetch the bytes under the media URL policy and send them).
   * Default: url for openai-chat, inline for gemini (the Gemini API fetches no arbitrary URLs).
   */
  media: z.enum(['url', 'inline']).optional(),
  /** Whether the model takes audio (openai-chat: `input_audio`, inline only; gemini: always true). */
  audio: z.boolean().optional(),
  /** What a call costs us, in integer micro-USD per million tokens (no floats in money). */
  price: z
    .strictObject({ inputMicroUsdPerMillionTokens: z.number().int().min(0), outputMicroUsdPerMillionTokens: z.number().int().min(0) })
    .default({ inputMicroUsdPerMillionTokens: 0, outputMicroUsdPerMillionTokens: 0 }),
  /** Extra request headers (OpenRouter's `HTTP-Referer`, a proxy's tenant header). */
  headers: z.record(z.string(), z.string()).default({}),
  maxResponseBytes: z.number().int().positive().default(1 << 20),
});

export type OptimizerConfig = z.infer<typeof optimizerConfigSchema> & { media: 'url' | 'inline'; audio: boolean };

export class OptimizerConfigError extends Error {}

function interpolate(value: unknown, env: Record<string, string | undefined>, missing: Set<string>): unknown {
  if (typeof value === 'string') return value.replace(/\$\{([A-Z0-9_]+)\}/g, (_, n: string) => (env[n] ?? (missing.add(n), '')));
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env, missing));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, missing)]));
  return value;
}

export function parseOptimizerConfig(raw: unknown, env: Record<string, string | undefined> = process.env, source = 'optimizer config', opts: { allowPrivate?: boolean } = {}): OptimizerConfig {
  const missing = new Set<string>();
  const resolved = interpolate(raw, env, missing);
  if (missing.size) throw new OptimizerConfigError(`${source}: environment variables not set: ${[...missing].join(', ')}`);
  const r = optimizerConfigSchema.safeParse(resolved);
  if (!r.success) throw new OptimizerConfigError(`Invalid ${source}:\n${r.error.issues.map((i) => `  ${i.path.join('.') || '(file)'}: ${i.message}`).join('\n')}`);
  if (opts.allowPrivate === false && new URL(r.data.baseUrl).protocol !== 'https:')
    throw new OptimizerConfigError(`Invalid ${source}:\n  baseUrl: must be https:// unless ALLOW_PRIVATE_MEDIA_URLS is on`);
  const c = r.data;
  return { ...c, media: c.media ?? (c.protocol === 'gemini' ? 'inline' : 'url'), audio: c.protocol === 'gemini' ? c.audio ?? true : (c.audio ?? false) };
}

/** The simulator's optimizer (apps/provider-sim optimizer.ts), the development default. */
export const simOptimizerConfig = (simBaseUrl: string): OptimizerConfig =>
  parseOptimizerConfig({ protocol: 'openai-chat', baseUrl: `${simBaseUrl.replace(/\/+$/, '')}/optimizer/openai/v1`, apiKey: 'sim-optimizer-key', model: 'sim-prompt-writer', price: { inputMicroUsdPerMillionTokens: 400_000, outputMicroUsdPerMillionTokens: 1_600_000 } });

export interface OptimizerSettings {
  PROMPT_OPTIMIZER?: string;
  PROVIDER_CONFIG?: string;
  NODE_ENV: string;
  SIM_PORT: number;
  SIM_BASE_URL?: string;
  ALLOW_PRIVATE_MEDIA_URLS?: boolean;
}

/** The deployment's optimizer, or null when optimize_prompt falls back to the prompt as sent. */
export function loadOptimizerConfig(s: OptimizerSettings, env: Record<string, string | undefined> = process.env): OptimizerConfig | null {
  const v = s.PROMPT_OPTIMIZER?.trim();
  if (v === 'off') return null;
  const sim = s.SIM_BASE_URL ?? `http://127.0.0.1:${s.SIM_PORT}`;
  if (v === 'sim') return simOptimizerConfig(sim);
  if (v) {
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(v, 'utf8'));
    } catch (err) {
      throw new OptimizerConfigError(`Cannot read PROMPT_OPTIMIZER ${v}: ${(err as Error).message}`);
    }
    return parseOptimizerConfig(raw, env, `PROMPT_OPTIMIZER ${v}`, { allowPrivate: s.ALLOW_PRIVATE_MEDIA_URLS ?? true });
  }
  // Like the default channels: the simulator only where the simulator serves the renders too.
  return s.NODE_ENV !== 'production' && !s.PROVIDER_CONFIG ? simOptimizerConfig(sim) : null;
}

/** One line for start-up logs: which optimizer, or that optimize_prompt falls back. */
export function describeOptimizer(c: OptimizerConfig | null): string {
  return c
    ? `prompt optimizer: ${c.model} over ${c.protocol} at ${c.baseUrl}`
    : 'prompt optimizer: none configured (PROMPT_OPTIMIZER); optimize_prompt falls back to the prompt as sent';
}
