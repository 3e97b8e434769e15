// GET /api/models: the models this deployment sells (SOLD_MODELS) with their sold tiers (video-b)
// or variants (video-c), in catalog order. The same list the OpenAPI enum and the front page show.
import type { ModelListResponse, SoldCatalog } from '@mediagen/catalog';

export function modelList(sold: SoldCatalog): ModelListResponse {
  return {
    models: sold.models().map((m) => {
      const options = sold.options(m);
      if (m.type === 'video' && m.offers) return { id: m.id, type: m.type, tiers: options as ('official' | 'third-party')[] };
      if (m.type === 'video' && m.variants) return { id: m.id, type: m.type, variants: options };
      return { id: m.id, type: m.type };
    }),
  };
}
