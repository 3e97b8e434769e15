// zod schemas of what the Gemini API answers (providers.md sections 2.1 and 3). Every field is
// optional or loose: Google adds fields often, and a missing one must lead to a classified failure,
// never to a parse exception that looks like a network error.
import { z } from 'zod';
import { wireNumber } from '../wire-values';

/** google.rpc.Status as sent in `{error: ...}` envelopes and in finished operations. */
export const googleStatusSchema = z.looseObject({
  code: wireNumber,
  message: z.string().nullish(),
  status: z.string().nullish(),
  details: z.array(z.looseObject({ '@type': z.string().nullish(), retryDelay: z.string().nullish() })).nullish(),
});
export type GoogleStatus = z.infer<typeof googleStatusSchema>;

export const googleErrorEnvelopeSchema = z.looseObject({ error: googleStatusSchema });

const sampleSchema = z.looseObject({
  video: z.looseObject({ uri: z.string().nullish(), encoding: z.string().nullish(), mimeType: z.string().nullish() }).nullish(),
});

const videoResponseSchema = z.looseObject({
  // The wire name is generatedSamples (js-genai, vercel/ai); new-api reads generatedVideos. Both are
  // accepted (providers.md section 10, item 7).
  generatedSamples: z.array(sampleSchema).nullish(),
  generatedVideos: z.array(sampleSchema).nullish(),
  raiMediaFilteredCount: wireNumber,
  raiMediaFilteredReasons: z.array(z.string()).nullish(),
});

/** A long-running operation: submit answer and poll answer alike. */
export const veoOperationSchema = z.looseObject({
  name: z.string().nullish(),
  done: z.boolean().nullish(),
  error: googleStatusSchema.nullish(),
  response: z.looseObject({ generateVideoResponse: videoResponseSchema.nullish() }).nullish(),
});
export type VeoOperation = z.infer<typeof veoOperationSchema>;

const inlineDataSchema = z.looseObject({ mimeType: z.string().nullish(), data: z.string().nullish() });
const partSchema = z.looseObject({
  text: z.string().nullish(),
  inlineData: inlineDataSchema.nullish(),
  // REST answers camelCase; the snake_case spelling appears in some proxies' answers.
  inline_data: z.looseObject({ mime_type: z.string().nullish(), data: z.string().nullish() }).nullish(),
  thought: z.boolean().nullish(),
});

export const generateContentSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z.looseObject({ parts: z.array(partSchema).nullish() }).nullish(),
        finishReason: z.string().nullish(),
      }),
    )
    .nullish(),
  promptFeedback: z.looseObject({ blockReason: z.string().nullish(), blockReasonMessage: z.string().nullish() }).nullish(),
  usageMetadata: z.looseObject({ totalTokenCount: wireNumber, candidatesTokenCount: wireNumber, promptTokenCount: wireNumber }).nullish(),
  responseId: z.string().nullish(),
});
export type GenerateContentResponse = z.infer<typeof generateContentSchema>;
