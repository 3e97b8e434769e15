// The OpenAI-compatible chat completions protocol (`POST {baseUrl}/chat/completions`), as OpenAI,
// OpenRouter, vLLM and Ollama speak it. Shapes checked against openai/openai-node and vercel/ai
// packages/openai (convert-to-openai-chat-messages.ts, openai-chat-api.ts): images as `image_url`
// parts (a URL or a data URI), audio as `input_audio` (base64, wav or mp3 only), structured output
// as `response_format: {type: "json_schema", json_schema: {name, strict, schema}}`.
import { z } from 'zod';
import { ANSWER_JSON_SCHEMA, instructionText, OptimizeInput, OptimizerMedia } from './optimizer-request';
import type { OptimizerConfig } from './optimizer-config';
import type { ModelAnswer } from './protocol';

/** OpenAI's own API refuses `max_tokens` on its reasoning models; the compatible servers know only `max_tokens`. */
const isOpenAi = (baseUrl: string) => new URL(baseUrl).hostname === 'api.openai.com';

const audioFormat = (m: OptimizerMedia): 'mp3' | 'wav' | null =>
  /mpeg|mp3/.test(m.mimeType ?? '') ? 'mp3' : /wav/.test(m.mimeType ?? '') ? 'wav' : null;

export function openAiChatBody(c: OptimizerConfig, input: OptimizeInput): Record<string, unknown> {
  const parts: Array<Record<string, unknown>> = [{ type: 'text', text: input.prompt }];
  for (const p of input.pictures)
    parts.push({ type: 'image_url', image_url: { url: p.bytes ? `data:${p.mimeType ?? 'image/png'};base64,${p.bytes.toString('base64')}` : p.url } });
  if (c.audio)
    for (const a of input.audios) {
      const format = audioFormat(a);
      // input_audio takes bytes only, and only these two formats; other clips are described by the prompt alone.
      if (a.bytes && format) parts.push({ type: 'input_audio', input_audio: { data: a.bytes.toString('base64'), format } });
    }
  return {
    model: c.model,
    messages: [
      { role: 'system', content: instructionText(input) },
      { role: 'user', content: parts },
    ],
    [isOpenAi(c.baseUrl) ? 'max_completion_tokens' : 'max_tokens']: c.maxTokens,
    response_format: { type: 'json_schema', json_schema: { name: 'structured_prompt', strict: true, schema: ANSWER_JSON_SCHEMA } },
  };
}

const chatCompletionSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({ content: z.string().nullish(), refusal: z.string().nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z.looseObject({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() }).nullish(),
});

export function readOpenAiChatAnswer(body: unknown): ModelAnswer {
  const r = chatCompletionSchema.safeParse(body);
  if (!r.success) return { kind: 'unparsable', detail: 'the answer is not a chat completion' };
  const usage = { inputTokens: r.data.usage?.prompt_tokens ?? 0, outputTokens: r.data.usage?.completion_tokens ?? 0 };
  const choice = r.data.choices?.[0];
  if (!choice?.message) return { kind: 'unparsable', detail: 'the chat completion has no choice', usage };
  if (choice.message.refusal) return { kind: 'refused', detail: choice.message.refusal.slice(0, 300), usage };
  if (choice.finish_reason === 'content_filter') return { kind: 'refused', detail: 'finish_reason content_filter', usage };
  if (choice.finish_reason === 'length') return { kind: 'unparsable', detail: 'the answer was cut at max tokens', usage };
  if (!choice.message.content) return { kind: 'unparsable', detail: 'the answer is empty', usage };
  return { kind: 'text', text: choice.message.content, usage };
}
