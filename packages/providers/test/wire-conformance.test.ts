// The service must work "with a config pointing at independent fakes of each
// protocol written from the public documentation, not from this code". Each protocol's documented
// payloads (src/<protocol>/__fixtures__), varied where an independent implementation may differ
// from our simulator without leaving the documentation: numbers we only report written as JSON
// strings (proto3 JSON writes 64-bit integers that way), and status words in another case. Before
// these readers, such an answer failed its schema and was retried as an outage until the deadline.
import fs from 'node:fs';
import path from 'node:path';
import { falStatusSchema } from '../src/fal/fal-schemas';
import { falQueueState } from '../src/fal/fal-status';
import { veoOperationSchema } from '../src/gemini/gemini-schemas';
import { veoStatus } from '../src/gemini/gemini-status';
import { minimaxQuerySchema } from '../src/minimax/minimax-schemas';
import { minimaxStatus, minimaxUsage } from '../src/minimax/minimax-status';
import { seedanceListSchema, seedanceTaskSchema, seedreamAnswerSchema } from '../src/modelark/modelark-schemas';
import { seedanceStatus, seedreamStatus } from '../src/modelark/modelark-status';
import { seedanceOrphans } from '../src/modelark/modelark-orphan';
import { predictionSchema } from '../src/replicate/replicate-schemas';
import { predictionStatus } from '../src/replicate/replicate-status';

const fixture = (protocol: string, name: string): any => {
  const raw = JSON.parse(fs.readFileSync(path.resolve(__dirname, `../src/${protocol}/__fixtures__/${name}.json`), 'utf8'));
  // ModelArk and MiniMax fixtures record the HTTP answer ({status, body}); the others the body alone.
  return raw && typeof raw === 'object' && 'body' in raw && 'status' in raw && typeof raw.status === 'number' ? raw.body : raw;
};
/** Every number at these keys, anywhere in the payload, written as a string. */
const numbersAsStrings = (v: any, keys: string[]): any =>
  Array.isArray(v) ? v.map((x) => numbersAsStrings(x, keys))
    : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, keys.includes(k) && typeof x === 'number' ? String(x) : numbersAsStrings(x, keys)]))
      : v;

describe('modelark', () => {
  it('reads a task whose seed, duration, timestamps and usage are numeric strings', () => {
    const task = numbersAsStrings(fixture('modelark', 'seedance-task-succeeded'), ['seed', 'duration', 'created_at', 'updated_at', 'completion_tokens', 'total_tokens']);
    const parsed = seedanceTaskSchema.parse(task);
    expect(seedanceStatus(parsed, false)).toMatchObject({ state: 'succeeded', usage: { units: 'tokens', amount: 108900 } });
  });

  it('drops a reported number of another type instead of failing the answer', () => {
    const task = { ...fixture('modelark', 'seedance-task-running'), seed: { value: 1 }, usage: { completion_tokens: null } };
    expect(seedanceStatus(seedanceTaskSchema.parse(task), false)).toEqual({ state: 'running', progress: 50 });
  });

  it('finds an orphan in a list whose seeds and times are strings', () => {
    const list = seedanceListSchema.parse(numbersAsStrings(fixture('modelark', 'seedance-list-tasks'), ['seed', 'created_at', 'duration', 'total']));
    expect(seedanceOrphans(list.items ?? [], { seed: 272836131, ownSeed: true, ratio: '9:16', duration: 7, resolution: '480p', since: Date.parse('2026-11-23T04:40:00Z') }))
      .toEqual(['cgt-20261123044210-a1b2c']);
  });

  it('reads Seedream usage written as strings', () => {
    const answer = seedreamAnswerSchema.parse(numbersAsStrings(fixture('modelark', 'seedream-answer-url'), ['created', 'generated_images', 'output_tokens', 'total_tokens']));
    expect(seedreamStatus(answer, false)).toMatchObject({ state: 'succeeded', usage: { units: 'tokens', amount: 14400 } });
  });
});

describe('minimax', () => {
  it('reads output seconds and duration written as strings, and a status in capitals', () => {
    const body = numbersAsStrings(fixture('minimax', 'query-succeeded'), ['duration', 'total_seconds', 'input_seconds', 'output_seconds']);
    body.task.status = 'SUCCEEDED';
    const { task } = minimaxQuerySchema.parse(body);
    expect(minimaxStatus(task, false)).toBe('succeeded');
    expect(minimaxUsage(task, { 'MiniMax-H3': { '2K': 20_000 } })).toEqual({ units: 'seconds', amount: 5, costMicroUsd: 100_000 });
  });
});

describe('gemini', () => {
  const ctx = { reportsViolations: true, baseUrl: 'https://generativelanguage.googleapis.com/v1beta', apiKey: 'k' };
  it('reads raiMediaFilteredCount written as a string as a refusal', () => {
    const raw = numbersAsStrings(fixture('gemini', 'veo-done-rai-filtered'), ['raiMediaFilteredCount']);
    // Without the reasons, only the count says the video was filtered.
    delete raw.response.generateVideoResponse.raiMediaFilteredReasons;
    const s = veoStatus(veoOperationSchema.parse(raw), ctx);
    expect(s.state === 'failed' && s.error.kind).toBe('violation');
  });

  it('reads an operation error whose code is a string', () => {
    const op = veoOperationSchema.parse(numbersAsStrings(fixture('gemini', 'veo-done-error-internal'), ['code']));
    expect(veoStatus(op, ctx)).toMatchObject({ state: 'failed', error: { kind: 'failed' } });
  });
});

describe('fal', () => {
  it.each([['in_progress', 'running'], ['In_Queue', 'running'], ['completed', 'completed']])('reads the queue status %s as %s', (word, expected) => {
    const s = falQueueState(falStatusSchema.parse({ ...fixture('fal', 'fal-status-in-progress'), status: word, queue_position: '3', metrics: { inference_time: '1.5' } }));
    expect(s === 'completed' ? s : s.state).toBe(expected);
  });
});

describe('replicate', () => {
  it('reads a status in capitals and predict_time written as a string', () => {
    const p = predictionSchema.parse(numbersAsStrings({ ...fixture('replicate', 'replicate-prediction-succeeded-video'), status: 'SUCCEEDED' }, ['predict_time']));
    expect(predictionStatus(p, false)).toMatchObject({ state: 'succeeded', usage: { units: 'predict_seconds', amount: 87.9 } });
    expect(predictionStatus({ ...p, status: 'cancelled' }, false)).toMatchObject({ state: 'failed' });
  });
});
