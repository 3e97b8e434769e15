// A worker's result downloads are timed and counted per channel with the timers its start built
// (worker-app.ts puts them in its context next to the adapters): two workers in one process count
// only their own downloads, and a channel without a timer downloads untimed.
import pino from 'pino';
import { createWorkerMetrics, WorkerMetrics } from '@mediagen/metrics';
import type { ChannelHealth } from '@mediagen/channel-health';
import type { ChannelAdapter } from '@mediagen/providers';
import { observeChannel, observedDownload } from '../src/channel-observer';

const inner = { channel: { id: 'ch-a' }, capabilities: {}, close: () => undefined, classifyError: (e: unknown) => e } as unknown as ChannelAdapter;
const health = { record: async () => null } as unknown as ChannelHealth;

async function downloads(m: WorkerMetrics): Promise<number> {
  const values = (await m.channels.calls.get()).values;
  return values.find((v) => v.metricName === 'mediagen_channel_call_duration_seconds_count' && v.labels.call === 'download' && v.labels.channel === 'ch-a')?.value ?? 0;
}

it('counts a download in the metrics of the worker whose timers ran it, and nowhere else', async () => {
  const [m1, m2] = [createWorkerMetrics(), createWorkerMetrics()];
  const [o1, o2] = [m1, m2].map((metrics) => observeChannel(inner, { metrics, health, log: pino({ level: 'silent' }) }));
  expect(o1.download).not.toBe(o2.download);
  const timers1 = new Map([['ch-a', o1.download]]);
  expect(await observedDownload(timers1, o1.adapter, async () => 'bytes')).toBe('bytes');
  expect(await downloads(m1)).toBe(1);
  expect(await downloads(m2)).toBe(0);
  // A channel the context has no timer for: the download runs, uncounted.
  expect(await observedDownload(new Map(), o2.adapter, async () => 'bytes')).toBe('bytes');
  expect(await downloads(m2)).toBe(0);
});

it('hands a succeeded render to the step without waiting for the breaker to record it; a failure waits', async () => {
  const recorded: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  // A breaker whose Redis answers only when the test says so.
  const slow = { record: async (_c: string, o: string) => { recorded.push(o); await held; return null; } } as unknown as ChannelHealth;
  const ok = { ...inner, poll: async () => ({ state: 'succeeded', outputs: [{ kind: 'url', url: 'https://x/y.mp4' }] }) } as unknown as ChannelAdapter;
  const { adapter } = observeChannel(ok, { metrics: createWorkerMetrics(), health: slow, log: pino({ level: 'silent' }) });
  const status = await Promise.race([adapter.poll('r1'), new Promise((r) => setTimeout(() => r('held back'), 1_000))]);
  expect(status).toMatchObject({ state: 'succeeded' });
  expect(recorded).toEqual(['succeeded']);

  const bad = { ...inner, poll: async () => ({ state: 'failed', error: { kind: 'failed', message: 'render failed' } }) } as unknown as ChannelAdapter;
  const failing = observeChannel(bad, { metrics: createWorkerMetrics(), health: slow, log: pino({ level: 'silent' }) }).adapter;
  let settled = false;
  const polled = failing.poll('r2').then((s) => ((settled = true), s));
  // The record was asked for and is held: the failure is not handed on meanwhile.
  while (recorded.length < 2) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  expect(settled).toBe(false);
  expect(recorded).toEqual(['succeeded', 'failed']);
  release();
  expect(await polled).toMatchObject({ state: 'failed' });
});
