// Which model a submit names, checked against the endpoint it was sent to. Withdrawn and aliased ids
// get their own answers so a client on an old integration learns what happened, not just "invalid".
import { invalid } from '@mediagen/errors';
import { IMAGE_MODEL_IDS, ImageModelInfo, MODELS, VIDEO_MODEL_IDS, VideoModelInfo, isWithdrawnModel, resolveModelId } from './models';

type Endpoint = 'video' | 'image';
const PATHS: Record<Endpoint, string> = { video: 'POST /api/video/generate', image: 'POST /api/image/generate' };

export interface ResolvedModel<M> {
  model: M;
  /** What the client sent, when it differs from the canonical id (legacy alias). */
  requestedModel?: string;
}

function resolve(id: string, endpoint: Endpoint) {
  const offered = (endpoint === 'video' ? VIDEO_MODEL_IDS : IMAGE_MODEL_IDS).join(', ');
  if (isWithdrawnModel(id)) {
    throw invalid('model', `${id} was withdrawn and is no longer available; use one of ${offered}`, 'model_withdrawn');
  }
  const canonical = resolveModelId(id);
  if (canonical === undefined) throw invalid('model', `unknown model "${id}"; this endpoint offers ${offered}`, 'invalid_model');
  const model = MODELS[canonical];
  if (model.type !== endpoint) {
    throw invalid('model', `${id} is ${model.type === 'video' ? 'a video' : 'an image'} model; send it to ${PATHS[model.type]}`, 'wrong_endpoint');
  }
  return canonical === id ? { model } : { model, requestedModel: id };
}

export const resolveVideoModel = (id: string) => resolve(id, 'video') as ResolvedModel<VideoModelInfo>;
export const resolveImageModel = (id: string) => resolve(id, 'image') as ResolvedModel<ImageModelInfo>;
