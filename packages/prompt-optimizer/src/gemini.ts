// The Gemini API's `POST {baseUrl}/models/{model}:generateContent`. Shapes checked against
// googleapis/js-genai (types.ts GenerationConfig, the models converters) and vercel/ai
// packages/google: the instruction as `systemInstruction`, references as `inlineData` parts
// (bytes) or `fileData` parts (a URI), structured output as `generationConfig.responseMimeType:
// application/json` with `responseJsonSchema` (plain JSON Schema, so the one schema serves both
// protocols). The REST API reads camelCase and snake_case names alike; js-genai sends camelCase.
import { z } from 'zod';
import { ANSWER_JSON_SCHEMA, instructionText, OptimizeInput, OptimizerMedia } from './optimizer-request';
import type { OptimizerConfig } from './optimizer-config';
import type { ModelAnswer } from './protocol';

/** finishReasons that mean the model would not answer this prompt (js-genai FinishReason). */
const REFUSING = new Set(['SAFETY', 'RECITATION', 'LANGUAGE', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT']);

const part = (m: OptimizerMedia): Record<string, unknown> =>
  m.bytes
    ? { inlineData: { mimeType: m.mimeType ?? (m.kind === 'image' ? 'image/png' : 'audio/mpeg'), data: m.bytes.toString('base64') } }
    : { fileData: { mimeType: m.mimeType ?? (m.kind === 'image' ? 'image/png' : 'audio/mpeg'), fileUri: m.url } };

export const geminiPath = (c: OptimizerConfig) => `/models/${encodeURIComponent(c.model)}:generateContent`;

export function geminiBody(c: OptimizerConfig, input: OptimizeInput): Record<string, unknown> {
  const parts: Array<Record<string, unknown>> = [{ text: input.prompt }, ...input.pictures.map(part)];
  if (c.audio) parts.push(...input.audios.map(part));
  return {
    systemInstruction: { parts: [{ text: instructionText(input) }] },
    contents: [{ role: 'user', parts }],
    generationConfig: { responseMimeType: 'application/json', responseJsonSchema: ANSWER_JSON_SCHEMA, maxOutputTokens: c.maxTokens },
  };
}

const generateContentSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z.looseObject({ parts: z.array(z.looseObject({ text: z.string().nullish(), thought: z.boolean().nullish() })).nullish() }).nullish(),
        finishReason: z.string().nullish(),
      }),
    )
    .nullish(),
  promptFeedback: z.looseObject({ blockReason: z.string().nullish(), blockReasonMessage: z.string().nullish() }).nullish(),
  usageMetadata: z
    .looseObject({ promptTokenCount: z.number().nullish(), candidatesTokenCount: z.number().nullish(), thoughtsTokenCount: z.number().nullish() })
    .nullish(),
});

export function readGeminiAnswer(body: unknown): ModelAnswer {
  const r = generateContentSchema.safeParse(body);
  if (!r.success) return { kind: 'unparsable', detail: 'the answer is not a generateContent response' };
  const u = r.data.usageMetadata;
  // Thinking tokens are billed as output tokens.
  const usage = { inputTokens: u?.promptTokenCount ?? 0, outputTokens: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0) };
  const blocked = r.data.promptFeedback?.blockReason;
  if (blocked) return { kind: 'refused', detail: `prompt blocked: ${blocked}`, usage };
  const c = r.data.candidates?.[0];
  if (!c) return { kind: 'unparsable', detail: 'the answer has no candidate', usage };
  if (c.finishReason && REFUSING.has(c.finishReason)) return { kind: 'refused', detail: `finishReason ${c.finishReason}`, usage };
  if (c.finishReason === 'MAX_TOKENS') return { kind: 'unparsable', detail: 'the answer was cut at max tokens', usage };
  const text = (c.content?.parts ?? []).filter((p) => !p.thought && p.text).map((p) => p.text).join('');
  if (!text) return { kind: 'unparsable', detail: 'the answer has no text', usage };
  return { kind: 'text', text, usage };
}
