// Cost arithmetic (docs/models-and-pricing.md decisions 7-9): integer micro-USD, rounded UP to cents.
// Each row: request -> billed seconds and exact micros; cents follow from the rounding rule.
import { MeasuredMedia, computeCost, listPrices, microsToCents, parseImageSubmit, parseVideoSubmit, PRICES } from '../src';
import { AUD, IMG, OPTS, VID, times } from './helpers';

const none: MeasuredMedia = { videoSeconds: [], audioSeconds: [] };
const video = (body: Record<string, unknown>) => parseVideoSubmit({ prompt: 'p', ...body }, OPTS).spec;
const LIP = { model: 'video-a-h3', ref_mode: 'lip-sync', media: [IMG, AUD] };

type Case = [rule: string, body: Record<string, unknown>, measured: MeasuredMedia, micros: number, cents: number, billedSeconds: number | null, outputSeconds: number | null];

const cases: Case[] = [
  ['video-a 480p 5 s = 7000 x 5', { model: 'video-a-h3', resolution: '480p' }, none, 35_000, 4, 5, 5],
  ['video-a 768p 5 s = 43000 x 5', { model: 'video-a-h3' }, none, 215_000, 22, 5, 5],
  ['video-a 1080p 10 s = 80000 x 10', { model: 'video-a-h3', resolution: '1080p', duration: 10 }, none, 800_000, 80, 10, 10],
  ['video-a 480p effort 1.5x: (7000 + 2100) x 5', { model: 'video-a-h3', resolution: '480p', effort: '1.5x' }, none, 45_500, 5, 5, 5],
  ['video-a 480p effort 2x: (7000 + 4200) x 5', { model: 'video-a-h3', resolution: '480p', effort: '2x' }, none, 56_000, 6, 5, 5],
  ['video-a 768p effort 1.5x: (43000 + 13000) x 5', { model: 'video-a-h3', effort: '1.5x' }, none, 280_000, 28, 5, 5],
  ['video-a 768p effort 2x: (43000 + 16000) x 5, 29.5 cents up to 30', { model: 'video-a-h3', effort: '2x' }, none, 295_000, 30, 5, 5],
  ['video-a 480p 1 s: 0.7 cents rounds up to 1', { model: 'video-a-h3', resolution: '480p', duration: 1 }, none, 7_000, 1, 1, 1],
  ['lip-sync: 7.2 s audio bills 8 s', LIP, { videoSeconds: [], audioSeconds: [7.2] }, 344_000, 35, 8, 8],
  ['lip-sync: duration 5 shortens a 7.2 s audio to 5 s', { ...LIP, duration: 5 }, { videoSeconds: [], audioSeconds: [7.2] }, 215_000, 22, 5, 5],
  ['lip-sync: duration 12 longer than 7.2 s audio is clamped to 8 s', { ...LIP, duration: 12 }, { videoSeconds: [], audioSeconds: [7.2] }, 344_000, 35, 8, 8],
  ['lip-sync: 15.06 s audio (encoder padding) bills 15 s, not 16', LIP, { videoSeconds: [], audioSeconds: [15.06] }, 645_000, 65, 15, 15],
  ['lip-sync: 5.2 s audio bills 6 s (past the 100 ms tolerance)', LIP, { videoSeconds: [], audioSeconds: [5.2] }, 258_000, 26, 6, 6],
  ['lip-sync 480p effort 2x: 3 s x 11200', { ...LIP, resolution: '480p', effort: '2x' }, { videoSeconds: [], audioSeconds: [3] }, 33_600, 4, 3, 3],
  ['video-b-2.5 480p third-party 5 s', { model: 'video-b-2.5', resolution: '480p' }, none, 580_000, 58, 5, 5],
  ['video-b-2.5 480p official 4 s', { model: 'video-b-2.5', resolution: '480p', tier: 'official', duration: 4 }, none, 580_000, 58, 4, 4],
  ['video-b-2.5 720p official 5 s', { model: 'video-b-2.5' }, none, 1_160_000, 116, 5, 5],
  ['video-b-2.0 720p third-party 5 s: 80.5 cents up to 81', { model: 'video-b-2.0' }, none, 805_000, 81, 5, 5],
  ['video-b-2.0-mini 720p official 5 s: 44.5 cents up to 45', { model: 'video-b-2.0-mini' }, none, 445_000, 45, 5, 5],
  ['video-b: duration 5 + ceil(3.2 + 4.1 = 7.3) = 13 billed seconds', { model: 'video-b-2.5', media: times(2, VID) }, { videoSeconds: [3.2, 4.1], audioSeconds: [] }, 3_016_000, 302, 13, 5],
  ['video-b: reference audio is not billed', { model: 'video-b-2.0', media: [AUD] }, { videoSeconds: [], audioSeconds: [9] }, 805_000, 81, 5, 5],
  ['video-b: float noise in a measured length does not add a second', { model: 'video-b-2.0', media: [VID] }, { videoSeconds: [2.0000000001], audioSeconds: [] }, 1_127_000, 113, 7, 5],
  ['video-c-3.1 fast, per video', { model: 'video-c-3.1' }, none, 100_000, 10, null, null],
  ['video-c-3.1 components, per video', { model: 'video-c-3.1', variant: 'video-c-3.1-components' }, none, 200_000, 20, null, null],
  ['video-c-3.1 pro, per video', { model: 'video-c-3.1', variant: 'video-c-3.1-pro' }, none, 400_000, 40, null, null],
];

