// A channel may serve part of a model: what it renders (coverage), which tasks it can take, and the
// start-up check that refuses only options the catalog sells with no channel at all.
import type { VideoTaskSpec } from '@mediagen/catalog';
import { ableToRender, assertServesCatalog, checkAgainstCatalog, coverageGap, createAdapters, describeCoverage, parseChannelConfig } from '../src';

const h3 = (id: string, costOrder: number, extra: Record<string, unknown> = {}) => ({
  id, protocol: 'minimax', baseUrl: 'https://api.minimax.io', apiKey: 'k', costOrder, models: { 'video-a-h3': 'MiniMax-H3' }, ...extra,
});
/** A partial host: 480p/768p, at most 10 s (shorter lengths render at its 5 s minimum), no effort tiers. */
const PARTIAL = { resolutions: { '480p': '480P', '768p': '768P' }, durations: { min: 5, max: 10 } };
const FULL = { effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3-Max' } };

const video = (over: Partial<VideoTaskSpec>): VideoTaskSpec => ({
  type: 'video', model: 'video-a-h3', prompt: 'p', duration: 6, ratio: '16:9', resolution: '480p', tier: null, variant: null, refMode: 'omni',
  effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, ...over,
});

function withAdapters<T>(channels: unknown[], fn: (config: ReturnType<typeof parseChannelConfig>, adapters: ReturnType<typeof createAdapters>) => T): T {
  const config = parseChannelConfig({ channels }, {});
  const adapters = createAdapters(config);
  try {
    return fn(config, adapters);
  } finally {
    for (const a of adapters.values()) a.close();
  }
}

describe('coverage of a task', () => {
  const c = { resolutions: ['480p', '768p'], seconds: { min: 5, max: 15 }, efforts: ['1x'], maxRefs: { image: 2 } };
  it.each([
    [video({}), null],
    [video({ resolution: '1080p' }), 'resolution 1080p (renders 480p/768p)'],
    [video({ duration: 2 }), '2 s (renders 5-15 s)'],
    [video({ effort: '2x' }), 'effort 2x (renders 1x)'],
    [video({ effort: '1x' }), null],
    [video({ media: [1, 2, 3].map(() => ({ kind: 'image' as const, path: 'm', source: 'url' as const, url: 'https://x/a.png', role: 'reference' as const })) }), '3 reference images (takes 2)'],
  ])('case %#', (spec, gap) => expect(coverageGap(c, spec, null)).toBe(gap));

  it('reads the priced length (lip-sync as long as its audio), rounded up to whole seconds', () => {
    expect(coverageGap(c, video({ duration: null }), 4.2)).toBe(null);
    expect(coverageGap(c, video({ duration: null }), 3.9)).toBe('4 s (renders 5-15 s)');
  });

  it('says it in words for the console', () => {
    expect(describeCoverage(c)).toBe('480p/768p · 5-15 s · effort 1x · up to 2 images');
    expect(describeCoverage({})).toBe('everything sold');
  });
});

describe('routing and the start-up check', () => {
  it("derives a MiniMax channel's coverage from its settings: a shorter length renders at its minimum, so only the maximum narrows", () => {
    withAdapters([h3('partial', 1, PARTIAL), h3('full', 2, FULL)], (_config, adapters) => {
      expect(adapters.get('partial')!.coverage!('video-a-h3', null)).toEqual({ resolutions: ['480p', '768p'], seconds: { min: 1, max: 10 }, efforts: ['1x'] });
      expect(adapters.get('full')!.coverage!('video-a-h3', null)).toEqual({});
    });
  });

  it('keeps, in order, only the channels able to render the task, and says why the others cannot', () => {
    withAdapters([h3('partial', 1, PARTIAL), h3('full', 2, FULL)], (config, adapters) => {
      expect(ableToRender(config.channels, adapters, video({}), 6).able.map((c) => c.id)).toEqual(['partial', 'full']);
      const r = ableToRender(config.channels, adapters, video({ resolution: '1080p' }), 6);
      expect(r.able.map((c) => c.id)).toEqual(['full']);
      expect(r.unable).toEqual([{ id: 'partial', why: 'resolution 1080p (renders 480p/768p)' }]);
    });
  });

  it('starts with a partial channel when another channel renders the rest', () => {
    withAdapters([h3('partial', 1, PARTIAL), h3('full', 2, FULL)], (config, adapters) => {
      expect(checkAgainstCatalog(config, adapters).unserved.filter((u) => u.includes('video-a-h3'))).toEqual([]);
    });
  });

  it('refuses in production an option no channel renders, naming the option and the channels looked at', () => {
    withAdapters([h3('partial', 1, PARTIAL), h3('no-tiers', 2)], (config, adapters) => {
      const { errors, unserved } = checkAgainstCatalog(config, adapters);
      expect(errors).toEqual([]);
      const line = unserved.find((u) => u.includes('video-a-h3'));
      expect(line).toBe(
        'no enabled channel can render video-a-h3 at 480p 16:9 1 s effort 1.5x and 359 more options ' +
          '(channels looked at: partial: effort 1.5x (renders 1x); no-tiers: effort 1.5x (renders 1x))',
      );
      expect(() => assertServesCatalog(config, adapters, { production: true })).toThrow(line);
      // Outside production it is a warning: the worker starts, and those tasks fail with generation_failed.
      expect(assertServesCatalog(config, adapters, { production: false })).toContain(line);
    });
  });

  it('still refuses a mapping that can never work, whatever the other channels do', () => {
    withAdapters([h3('full', 1, FULL), { ...h3('wrong', 2), models: { 'video-c-3.1': 'MiniMax-H3' } }], (config, adapters) => {
      expect(() => assertServesCatalog(config, adapters, { production: false })).toThrow(/channel wrong \(minimax\) cannot serve video-c-3.1 \(variant video-c-3.1-fast\): .*video-a-h3 only/);
    });
  });
});
