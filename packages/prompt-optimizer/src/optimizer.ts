// The prompt optimizer behind one small interface: given the prompt, its references and the video's
// frame, it answers the prompt to send and how it got it. It never throws: every failure (deadline,
// HTTP error, refusal, an answer that does not parse or check) is an outcome whose prompt is the
// original, because the spec lets a failed rewrite fall back and never fail the task.
import axios, { AxiosError } from 'axios';
import { geminiBody, geminiPath, readGeminiAnswer } from './gemini';
import { openAiChatBody, readOpenAiChatAnswer } from './openai-chat';
import type { OptimizerConfig } from './optimizer-config';
import { checkAnswer, OptimizeInput, OptimizerMedia } from './optimizer-request';
import type { ModelAnswer, TokenUsage } from './protocol';
import { parseStructuredPrompt } from './structured-prompt';

/** Why the prompt went as sent (the fallback reason operators see; `already_structured` is no failure). */
export type FallbackReason = 'already_structured' | 'not_configured' | 'timeout' | 'error' | 'refused' | 'unparsable' | 'invalid';

export type OptimizeOutcome =
  | { optimized: true; prompt: string; usage: TokenUsage; costMicroUsd: number; ms: number }
  | { optimized: false; prompt: string; reason: FallbackReason; detail: string; usage?: TokenUsage; costMicroUsd: number; ms: number };

export interface PromptOptimizer {
  readonly config: OptimizerConfig | null;
  optimize(input: OptimizeInput, signal: AbortSignal): Promise<OptimizeOutcome>;
  close(): void;
}

export interface OptimizerDeps {
  /** The bytes of a reference (media `inline`), fetched under the media URL policy. */
  loadBytes(m: OptimizerMedia, signal: AbortSignal): Promise<Buffer>;
}

/** Integer micro-USD, rounded up, from integer prices per million tokens. */
export function costMicroUsd(c: OptimizerConfig, u: TokenUsage): number {
  const micros = BigInt(u.inputTokens) * BigInt(c.price.inputMicroUsdPerMillionTokens) + BigInt(u.outputTokens) * BigInt(c.price.outputMicroUsdPerMillionTokens);
  return Number((micros + 999_999n) / 1_000_000n);
}

const frameOf = (input: OptimizeInput) => ({ pictures: input.pictures.length, audios: input.audios.length, durationSeconds: input.durationSeconds });

export function createPromptOptimizer(config: OptimizerConfig | null, deps: OptimizerDeps): PromptOptimizer {
  const client = config
    ? axios.create({
        baseURL: config.baseUrl.replace(/\/+$/, ''),
        headers: {
          ...config.headers,
          ...(config.apiKey ? (config.protocol === 'gemini' ? { 'x-goog-api-key': config.apiKey } : { Authorization: `Bearer ${config.apiKey}` }) : {}),
        },
        maxRedirects: 0,
        maxContentLength: config.maxResponseBytes,
        maxBodyLength: 64 * 1024 * 1024,
      })
    : null;

  async function withBytes(list: OptimizerMedia[], signal: AbortSignal): Promise<OptimizerMedia[]> {
    if (config?.media !== 'inline') return list;
    return Promise.all(list.map(async (m) => ({ ...m, bytes: m.bytes ?? (await deps.loadBytes(m, signal)) })));
  }

  async function ask(c: OptimizerConfig, input: OptimizeInput, signal: AbortSignal): Promise<ModelAnswer> {
    const pictures = await withBytes(input.pictures, signal);
    const audios = c.audio ? await withBytes(input.audios, signal) : input.audios;
    const full = { ...input, pictures, audios };
    const res =
      c.protocol === 'gemini'
        ? await client!.post(geminiPath(c), geminiBody(c, full), { signal })
        : await client!.post('/chat/completions', openAiChatBody(c, full), { signal });
    return c.protocol === 'gemini' ? readGeminiAnswer(res.data) : readOpenAiChatAnswer(res.data);
  }

  return {
    config,
    async optimize(input, signal) {
      const started = Date.now();
      const fallback = (reason: FallbackReason, detail: string, usage?: TokenUsage): OptimizeOutcome => ({
        optimized: false, prompt: input.prompt, reason, detail, usage, costMicroUsd: config && usage ? costMicroUsd(config, usage) : 0, ms: Date.now() - started,
      });
      // Already in our format: used unchanged, no model call.
      if (parseStructuredPrompt(input.prompt)) return fallback('already_structured', 'the prompt is already in the structured format');
      if (!config || !client) return fallback('not_configured', 'no prompt optimizer is configured (PROMPT_OPTIMIZER)');
      let answer: ModelAnswer;
      try {
        answer = await ask(config, input, signal);
      } catch (err) {
        if (signal.aborted) return fallback('timeout', `no answer within ${config.timeoutMs} ms`);
        return fallback('error', errorText(err));
      }
      if (answer.kind !== 'text') return fallback(answer.kind, answer.detail, answer.usage);
      const checked = checkAnswer(answer.text, frameOf(input));
      if (!checked.ok) return fallback(checked.reason, checked.detail, answer.usage);
      return { optimized: true, prompt: checked.prompt, usage: answer.usage, costMicroUsd: costMicroUsd(config, answer.usage), ms: Date.now() - started };
    },
    close() {},
  };
}

function errorText(err: unknown): string {
  if (err instanceof AxiosError && err.response) {
    const data = err.response.data as { error?: { message?: unknown } | string } | undefined;
    const msg = typeof data?.error === 'string' ? data.error : typeof data?.error?.message === 'string' ? data.error.message : '';
    return `HTTP ${err.response.status}${msg ? `: ${msg.slice(0, 200)}` : ''}`;
  }
  return ((err as Error)?.message ?? String(err)).slice(0, 200);
}
