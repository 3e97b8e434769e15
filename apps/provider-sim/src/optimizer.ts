// optimize_prompt's language model as the simulator speaks it (under `/optimizer`), in both
// protocols the worker's optimizer speaks (packages/prompt-optimizer):
//   POST /optimizer/openai/v1/chat/completions                   OpenAI-compatible chat completions
//   POST /optimizer/gemini/v1beta/models/{model}:generateContent  the Gemini API
// The answer is deterministic: every reference of the request described under Subjects, the video
// split into two shots (the user's prompt, #sim directives included, in the first one, so the render
// directives still reach the render), and a Sound section. Directives for the failure modes:
//   #sim:optimizer=slow       no answer until the client gives up (the worker's deadline)
//   #sim:optimizer=fail       HTTP 500 in the protocol's error shape
//   #sim:optimizer=refuse     a refusal (OpenAI message.refusal; Gemini promptFeedback.blockReason)
//   #sim:optimizer=malformed  prose instead of the JSON the schema asks for
//   #sim:optimizer=invent     JSON that names <Picture 9>
//   #sim:optimizer-delay=<ms> answer after this long (benchmarks)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, send, sleep } from './sim-http';

type Mode = 'slow' | 'fail' | 'refuse' | 'malformed' | 'invent' | null;

export interface OptimizerSim {
  /** Calls answered per protocol, for tests. */
  calls: { openai: number; gemini: number };
  handle(req: IncomingMessage, res: ServerResponse, rest: string[]): Promise<void>;
}

interface Asked {
  prompt: string;
  pictures: number;
  audios: number;
  seconds: number;
}

const modeOf = (prompt: string): Mode => (/#sim:optimizer=(slow|fail|refuse|malformed|invent)\b/.exec(prompt)?.[1] as Mode) ?? null;
const delayOf = (prompt: string): number => Number(/#sim:optimizer-delay=(\d+)/.exec(prompt)?.[1] ?? 0);
/** The video's length from our instruction ("The video is 5 s long"); 5 when absent. */
const secondsOf = (instruction: string): number => Number(/The video is (\d+(?:\.\d+)?) s long/.exec(instruction)?.[1] ?? 5);

export function structuredAnswer(a: Asked, mode: Mode): Record<string, unknown> {
  const prompt = a.prompt.replace(/#sim:optimizer(?:=[a-z]+|-delay=\d+)/g, '').replace(/\s+/g, ' ').trim();
  const subjects = [
    ...Array.from({ length: a.pictures }, (_, i) => ({ label: `<Picture ${i + 1}>`, description: `the subject shown in reference image ${i + 1}, as it looks there` })),
    ...Array.from({ length: a.audios }, (_, i) => ({ label: `<Audio ${i + 1}>`, description: `the voice heard in reference audio ${i + 1}` })),
  ];
  if (!subjects.length) subjects.push({ label: 'Main subject', description: prompt.slice(0, 200) || 'the scene' });
  const half = Math.round((a.seconds / 2) * 100) / 100;
  const shots =
    a.seconds >= 2
      ? [
          { start: 0, end: half, description: `establishing shot: ${prompt}` },
          { start: half, end: a.seconds, description: 'closer shot of the same action, the camera slowly pushing in' },
        ]
      : [{ start: 0, end: a.seconds, description: prompt }];
  if (mode === 'invent') shots[0] = { ...shots[0], description: `<Picture 9> enters beside ${subjects[0].label}` };
  return {
    subjects,
    shots,
    sound: { voice: a.audios ? 'speaks in the timbre of <Audio 1>' : 'none', music: 'soft ambient score', effects: 'natural ambience of the scene' },
    refusal: null,
  };
}

/** Waits until the client hangs up (its deadline), or two minutes. */
function hang(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, 120_000);
    req.socket.once('close', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

type Part = Record<string, unknown>;
const usage = { input: 1200, output: 180 };

export function createOptimizerSim(latencyMs: number): OptimizerSim {
  const calls = { openai: 0, gemini: 0 };

  async function openai(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) {
    const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: string; content?: unknown }>) : [];
    const system = messages.find((m) => m.role === 'system');
    const user = messages.find((m) => m.role === 'user');
    const parts: Part[] = Array.isArray(user?.content) ? (user!.content as Part[]) : [{ type: 'text', text: String(user?.content ?? '') }];
    const prompt = parts.filter((p) => p.type === 'text').map((p) => String(p.text ?? '')).join('\n');
    const asked = { prompt, pictures: parts.filter((p) => p.type === 'image_url').length, audios: parts.filter((p) => p.type === 'input_audio').length, seconds: secondsOf(String(system?.content ?? '')) };
    const mode = modeOf(prompt);
    await sleep(latencyMs + delayOf(prompt));
    if (mode === 'slow') return hang(req);
    calls.openai += 1;
    if (mode === 'fail') return send(res, 500, { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } });
    const message =
      mode === 'refuse'
        ? { role: 'assistant', content: null, refusal: "I'm sorry, I can't help with that request." }
        : { role: 'assistant', content: mode === 'malformed' ? 'Sure! Here is a more cinematic version of your prompt.' : JSON.stringify(structuredAnswer(asked, mode)), refusal: null };
    send(res, 200, {
      id: `chatcmpl-sim${calls.openai}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: String(body.model ?? ''),
      choices: [{ index: 0, message, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
    });
  }

  async function gemini(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) {
    const contents = Array.isArray(body.contents) ? (body.contents as Array<{ parts?: Part[] }>) : [];
    const parts = contents.flatMap((c) => (Array.isArray(c.parts) ? c.parts : []));
    const media = (p: Part) => ((p.inlineData ?? p.inline_data ?? p.fileData ?? p.file_data) as Record<string, unknown> | undefined);
    const mime = (p: Part) => String(media(p)?.mimeType ?? media(p)?.mime_type ?? '');
    const prompt = parts.filter((p) => typeof p.text === 'string').map((p) => String(p.text)).join('\n');
    const system = ((body.systemInstruction ?? body.system_instruction) as { parts?: Part[] } | undefined)?.parts?.map((p) => String(p.text ?? '')).join('\n') ?? '';
    const asked = { prompt, pictures: parts.filter((p) => mime(p).startsWith('image/')).length, audios: parts.filter((p) => mime(p).startsWith('audio/')).length, seconds: secondsOf(system) };
    const mode = modeOf(prompt);
    await sleep(latencyMs + delayOf(prompt));
    if (mode === 'slow') return hang(req);
    calls.gemini += 1;
    if (mode === 'fail') return send(res, 500, { error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } });
    const usageMetadata = { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output };
    if (mode === 'refuse') return send(res, 200, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata });
    const text = mode === 'malformed' ? 'Sure! Here is a more cinematic version of your prompt.' : JSON.stringify(structuredAnswer(asked, mode));
    send(res, 200, { candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: 'sim-prompt-writer' });
  }

  return {
    calls,
    async handle(req, res, rest) {
      const path = rest.join('/');
      const isOpenAi = req.method === 'POST' && path === 'openai/v1/chat/completions';
      const isGemini = req.method === 'POST' && /^gemini\/v1beta\/models\/[^/]+:generateContent$/.test(path);
      if (!isOpenAi && !isGemini) return send(res, 404, { error: { message: 'No such optimizer route.' } });
      const body = await readJson(req);
      if (!body) return send(res, 400, { error: { message: 'The body is not a JSON object.' } });
      return isOpenAi ? openai(req, res, body) : gemini(req, res, body);
    },
  };
}
