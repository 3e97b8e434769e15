// What we ask the language model, protocol-neutral: the instruction, the JSON schema of the answer
// (structured output on both protocols), and the checks an answer goes through before it is used.
import { z } from 'zod';
import { checkStructuredPrompt, PromptFrame, renderStructuredPrompt, StructuredPrompt } from './structured-prompt';

/** A reference file as the optimizer receives it: its public URL, or its bytes (media `inline`). */
export type OptimizerMedia = { kind: 'image' | 'audio'; url: string; mimeType?: string; bytes?: Buffer };

export interface OptimizeInput {
  prompt: string;
  /** video-a-h3 ref_mode (omni, first-last, okay, lip-sync). */
  mode: string;
  durationSeconds: number;
  ratio: string;
  /** `<Picture N>` is pictures[N-1]; `<Audio N>` is audios[N-1]. */
  pictures: OptimizerMedia[];
  audios: OptimizerMedia[];
}

/** Longest rewrite we send upstream: the request limit for prompts (catalog MAX_PROMPT_CHARS). */
export const MAX_REWRITE_CHARS = 10_000;

/**
 * The answer's JSON schema. Written for OpenAI strict mode (every property required, no extra
 * properties), which Gemini's responseJsonSchema takes as it is. `refusal` lets a model that will not
 * rewrite say so in the structure instead of in prose.
 */
export const ANSWER_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['subjects', 'shots', 'sound', 'refusal'],
  properties: {
    subjects: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['label', 'description'],
        properties: {
          label: { type: 'string', description: '"<Picture N>", "<Audio N>", or a short name for a subject without a reference' },
          description: { type: 'string' },
        },
      },
    },
    shots: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['start', 'end', 'description'],
        properties: { start: { type: 'number' }, end: { type: 'number' }, description: { type: 'string' } },
      },
    },
    sound: {
      type: 'object',
      additionalProperties: false,
      required: ['voice', 'music', 'effects'],
      properties: { voice: { type: 'string' }, music: { type: 'string' }, effects: { type: 'string' } },
    },
    refusal: { type: ['string', 'null'], description: 'why the prompt cannot be rewritten; null otherwise' },
  },
} as const;

const answerSchema = z.object({
  subjects: z.array(z.object({ label: z.string(), description: z.string() })),
  shots: z.array(z.object({ start: z.number(), end: z.number(), description: z.string() })),
  sound: z.object({ voice: z.string(), music: z.string(), effects: z.string() }),
  refusal: z.string().nullish(),
});

export function instructionText(input: OptimizeInput): string {
  const refs = [
    input.pictures.length ? `${input.pictures.length} image(s), <Picture 1> to <Picture ${input.pictures.length}>, attached in that order` : 'no images',
    input.audios.length ? `${input.audios.length} audio clip(s), <Audio 1> to <Audio ${input.audios.length}>${input.audios.some((a) => a.bytes || a.url) ? ', attached after the images' : ''}` : 'no audio',
  ].join('; ');
  return [
    'You rewrite prompts for a text-to-video model into a structured shot list. Answer with JSON only, matching the schema.',
    `The video is ${input.durationSeconds} s long, ratio ${input.ratio}, reference mode ${input.mode}. References: ${refs}.`,
    'subjects: every reference of the request, labelled exactly "<Picture N>" or "<Audio N>", with what it shows or sounds like; other recurring subjects may have a short name as label.',
    `shots: in order, numbered by position, each with start and end in seconds (0 <= start < end <= ${input.durationSeconds}, no overlaps), camera and action.`,
    'sound: voice (who speaks, what, and which <Audio N> gives the timbre), music and effects; write "none" where there is none.',
    'Only name references that exist. Keep the user\'s intent, names, quoted speech and any words starting with "#" unchanged. Do not invent references.',
    'If you must not rewrite the prompt, give empty lists and put the reason in refusal.',
  ].join('\n');
}

export type AnswerCheck =
  | { ok: true; prompt: string; structured: StructuredPrompt }
  | { ok: false; reason: 'refused' | 'unparsable' | 'invalid'; detail: string };

/** The model's text (its JSON answer) as the prompt to send, or why it cannot be used. */
export function checkAnswer(text: string, frame: PromptFrame): AnswerCheck {
  let json: unknown;
  try {
    json = JSON.parse(text.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return { ok: false, reason: 'unparsable', detail: `the answer is not JSON: ${JSON.stringify(text.slice(0, 120))}` };
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: 'unparsable', detail: `the answer does not match the schema: ${z.prettifyError(parsed.error).slice(0, 300)}` };
  const a = parsed.data;
  if (a.refusal && a.refusal.trim()) return { ok: false, reason: 'refused', detail: a.refusal.slice(0, 300) };
  const structured: StructuredPrompt = { subjects: a.subjects, shots: a.shots, sound: a.sound };
  const problems = checkStructuredPrompt(structured, frame);
  if (problems.length) return { ok: false, reason: 'invalid', detail: problems.slice(0, 5).join('; ') };
  const prompt = renderStructuredPrompt(structured);
  if (prompt.length > MAX_REWRITE_CHARS) return { ok: false, reason: 'invalid', detail: `the rewrite is ${prompt.length} characters, over ${MAX_REWRITE_CHARS}` };
  return { ok: true, prompt, structured };
}
