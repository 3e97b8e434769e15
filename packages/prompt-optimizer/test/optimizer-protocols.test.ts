// Both optimizer protocols against their recorded answers (src/__fixtures__, source and date in
// each), served by a scripted local server: what we send (checked against the official clients'
// shapes) and what every documented answer becomes. Every failure falls back to the prompt as sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPromptOptimizer, OptimizeInput, parseOptimizerConfig, parseStructuredPrompt } from '../src';

const fixture = (name: string): { status: number; body: unknown } => require(`../src/__fixtures__/${name}.json`);

let answer: (path: string) => { status: number; body: unknown } | 'hang' = () => ({ status: 404, body: {} });
const seen: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any }> = [];
let server: http.Server;
let base = '';
beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    seen.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') });
    const a = answer(req.url ?? '');
    if (a === 'hang') return; // never answers; the caller's deadline ends it
    res.writeHead(a.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(a.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => (seen.length = 0));

const PNG = Buffer.from('89504e470d0a1a0a', 'hex');
const input = (extra: Partial<OptimizeInput> = {}): OptimizeInput => ({
  prompt: 'the fox <Picture 1> runs through the forest <Picture 2>',
  mode: 'omni', durationSeconds: 5, ratio: '16:9',
  pictures: [
    { kind: 'image', url: 'https://cdn.example.com/fox.png', mimeType: 'image/png' },
    { kind: 'image', url: 'https://cdn.example.com/forest.png', mimeType: 'image/png' },
  ],
  audios: [],
  ...extra,
});
const loadBytes = jest.fn(async () => PNG);
const openai = (extra: Record<string, unknown> = {}) =>
  createPromptOptimizer(parseOptimizerConfig({ protocol: 'openai-chat', baseUrl: `${base}/v1`, apiKey: 'sk-test', model: 'gpt-4.1-mini', price: { inputMicroUsdPerMillionTokens: 400_000, outputMicroUsdPerMillionTokens: 1_600_000 }, ...extra }), { loadBytes });
const gemini = (extra: Record<string, unknown> = {}) =>
  createPromptOptimizer(parseOptimizerConfig({ protocol: 'gemini', baseUrl: `${base}/v1beta`, apiKey: 'g-key', model: 'gemini-2.5-flash', price: { inputMicroUsdPerMillionTokens: 300_000, outputMicroUsdPerMillionTokens: 2_500_000 }, ...extra }), { loadBytes });
const deadline = () => AbortSignal.timeout(5_000);

describe('openai-chat', () => {
  it('sends the prompt with image_url parts and a strict json_schema, and sends the checked rewrite', async () => {
    answer = () => fixture('openai-chat-structured');
    const out = await openai().optimize(input(), deadline());
    const sent = seen[0];
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body.model).toBe('gpt-4.1-mini');
    expect(sent.body.max_tokens).toBe(2048);
    expect(sent.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'structured_prompt', strict: true } });
    expect(sent.body.response_format.json_schema.schema.required).toEqual(['subjects', 'shots', 'sound', 'refusal']);
    expect(sent.body.messages[0]).toMatchObject({ role: 'system' });
    expect(sent.body.messages[0].content).toContain('The video is 5 s long');
    expect(sent.body.messages[1].content).toEqual([
      { type: 'text', text: 'the fox <Picture 1> runs through the forest <Picture 2>' },
      { type: 'image_url', image_url: { url: 'https://cdn.example.com/fox.png' } },
      { type: 'image_url', image_url: { url: 'https://cdn.example.com/forest.png' } },
    ]);
    expect(out.optimized).toBe(true);
    expect(parseStructuredPrompt(out.prompt)?.subjects.map((s) => s.label)).toEqual(['<Picture 1>', '<Picture 2>']);
    expect(out.prompt).toContain('1. 0-2 s: wide shot of <Picture 2>');
    // 1412 * 0.4 + 186 * 1.6 = 862.4 micro-USD, rounded up.
    expect(out.costMicroUsd).toBe(863);
  });

  it('sends inline bytes as data URIs when media is inline', async () => {
    answer = () => fixture('openai-chat-structured');
    await openai({ media: 'inline' }).optimize(input(), deadline());
    expect(seen[0].body.messages[1].content[1]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } });
  });

  it.each([
    ['openai-chat-refusal', 'refused', "I'm sorry"],
    ['openai-chat-length', 'unparsable', 'max tokens'],
    ['openai-chat-prose', 'unparsable', 'not JSON'],
    ['openai-chat-invented-refs', 'invalid', '<Picture 9> does not exist'],
    ['openai-chat-429', 'error', 'HTTP 429: Rate limit reached'],
  ])('%s falls back to the prompt as sent (%s)', async (name, reason, detail) => {
    answer = () => fixture(name);
    const out = await openai().optimize(input(), deadline());
    expect(out).toMatchObject({ optimized: false, prompt: input().prompt, reason });
    expect(out.optimized === false && out.detail).toContain(detail);
  });

  it('a hanging optimizer falls back at the deadline', async () => {
    answer = () => 'hang';
    const t0 = Date.now();
    const out = await openai({ timeoutMs: 300 }).optimize(input(), AbortSignal.timeout(300));
    expect(out).toMatchObject({ optimized: false, reason: 'timeout', prompt: input().prompt });
    expect(Date.now() - t0).toBeLessThan(4_000);
  });

  it('a prompt already in the format is used unchanged, with no call', async () => {
    const prompt = 'Subjects:\n- Fox: a red fox\nShots:\n1. 0-5 s: the fox runs\nSound:\n- Voice: none\n- Music: none\n- Effects: wind';
    const out = await openai().optimize(input({ prompt }), deadline());
    expect(out).toMatchObject({ optimized: false, reason: 'already_structured', prompt });
    expect(seen).toHaveLength(0);
  });

  it('a prompt of the maximum length goes out whole and its fallback is the same prompt', async () => {
    answer = () => fixture('openai-chat-prose');
    const prompt = 'a fox in the snow, '.repeat(527).slice(0, 10_000);
    expect(prompt).toHaveLength(10_000);
    const out = await openai().optimize(input({ prompt }), deadline());
    expect(seen[0].body.messages[1].content[0].text).toBe(prompt);
    expect(out).toMatchObject({ optimized: false, reason: 'unparsable', prompt });
  });

  it('an answer naming <Picture 9> with two images falls back', async () => {
    answer = () => fixture('openai-chat-invented-refs');
    const out = await openai().optimize(input({ prompt: 'put <Picture 9> next to <Picture 1>' }), deadline());
    expect(out).toMatchObject({ optimized: false, reason: 'invalid', prompt: 'put <Picture 9> next to <Picture 1>' });
  });

  it('without a configured optimizer, the prompt goes as sent', async () => {
    const out = await createPromptOptimizer(null, { loadBytes }).optimize(input(), deadline());
    expect(out).toMatchObject({ optimized: false, reason: 'not_configured', prompt: input().prompt });
  });
});

