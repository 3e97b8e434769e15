// The run-task job's payload: only hints beside the task id. A poll hint (the running attempt the
// next poll step reads) is optional, and one that does not parse is ignored rather than failing
// the job: the step then loads the rows first and polls as a job without a hint does.
import { runTaskPayloadSchema } from '../src/contracts';

const hint = { attemptId: 'att_1', channelId: 'ark-a', upstreamId: 'cgt-2026-x', accountId: 'acc_1' };

it('parses a poll job with its hint, and keeps the hint', () => {
  expect(runTaskPayloadSchema.parse({ taskId: 't1', step: 'poll', transientErrors: 0, poll: hint })).toEqual({ taskId: 't1', step: 'poll', transientErrors: 0, poll: hint });
});

it('parses a job written before hints as it always did', () => {
  expect(runTaskPayloadSchema.parse({ taskId: 't1', step: 'poll', transientErrors: 2 })).toEqual({ taskId: 't1', step: 'poll', transientErrors: 2 });
  expect(runTaskPayloadSchema.parse({ taskId: 't1' })).toEqual({ taskId: 't1', step: 'submit', transientErrors: 0 });
});

it.each([
  ['a missing upstream id', { ...hint, upstreamId: undefined }],
  ['an empty attempt id', { ...hint, attemptId: '' }],
  ['a number for a channel', { ...hint, channelId: 7 }],
  ['not an object', 'att_1'],
])('ignores a hint with %s: the job still runs, without it', (_what, poll) => {
  const parsed = runTaskPayloadSchema.safeParse({ taskId: 't1', step: 'poll', transientErrors: 0, poll });
  expect(parsed.success).toBe(true);
  expect(parsed.data?.poll).toBeUndefined();
});

it('still rejects a payload without a task id', () => {
  expect(runTaskPayloadSchema.safeParse({ step: 'poll', poll: hint }).success).toBe(false);
});
