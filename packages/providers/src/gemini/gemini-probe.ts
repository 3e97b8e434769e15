// The channel check of a Gemini API channel: `GET {base}/models/{model}` (the API's own model
// lookup; no render, no cost). 200: the model exists; 404 NOT_FOUND: unknown or shut down; 400
// API_KEY_INVALID / 403 PERMISSION_DENIED: the key.
import type { AxiosInstance } from 'axios';
import { isAxiosError } from 'axios';
import { bodyText, type ModelProbe, probe, probeFromError } from '../channel-probe';

export async function probeGeminiModel(client: AxiosInstance, model: string, signal: AbortSignal): Promise<ModelProbe> {
  try {
    const res = await client.get<{ name?: string }>(`/models/${encodeURIComponent(model)}`, { signal });
    return probe('ok', `models/${model} exists${res.data?.name ? ` (${res.data.name})` : ''}`, res.status);
  } catch (err) {
    if (isAxiosError(err) && err.response) {
      const status = err.response.status;
      const text = `HTTP ${status} ${bodyText(err.response.data)}`;
      if (status === 404) return probe('unknown_model', text, status);
      if (status === 400 && /API_KEY_INVALID|API key not valid|API key expired/i.test(JSON.stringify(err.response.data ?? ''))) return probe('bad_key', text, status);
    }
    return probeFromError(err);
  }
}
