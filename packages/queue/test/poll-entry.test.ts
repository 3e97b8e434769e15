// The poll cache entry codec (src/poll-entry.ts): what a writer encodes every reader decodes with the
// same fields and the same body bytes, the wire form older processes read is kept, and an entry
// that does not match the schema is refused rather than answered.
import { decodePollEntry, decodeTaskEvent, encodePollEntry, encodeTaskEvent, pollEntryOf, settledPollEntryOf, toPollEntry } from '../src';
import { pollBody } from '@mediagen/catalog';

const row = { type: 'video' as const, progress: 100, resultUrls: ['https://cdn.example/r/0.mp4'], errorCode: null, errorMessage: null, retryable: null, expiresAt: new Date('2026-12-01T00:00:00Z') };
const bodies = {
  pending: pollBody({ ...row, status: 'pending' }),
  processing: pollBody({ ...row, status: 'processing', progress: 40 }),
  completed: pollBody({ ...row, status: 'completed' }),
  completedKeptForever: pollBody({ ...row, status: 'completed', expiresAt: null }),
  failed: pollBody({ ...row, status: 'failed', errorCode: 'timeout', errorMessage: 'took too long', retryable: true }),
};

describe('the poll cache entry codec', () => {
  it.each(Object.entries(bodies))('round-trips the %s body of catalog pollBody, keeping its bytes', (_name, body) => {
    const entry = toPollEntry('acc_1', 'video', body);
    expect(entry).toEqual({ accountId: 'acc_1', type: 'video', body });
    const stored = encodePollEntry(entry);
    // The short wire form mixed versions share.
    expect(JSON.parse(stored)).toEqual({ a: 'acc_1', t: 'video', b: body });
    const back = decodePollEntry(stored)!;
    expect(back).toEqual(entry);
    // Same key order, so every gateway answers the same body and ETag for one entry.
    expect(JSON.stringify(back.body)).toBe(JSON.stringify(body));
  });

  it('keeps fields a newer writer adds, in their place', () => {
    const stored = JSON.stringify({ a: 'acc_1', t: 'image', b: { status: 'processing', progress: 5, eta: 3, type: 'image' }, x: 1 });
    expect(JSON.stringify(decodePollEntry(stored)!.body)).toBe('{"status":"processing","progress":5,"eta":3,"type":"image"}');
  });

  it('refuses an entry that is not JSON or does not match the schema', () => {
    const ok = { a: 'acc_1', t: 'image', b: { status: 'pending', type: 'image' } };
    const bad: unknown[] = [
      'not json',
      'null',
      '{}',
      { ...ok, a: '' },
      { ...ok, t: 'audio' },
      { ...ok, b: 'pending' },
      { ...ok, b: { status: 'queued', type: 'image' } },
      { ...ok, b: { status: 'pending', type: 'video' } }, // the body of another type than the entry's
      { ...ok, b: { status: 'processing', type: 'image' } }, // no progress
      { ...ok, b: { status: 'processing', progress: '40', type: 'image' } },
      { ...ok, b: { status: 'completed', type: 'image' } }, // no resultUrls
      { ...ok, b: { status: 'completed', resultUrls: [1], type: 'image' } },
      { ...ok, b: { status: 'completed', resultUrls: [], expiresAt: 'tomorrow', type: 'image' } },
      { ...ok, b: { status: 'failed', errorCode: 'timeout', type: 'image' } }, // no errorMessage, retryable
    ];
    expect(decodePollEntry(JSON.stringify(ok))).not.toBeNull();
    for (const b of bad) expect(decodePollEntry(typeof b === 'string' ? b : JSON.stringify(b))).toBeNull();
    expect(() => toPollEntry('acc_1', 'image', { status: 'processing', type: 'image' })).toThrow(/does not match/);
  });

  it('a settled entry is only a completed or failed one', () => {
    expect(settledPollEntryOf({ a: 'acc', t: 'video', b: bodies.completed })).toEqual({ accountId: 'acc', type: 'video', body: bodies.completed });
    expect(settledPollEntryOf({ a: 'acc', t: 'video', b: bodies.processing })).toBeNull();
    expect(pollEntryOf({ a: 'acc', t: 'video', b: bodies.processing })).not.toBeNull();
  });

  it('a task event carries the entry in the wire form and hands it on decoded', () => {
    const entry = settledPollEntryOf({ a: 'acc', t: 'video', b: bodies.failed })!;
    const message = encodeTaskEvent({ taskId: 't1', status: 'failed', entry });
    expect(JSON.parse(message)).toEqual({ taskId: 't1', status: 'failed', entry: { a: 'acc', t: 'video', b: bodies.failed } });
    expect(decodeTaskEvent(message)).toEqual({ taskId: 't1', status: 'failed', entry });
    // An entry that fails the schema is dropped from the event, which still decodes.
    const broken = JSON.stringify({ taskId: 't1', status: 'failed', entry: { a: 'acc', t: 'video', b: { status: 'failed', type: 'video' } } });
    expect(decodeTaskEvent(broken)).toEqual({ taskId: 't1', status: 'failed' });
    expect(() => encodeTaskEvent({ taskId: 't1', status: 'failed', entry: { ...entry, body: { status: 'failed', type: 'video' } as never } })).toThrow();
  });
});
