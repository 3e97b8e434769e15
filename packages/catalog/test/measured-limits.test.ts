// Limits that need measured reference lengths: video-b totals (decision 4) and
// lip-sync audio/output lengths (decision 7).
import { ErrorCode } from '@mediagen/errors';
import { MeasuredMedia, checkMeasuredLimits, parseImageSubmit, parseVideoSubmit } from '../src';
import { AUD, IMG, OPTS, VID, appErrorOf, times } from './helpers';

const spec = (body: Record<string, unknown>) => parseVideoSubmit({ prompt: 'p', ...body }, OPTS).spec;
const m = (videoSeconds: number[], audioSeconds: number[] = []): MeasuredMedia => ({ videoSeconds, audioSeconds });
const LIP = { model: 'video-a-h3', ref_mode: 'lip-sync', media: [IMG, AUD] };

type Case = [rule: string, body: Record<string, unknown>, measured: MeasuredMedia, expected: 'ok' | [ErrorCode, string, RegExp?]];

const cases: Case[] = [
  ['video-b-2.5: reference videos total 30 s', { model: 'video-b-2.5', media: times(3, VID) }, m([10, 10, 10]), 'ok'],
  ['video-b-2.5: reference videos over 30 s name the item that crosses it', { model: 'video-b-2.5', media: [IMG, VID, VID] }, m([10, 20.5]), ['validation_error', 'media[2]', /30 s/]],
  ['video-b-2.5: reference audio total 30 s', { model: 'video-b-2.5', media: times(2, AUD) }, m([], [15, 15]), 'ok'],
  ['video-b-2.5: reference audio over 30 s', { model: 'video-b-2.5', media: [VID, AUD, AUD] }, m([40 / 4], [20, 11]), ['validation_error', 'media[2]']],
  ['video-b-2.5 480p third-party has the same totals', { model: 'video-b-2.5', resolution: '480p', media: [VID] }, m([31]), ['validation_error', 'media[0]']],
  ['video-b-2.0: reference videos total 15 s', { model: 'video-b-2.0', media: times(3, VID) }, m([5, 5, 5]), 'ok'],
  ['video-b-2.0: reference videos over 15 s', { model: 'video-b-2.0', media: times(2, VID) }, m([8, 8]), ['validation_error', 'media[1]', /15 s/]],
  ['video-b-2.0-mini: reference audio over 15 s', { model: 'video-b-2.0-mini', media: [AUD] }, m([], [15.2]), ['validation_error', 'media[0]']],
  ['video-a omni: audio length is not limited by the spec', { model: 'video-a-h3', media: [AUD] }, m([], [40]), 'ok'],
  ['lip-sync: audio of 15 s', LIP, m([], [15]), 'ok'],
  ['lip-sync: 15.06 s (MP3 padding) is within the 100 ms tolerance', LIP, m([], [15.06]), 'ok'],
  ['lip-sync: 15.11 s is over the tolerance', LIP, m([], [15.11]), ['validation_error', 'media[1]']],
  ['video-b-2.0: reference videos 15.09 s in total are within the tolerance', { model: 'video-b-2.0', media: times(3, VID) }, m([5.03, 5.03, 5.03]), 'ok'],
  ['lip-sync: audio longer than 15 s names the audio item', LIP, m([], [15.4]), ['validation_error', 'media[1]', /15 s/]],
  ['lip-sync: even with a shorter duration, audio over 15 s is refused', { ...LIP, duration: 5 }, m([], [16]), ['validation_error', 'media[1]']],
  ['lip-sync: silent (zero-length) audio', LIP, m([], [0]), ['validation_error', 'media[1]']],
  ['lip-sync 1080p: 9.2 s audio -> 10 s output fits', { ...LIP, resolution: '1080p' }, m([], [9.2]), 'ok'],
  ['lip-sync 1080p: 12 s audio -> 12 s output is over 10 s', { ...LIP, resolution: '1080p' }, m([], [12]), ['validation_error', 'duration', /shorter duration/]],
  ['lip-sync 1080p: 12 s audio shortened by duration 10 fits', { ...LIP, resolution: '1080p', duration: 10 }, m([], [12]), 'ok'],
];

describe('checkMeasuredLimits', () => {
  test.each(cases)('%s', (_rule, body, measured, expected) => {
    const s = spec(body);
    if (expected === 'ok') {
      expect(() => checkMeasuredLimits(s, measured)).not.toThrow();
      return;
    }
    const e = appErrorOf(() => checkMeasuredLimits(s, measured));
    expect([e.status, e.code, e.details![0].path]).toEqual([400, expected[0], expected[1]]);
    if (expected[2]) expect(e.message).toMatch(expected[2]);
  });

  test('image tasks have nothing to measure', () => {
    const s = parseImageSubmit({ model: 'image-b-2', prompt: 'p', images: ['https://cdn.example.com/a.png'] }, OPTS).spec;
    expect(() => checkMeasuredLimits(s, m([]))).not.toThrow();
  });

  test('measurements that do not match the request are a programming error, not a 400', () => {
    const s = spec({ model: 'video-b-2.5', media: [VID] });
    expect(() => checkMeasuredLimits(s, m([]))).toThrow(/does not match/);
    expect(() => checkMeasuredLimits(s, m([Number.NaN]))).toThrow(/not a length/);
  });
});
