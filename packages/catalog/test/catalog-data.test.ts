// The catalog tables themselves and their consistency with the prices:
// every configuration a client can submit must have a price.
import { LEGACY_MODEL_ALIASES, MODELS, PRICES, VideoModelInfo, getModel, resolveModelId } from '../src';

describe('models', () => {
  test('the twelve offered models', () => {
    expect(Object.keys(MODELS).sort()).toEqual([
      'image-a-5.0', 'image-b-2', 'image-b-2.5', 'image-c-2.1', 'image-d-2.5-flash-image', 'image-d-3-pro-image-preview',
      'image-d-3.1-flash-image-preview', 'video-a-h3', 'video-b-2.0', 'video-b-2.0-mini', 'video-b-2.5', 'video-c-3.1',
    ]);
  });
  test('legacy alias resolves to video-b-2.0; withdrawn and unknown ids do not resolve', () => {
    expect(LEGACY_MODEL_ALIASES).toEqual({ 'video-b-2': 'video-b-2.0' });
    expect(resolveModelId('video-b-2')).toBe('video-b-2.0');
    expect(getModel('video-b-2')?.id).toBe('video-b-2.0');
    expect(resolveModelId('video-b-2.0-fast')).toBeUndefined();
    expect(resolveModelId('toString')).toBeUndefined();
    expect(getModel('nope')).toBeUndefined();
  });
  test('image models that answer at once (decision 12)', () => {
    const atOnce = Object.values(MODELS).filter((m) => m.type === 'image' && m.answersAtOnce).map((m) => m.id);
    expect(atOnce.sort()).toEqual(['image-c-2.1', 'image-d-2.5-flash-image', 'image-d-3.1-flash-image-preview']);
  });
  test('every image model takes 6 reference images', () => {
    for (const m of Object.values(MODELS)) if (m.type === 'image') expect(m.maxImages).toBe(6);
  });
});

describe('every submittable configuration has a price', () => {
  test('video-a-h3: each resolution, and each effort where effort exists', () => {
    for (const res of (MODELS['video-a-h3'] as VideoModelInfo).resolutions) {
      expect(PRICES['video-a-h3'].perSecond[res as '480p']).toBeDefined();
    }
    expect(Object.keys(PRICES['video-a-h3'].effortExtraPerSecond).sort()).toEqual(['480p', '768p']);
  });
  test('video-b: each offered resolution/tier row of 4.1.2', () => {
    for (const id of ['video-b-2.5', 'video-b-2.0', 'video-b-2.0-mini'] as const) {
      const byRes = PRICES[id].perSecond as Record<string, Record<string, unknown>>;
      for (const offer of (MODELS[id] as VideoModelInfo).offers!) expect(byRes[offer.resolution]?.[offer.tier]).toBeDefined();
    }
  });
  test('video-c-3.1: each variant', () => {
    for (const v of (MODELS['video-c-3.1'] as VideoModelInfo).variants!) {
      expect((PRICES['video-c-3.1'].perVideo as Record<string, unknown>)[v.id]).toBeDefined();
    }
  });
  test('images: each image model', () => {
    for (const m of Object.values(MODELS)) if (m.type === 'image') expect(PRICES.images[m.id]).toBeDefined();
  });
});