describe('computeCost (video)', () => {
  test.each(cases)('%s', (_rule, body, measured, micros, cents, billedSeconds, outputSeconds) => {
    expect(computeCost(video(body), measured)).toEqual({ costMicros: BigInt(micros), costCents: cents, billedSeconds, outputSeconds });
  });
});

describe('computeCost (images: one price per image at every resolution)', () => {
  test.each([
    ['image-a-5.0', 200_000, 20], ['image-b-2.5', 30_000, 3], ['image-c-2.1', 30_000, 3], ['image-b-2', 30_000, 3],
    ['image-d-3-pro-image-preview', 30_000, 3], ['image-d-3.1-flash-image-preview', 20_000, 2], ['image-d-2.5-flash-image', 20_000, 2],
  ] as const)('%s costs %i micros = %i cents', (model, micros, cents) => {
    const spec = parseImageSubmit({ model, prompt: 'p' }, OPTS).spec;
    expect(computeCost(spec, none)).toEqual({ costMicros: BigInt(micros), costCents: cents, billedSeconds: null, outputSeconds: null });
  });
  test('resolution does not change the price', () => {
    const spec = parseImageSubmit({ model: 'image-a-5.0', prompt: 'p', resolution: '4k' }, OPTS).spec;
    expect(computeCost(spec, none).costMicros).toBe(200_000n);
  });
});

describe('computeCost needs the measurements', () => {
  test('a lip-sync or video-b spec priced without its measured lengths throws instead of undercharging', () => {
    expect(() => computeCost(video(LIP), none)).toThrow(/does not match/);
    expect(() => computeCost(video({ model: 'video-b-2.5', media: [VID] }), none)).toThrow(/does not match/);
  });
});

describe('money arithmetic', () => {
  test.each([[0n, 0], [1n, 1], [9_999n, 1], [10_000n, 1], [10_001n, 2], [123_450_000n, 12_345]])('%s micros -> %i cents (rounded up)', (micros, cents) => {
    expect(microsToCents(micros)).toBe(cents);
  });
  test('every price is an integer number of micros with a source', () => {
    const rows = listPrices();
    expect(rows).toHaveLength(22);
    for (const row of rows) {
      expect(typeof row.micros).toBe('bigint');
      expect(['spec', 'spec-from', 'assumed']).toContain(row.source);
    }
  });
  test('the 480p effort surcharges are +30% / +60% of the 480p rate', () => {
    const a = PRICES['video-a-h3'];
    expect(a.effortExtraPerSecond['480p']['1.5x'].micros * 10n).toBe(a.perSecond['480p'].micros * 3n);
    expect(a.effortExtraPerSecond['480p']['2x'].micros * 10n).toBe(a.perSecond['480p'].micros * 6n);
  });
});
