// The worker's table of what an upstream failure leads to, cell by cell: every (step, error kind)
// gives the outcome docs/workers-and-channels.md documents, and the retry budget of each step ends
// where the documentation says (next channel, no_result, or never before the deadline).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { unknownAnswer, UpstreamError, type UpstreamErrorKind } from '@mediagen/providers';
import { type AttemptStep, decideOnError, ERROR_OUTCOMES, type ErrorOutcome } from '../src/error-outcomes';

/** One word per outcome, as the documentation's table writes it. */
function word(o: ErrorOutcome): string {
  switch (o.kind) {
    case 'retry':
      return o.spends === 'every' ? `retry, then ${o.whenSpent}` : `retry; unknown shape: then ${o.whenSpent}`;
    default:
      return o.kind;
  }
}

// Written out by hand (not derived from the code): the documented behaviour of each cell.
const EXPECTED: Record<AttemptStep, Record<UpstreamErrorKind, string>> = {
  submit: {
    transient: 'retry, then next-channel',
    violation: 'violation',
    failed: 'next-channel',
    unusable: 'next-channel',
    lost: 'next-channel',
    unsent: 'next-channel',
    unknown_model: 'model-unavailable',
  },
  poll: {
    transient: 'retry; unknown shape: then next-channel',
    violation: 'violation',
    failed: 'next-channel',
    unusable: 'next-channel',
    lost: 'lost',
    unsent: 'next-channel',
    unknown_model: 'model-unavailable',
  },
  render: {
    transient: 'next-channel',
    violation: 'violation',
    failed: 'next-channel',
    unusable: 'next-channel',
    lost: 'lost',
    unsent: 'next-channel',
    unknown_model: 'model-unavailable',
  },
  collect: {
    transient: 'retry, then no-result',
    violation: 'no-result',
    failed: 'no-result',
    unusable: 'no-result',
    lost: 'lost',
    unsent: 'no-result',
    unknown_model: 'no-result',
  },
  download: {
    transient: 'retry, then no-result',
    violation: 'no-result',
    failed: 'no-result',
    unusable: 'no-result',
    lost: 'no-result',
    unsent: 'no-result',
    unknown_model: 'no-result',
  },
};

const steps = Object.keys(EXPECTED) as AttemptStep[];
const kinds = Object.keys(EXPECTED.submit) as UpstreamErrorKind[];
const cells = steps.flatMap((step) => kinds.map((kind) => [step, kind, EXPECTED[step][kind]] as const));
const MAX = 8;

describe('error outcomes table', () => {
  it('has exactly the documented steps and error kinds', () => {
    expect(Object.keys(ERROR_OUTCOMES).sort()).toEqual([...steps].sort());
    for (const step of steps) expect(Object.keys(ERROR_OUTCOMES[step]).sort()).toEqual([...kinds].sort());
  });

  it.each(cells)('%s x %s: %s', (step, kind, expected) => {
    expect(word(ERROR_OUTCOMES[step][kind])).toBe(expected);
  });

  it('the documentation lists the same table', () => {
    const doc = readFileSync(path.join(__dirname, '../../../docs/workers-and-channels.md'), 'utf8');
    const start = doc.indexOf('| Step | ');
    expect(start).toBeGreaterThan(0);
    const lines = doc.slice(start).split('\n');
    const rows = lines
      .slice(0, lines.findIndex((l) => !l.startsWith('|')))
      .map((l) => l.split('|').slice(1, -1).map((c) => c.trim().replace(/`/g, '')));
    const [head, , ...body] = rows;
    const docKinds = head.slice(1);
    expect([...docKinds].sort()).toEqual([...kinds].sort());
    expect(body.map((r) => r[0]).sort()).toEqual([...steps].sort());
    for (const row of body) {
      const step = row[0] as AttemptStep;
      docKinds.forEach((kind, i) => expect(`${step} x ${kind}: ${row[i + 1]}`).toBe(`${step} x ${kind}: ${EXPECTED[step][kind as UpstreamErrorKind]}`));
    }
  });
});

describe('decideOnError', () => {
  const transient = (retryAfterMs?: number) => new UpstreamError('transient', 'HTTP 503', retryAfterMs);

  it('acts on every final outcome with the error it was given', () => {
    for (const [step, kind, expected] of cells) {
      if (expected.startsWith('retry')) continue;
      const err = new UpstreamError(kind, `${kind} at ${step}`);
      expect(decideOnError(step, err, 0, MAX)).toEqual({ kind: expected, err });
    }
  });

  it('retries a transient submit after a backoff, Retry-After as a floor, then moves to the next channel', () => {
    const first = decideOnError('submit', transient(), 0, MAX);
    expect(first).toMatchObject({ kind: 'retry', step: 'submit', transientErrors: 1 });
    expect(first.kind === 'retry' && first.delayMs).toBeGreaterThanOrEqual(400);
    expect(decideOnError('submit', transient(7_000), 2, MAX)).toMatchObject({ kind: 'retry', delayMs: 7_000, transientErrors: 3 });
    expect(decideOnError('submit', transient(), MAX - 1, MAX)).toMatchObject({ kind: 'retry', transientErrors: MAX });
    const err = transient();
    expect(decideOnError('submit', err, MAX, MAX)).toEqual({ kind: 'next-channel', err });
  });

  it('keeps polling through any outage, but gives an unknown answer up after the budget as a failed render', () => {
    expect(decideOnError('poll', transient(), 1_000, MAX)).toMatchObject({ kind: 'retry', step: 'poll', transientErrors: 1_001 });
    const odd = unknownAnswer('status: unknown word "paused"');
    expect(decideOnError('poll', odd, MAX - 1, MAX)).toMatchObject({ kind: 'retry', step: 'poll', transientErrors: MAX });
    const spent = decideOnError('poll', odd, MAX, MAX);
    expect(spent.kind).toBe('next-channel');
    expect(spent.kind !== 'retry' && [spent.err.kind, spent.err.message]).toEqual(['failed', `status: unknown word "paused" (${MAX + 1} times in a row)`]);
  });

  it.each(['collect', 'download'] as const)('retries a transient %s on the poll step, then fails the task with no_result', (step) => {
    expect(decideOnError(step, transient(), 0, MAX)).toMatchObject({ kind: 'retry', step: 'poll', transientErrors: 1 });
    const err = transient();
    expect(decideOnError(step, err, MAX, MAX)).toEqual({ kind: 'no-result', err });
  });
});