describe('gemini', () => {
  it('sends inline_data parts, the instruction as systemInstruction and JSON output with responseJsonSchema', async () => {
    answer = () => fixture('gemini-structured');
    const audio = { kind: 'audio' as const, url: 'https://cdn.example.com/voice.mp3', mimeType: 'audio/mpeg' };
    const out = await gemini().optimize(input({ audios: [audio], prompt: 'the fox <Picture 1> runs through <Picture 2>' }), deadline());
    const sent = seen[0];
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('g-key');
    expect(sent.body.generationConfig).toMatchObject({ responseMimeType: 'application/json', maxOutputTokens: 2048 });
    expect(sent.body.generationConfig.responseJsonSchema.properties.shots.type).toBe('array');
    expect(sent.body.systemInstruction.parts[0].text).toContain('<Audio 1>');
    expect(sent.body.contents[0].parts).toEqual([
      { text: 'the fox <Picture 1> runs through <Picture 2>' },
      { inlineData: { mimeType: 'image/png', data: PNG.toString('base64') } },
      { inlineData: { mimeType: 'image/png', data: PNG.toString('base64') } },
      { inlineData: { mimeType: 'audio/mpeg', data: PNG.toString('base64') } },
    ]);
    // The fixture's answer describes two pictures but not <Audio 1>: not used.
    expect(out).toMatchObject({ optimized: false, reason: 'invalid' });
    expect(out.optimized === false && out.detail).toContain('<Audio 1> is not described under Subjects');
  });

  it('sends file_data parts with the URL when media is url, and uses a checked answer', async () => {
    answer = () => fixture('gemini-thought-then-json');
    const out = await gemini({ media: 'url' }).optimize(input(), deadline());
    expect(seen[0].body.contents[0].parts[1]).toEqual({ fileData: { mimeType: 'image/png', fileUri: 'https://cdn.example.com/fox.png' } });
    expect(out.optimized).toBe(true);
    expect(out.prompt.startsWith('Subjects:\n- <Picture 1>: a red fox')).toBe(true);
    // 1650 * 0.3 + (201 + 244 thinking) * 2.5 = 1607.5 micro-USD, rounded up.
    expect(out.costMicroUsd).toBe(1608);
  });

  it.each([
    ['gemini-prompt-blocked', 'refused', 'PROHIBITED_CONTENT'],
    ['gemini-finish-safety', 'refused', 'SAFETY'],
    ['gemini-max-tokens', 'unparsable', 'max tokens'],
    ['gemini-503', 'error', 'HTTP 503: The model is overloaded'],
  ])('%s falls back to the prompt as sent (%s)', async (name, reason, detail) => {
    answer = () => fixture(name);
    const out = await gemini().optimize(input(), deadline());
    expect(out).toMatchObject({ optimized: false, prompt: input().prompt, reason });
    expect(out.optimized === false && out.detail).toContain(detail);
  });
});

describe('config', () => {
  it('substitutes keys from the environment and refuses a missing one', () => {
    const c = parseOptimizerConfig({ protocol: 'openai-chat', baseUrl: 'https://openrouter.ai/api/v1', apiKey: '${OR_KEY}', model: 'm' }, { OR_KEY: 'k1' });
    expect(c).toMatchObject({ apiKey: 'k1', timeoutMs: 20_000, media: 'url', audio: false });
    expect(() => parseOptimizerConfig({ protocol: 'gemini', baseUrl: 'https://x.test/v1beta', apiKey: '${NOPE}', model: 'm' }, {})).toThrow('environment variables not set: NOPE');
  });

  it('names the field of a bad value and refuses unknown protocols and fields', () => {
    expect(() => parseOptimizerConfig({ protocol: 'anthropic', baseUrl: 'https://x.test', model: 'm' }, {})).toThrow(/protocol/);
    expect(() => parseOptimizerConfig({ protocol: 'gemini', baseUrl: 'https://x.test', model: 'm', timeout: 5 }, {})).toThrow(/timeout/);
    expect(() => parseOptimizerConfig({ protocol: 'gemini', baseUrl: 'http://x.test', model: 'm' }, {}, 'f', { allowPrivate: false })).toThrow('must be https');
  });
});
