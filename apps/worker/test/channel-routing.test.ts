// Routing by what each channel can render, and channels whose upstream no longer knows a model,
// through the real MiniMax adapter against the simulator:
// - a channel that serves part of a model (480p/768p, 5-15 s, no effort tiers, like fal's H3 host)
//   takes only the tasks it can render; the others go to the channel that can;
// - an upstream answer "unknown model" moves the task to the next channel at once (completed, no
//   refund), and the channel is not tried for that upstream model again (Redis, every worker) until
//   the mark is cleared; it is visible in the metric, the channel view and its lastError.
import { clearModelUnavailable, isModelUnavailable, readChannelViews } from '@mediagen/channel-health';
import { ledgerDiscrepancies } from '@mediagen/db';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(60_000);

const poll = { firstMs: 50, minMs: 50, maxMs: 200 };
const h3 = (id: string, costOrder: number, extra: Record<string, unknown>) => (base: string) => ({
  id, protocol: 'minimax', baseUrl: `${base}/minimax`, apiKey: `key-${id}`, costOrder, models: { 'video-a-h3': 'MiniMax-H3' }, poll, ...extra,
});

const refunds = (w: InProcess, taskId: string) => w.db.ledgerEntry.count({ where: { taskId, kind: 'refund' } });

describe('a channel that serves part of a model', () => {
  let w: InProcess;
  beforeAll(async () => {
    w = await startInProcess((base) => ({
      channels: [
        // Cheapest, and partial: 480p/768p, at most 10 s (shorter renders at its 5 s minimum), no effort tiers.
        h3('h3-partial', 1, { resolutions: { '480p': '2K', '768p': '2K' }, durations: { min: 5, max: 10 } })(base),
        h3('h3-full', 2, { effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3-Max' } })(base),
      ],
    }));
  });
  afterAll(async () => {
    expect(await ledgerDiscrepancies(w.db)).toEqual([]);
    await w.stop();
  });

  it.each([
    ['480p 6 s', { resolution: '480p', duration: 6, outputSeconds: 6 }, 'h3-partial'],
    ['1080p 6 s (a resolution the cheap channel does not render)', { resolution: '1080p', duration: 6, outputSeconds: 6 }, 'h3-full'],
    ['768p 2 s (rendered at the cheap channel\'s 5 s minimum)', { resolution: '768p', duration: 2, outputSeconds: 2 }, 'h3-partial'],
    ['768p 12 s (longer than the cheap channel renders)', { resolution: '768p', duration: 12, outputSeconds: 12 }, 'h3-full'],
    ['480p 6 s effort 2x (a tier the cheap channel has no model for)', { resolution: '480p', duration: 6, outputSeconds: 6, effort: '2x' }, 'h3-full'],
  ])('%s runs only on a channel able to render it', async (_name, spec, channel) => {
    const id = await w.submit('a harbour at dusk', 'video-a-h3', spec);
    expect((await w.settled(id)).status).toBe('completed');
    const attempts = await w.closedAttempts(id);
    expect(attempts.map((a) => [a.channelId, a.status])).toEqual([[channel, 'completed']]);
  });

  it('publishes what each channel renders for the console and /admin/channels', async () => {
    const views = await readChannelViews(w.app.ctx.redis, w.app.ctx.config.REDIS_PREFIX);
    const partial = views.find((v) => v.id === 'h3-partial')!;
    expect(partial.coverage?.['video-a-h3']).toEqual({
      renders: '480p/768p · 1-10 s · effort 1x',
      limits: { resolutions: ['480p', '768p'], seconds: { min: 1, max: 10 }, efforts: ['1x'] },
    });
    expect(views.find((v) => v.id === 'h3-full')!.coverage?.['video-a-h3'].renders).toBe('everything sold');
  });
});

describe('an upstream model the channel no longer knows', () => {
  let w: InProcess;
  beforeAll(async () => {
    w = await startInProcess(
      (base) => ({
        channels: [
          { ...h3('retiring', 1, {})(base), models: { 'video-a-h3': 'MiniMax-H2-retired' } },
          h3('backup', 2, {})(base),
        ],
      }),
      {},
      { simRetiredModels: ['MiniMax-H2-retired'] },
    );
  });
  afterAll(async () => {
    expect(await ledgerDiscrepancies(w.db)).toEqual([]);
    await w.stop();
  });

  it('falls back to the next channel at once, completes without a refund, and skips the channel for that model from then on', async () => {
    const first = await w.submit('a lighthouse');
    expect((await w.settled(first)).status).toBe('completed');
    expect((await w.closedAttempts(first)).map((a) => [a.channelId, a.status, a.errorKind])).toEqual([
      ['retiring', 'failed', 'unknown_model'],
      ['backup', 'completed', null],
    ]);
    expect(await refunds(w, first)).toBe(0);

    const { redis, config, metrics } = w.app.ctx;
    expect(await isModelUnavailable(redis, config.REDIS_PREFIX, 'retiring', 'MiniMax-H2-retired')).toBe(true);
    const metric = (await metrics.registry.getSingleMetricAsString('mediagen_channel_model_unavailable_total'));
    expect(metric).toMatch(/channel="retiring",upstream_model="MiniMax-H2-retired"[^}]*\} 1/);
    const view = (await readChannelViews(redis, config.REDIS_PREFIX)).find((v) => v.id === 'retiring')!;
    expect(view.unavailableModels).toEqual([expect.objectContaining({ upstreamModel: 'MiniMax-H2-retired', model: 'video-a-h3' })]);
    expect(view.lastError).toMatchObject({ kind: 'unknown_model', message: expect.stringContaining('MiniMax-H2-retired') });
    // The breaker is about the channel, not one model: it stays closed.
    expect(view.state).toBe('closed');

    // The next task goes straight to the backup: the retiring channel is not asked again.
    const second = await w.submit('a lighthouse at night');
    expect((await w.settled(second)).status).toBe('completed');
    expect((await w.closedAttempts(second)).map((a) => a.channelId)).toEqual(['backup']);

    // An operator re-enables it (or a check passes): it is tried again, and fails over again.
    await clearModelUnavailable(redis, config.REDIS_PREFIX, 'retiring');
    const third = await w.submit('a lighthouse in fog');
    expect((await w.settled(third)).status).toBe('completed');
    expect((await w.closedAttempts(third)).map((a) => [a.channelId, a.errorKind])).toEqual([['retiring', 'unknown_model'], ['backup', null]]);
  });
});

describe('a model whose only channel no longer knows it', () => {
  let w: InProcess;
  beforeAll(async () => {
    w = await startInProcess((base) => ({ channels: [{ ...h3('alone', 1, {})(base), models: { 'video-a-h3': 'MiniMax-Gone' } }] }), {}, { simRetiredModels: ['MiniMax-Gone'] });
  });
  afterAll(async () => {
    expect(await ledgerDiscrepancies(w.db)).toEqual([]);
    await w.stop();
  });

  it('fails with generation_failed and a refund, and the next task fails without calling the upstream', async () => {
    const id = await w.submit('a quiet street');
    expect(await w.settled(id)).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
    expect(await refunds(w, id)).toBe(1);
    const next = await w.submit('a quiet street again');
    expect(await w.settled(next)).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
    expect(await refunds(w, next)).toBe(1);
    expect(await w.closedAttempts(next)).toEqual([]);
  });
});
