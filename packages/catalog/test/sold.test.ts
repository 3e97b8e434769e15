// SOLD_MODELS: what a deployment sells. A model (or a tier / variant) not sold answers 400
// model_not_offered with the list of what is offered; a bad setting stops the start naming the entry.
import { AppError } from '@mediagen/errors';
import { describePrice, formatMicrosUsd, listPrices, parseImageSubmit, parseSoldModels, parseVideoSubmit, soldModelSummaries, SoldModelsError, WHOLE_CATALOG } from '../src';

const refusal = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('did not throw');
};

describe('parseSoldModels', () => {
  it('unset or blank sells the whole catalog', () => {
    expect(parseSoldModels(undefined).models().length).toBe(WHOLE_CATALOG.models().length);
    expect(parseSoldModels(' , ').entries).toBeUndefined();
  });

  it('sells models whole or by tier / variant, in catalog order', () => {
    const sold = parseSoldModels('image-d-2.5-flash-image, image-b-2.5,video-b-2.5:official,video-c-3.1:video-c-3.1-pro');
    expect(sold.models().map((m) => m.id)).toEqual(['video-b-2.5', 'video-c-3.1', 'image-b-2.5', 'image-d-2.5-flash-image']);
    expect(sold.sells('video-b-2.5', 'official')).toBe(true);
    expect(sold.sells('video-b-2.5', 'third-party')).toBe(false);
    expect(sold.options(sold.models('video')[1])).toEqual(['video-c-3.1-pro']);
    expect(sold.sells('video-a-h3')).toBe(false);
  });

  it('names every entry the catalog does not have', () => {
    expect(() => parseSoldModels('image-b-2.5,image-z-9,video-b-2.5:gold,image-b-2.5:hd')).toThrow(SoldModelsError);
    expect(() => parseSoldModels('image-b-2.5,image-z-9,video-b-2.5:gold,image-b-2.5:hd')).toThrow(
      /"image-z-9": no model image-z-9 in the catalog .*; "video-b-2.5:gold": video-b-2.5 offers official, third-party; "image-b-2.5:hd": image-b-2.5 has no tiers or variants/,
    );
  });
});

describe('submits against what is sold', () => {
  const sold = parseSoldModels('image-b-2.5,image-d-2.5-flash-image,video-b-2.5:official');
  const opts = { allowPrivateMediaUrls: false, sold };

  it('a catalog model not sold here: 400 model_not_offered naming what is offered', () => {
    const err = refusal(() => parseVideoSubmit({ model: 'video-a-h3', prompt: 'a fox' }, opts));
    expect(err).toMatchObject({ code: 'model_not_offered', status: 400 });
    expect(err.message).toBe('model: video-a-h3 is not offered here; this service offers video-b-2.5');
    const img = refusal(() => parseImageSubmit({ model: 'image-a-5.0', prompt: 'a fox' }, opts));
    expect(img.message).toBe('model: image-a-5.0 is not offered here; this service offers image-b-2.5, image-d-2.5-flash-image');
  });

  it('a tier not sold, after the default chose it, names the one that is', () => {
    const err = refusal(() => parseVideoSubmit({ model: 'video-b-2.5', prompt: 'a fox', resolution: '480p' }, opts));
    expect(err).toMatchObject({ code: 'model_not_offered' });
    expect(err.message).toBe('tier: third-party is not offered here for video-b-2.5; it is offered with tier official');
    expect(parseVideoSubmit({ model: 'video-b-2.5', prompt: 'a fox', resolution: '480p', tier: 'official' }, opts).spec.tier).toBe('official');
  });

  it('unknown names keep their own codes; sold models pass', () => {
    expect(refusal(() => parseImageSubmit({ model: 'image-z-9', prompt: 'a fox' }, opts)).code).toBe('invalid_model');
    expect(parseImageSubmit({ model: 'image-b-2.5', prompt: 'a fox' }, opts).spec.model).toBe('image-b-2.5');
    expect(parseVideoSubmit({ model: 'video-a-h3', prompt: 'a fox' }, { allowPrivateMediaUrls: false }).spec.model).toBe('video-a-h3');
  });
});

describe('soldModelSummaries', () => {
  test('the whole catalog with every price; a subset with only the prices of what is sold', () => {
    expect(soldModelSummaries(WHOLE_CATALOG).flatMap((s) => s.prices)).toHaveLength(listPrices().length);
    const sub = soldModelSummaries(parseSoldModels('image-b-2.5,video-b-2.5:official'));
    expect(sub.map((s) => s.model.id)).toEqual(['video-b-2.5', 'image-b-2.5']);
    expect(sub[0].options).toEqual(['official']);
    expect(sub[0].prices.map((p) => p.what)).toEqual(['480p, official', '720p, official']);
    expect(sub[1].prices.map(describePrice)).toEqual(['0.03 USD per image']);
  });
  test.each([[7_000n, '0.007'], [100_000n, '0.10'], [2_100n, '0.0021'], [1_000_000n, '1.00'], [1_230_000n, '1.23'], [0n, '0.00']])('%s micros -> %s USD', (micros, usd) => {
    expect(formatMicrosUsd(micros)).toBe(usd);
  });
});
