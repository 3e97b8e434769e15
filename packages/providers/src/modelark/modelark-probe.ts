// The channel check of a ModelArk channel. ModelArk's data plane has no model lookup for an API
// key (the model list is a control-plane call signed with an access key pair), so the check sends
// the create call of the model's API with no content: an unknown or unopened model answers 404
// `InvalidEndpointOrModel.*` / `ModelNotOpen`, a known one refuses the empty request with 400
// (`MissingParameter` / `InvalidParameter`), a bad key 401. Nothing renders and nothing is billed.
// Assumption (unverified against the live service): the model is resolved before the parameters
// are checked; if it were not, an unknown model would pass here and be caught by its first task
// (unknown_model) or by `--render`.
import type { AxiosInstance } from 'axios';
import { isAxiosError } from 'axios';
import { bodyText, type ModelProbe, probe, probeFromError } from '../channel-probe';
import { MODEL_UNAVAILABLE } from './modelark-errors';

export async function probeModelarkModel(client: AxiosInstance, model: string, signal: AbortSignal): Promise<ModelProbe> {
  const image = /seedream/i.test(model);
  try {
    const res = image
      ? await client.post('/images/generations', { model }, { signal })
      : await client.post('/contents/generations/tasks', { model, content: [] }, { signal });
    // Accepted although empty: the model exists (and the upstream took a request it should have refused).
    return probe('ok', `${model} exists (the empty probe was accepted: HTTP ${res.status})`, res.status);
  } catch (err) {
    if (isAxiosError(err) && err.response) {
      const status = err.response.status;
      const code = String((err.response.data as { error?: { code?: unknown } } | null)?.error?.code ?? '');
      const text = `HTTP ${status} ${bodyText(err.response.data)}`;
      if (MODEL_UNAVAILABLE.test(code)) return probe('unknown_model', text, status);
      if (status === 400) return probe('ok', `${model} exists (the empty probe was refused: ${code || 'HTTP 400'})`, status);
    }
    return probeFromError(err);
  }
}
