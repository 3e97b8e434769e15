// The channel check of a MiniMax v2 channel. MiniMax has no model lookup, so the check sends a
// create with the model and no content: an unknown model answers 2013 naming the model ("invalid
// params, unknown model 'x'"), a known one 2013 about the content, a bad key 401 / 1004 / 2049.
// Nothing renders. Assumption (unverified live): the model is checked before the content.
import type { AxiosInstance } from 'axios';
import { isAxiosError } from 'axios';
import { bodyText, type ModelProbe, probe, probeFromError } from '../channel-probe';
import { codeInMessage, UNKNOWN_MODEL_TEXT } from './minimax-errors';

const BAD_KEY_CODES = new Set([1004, 2049]);

function verdict(status: number, code: number | undefined, message: string, model: string): ModelProbe | null {
  const text = `HTTP ${status} ${code ?? ''} ${message}`.replace(/\s+/g, ' ').trim();
  if (code !== undefined && BAD_KEY_CODES.has(code)) return probe('bad_key', text, status);
  if (UNKNOWN_MODEL_TEXT.test(message)) return probe('unknown_model', text, status);
  if (code === 2013 || status === 400) return probe('ok', `${model} exists (the empty probe was refused: ${text})`, status);
  return null;
}

export async function probeMinimaxModel(client: AxiosInstance, model: string, signal: AbortSignal): Promise<ModelProbe> {
  try {
    const res = await client.post<{ task_id?: string; base_resp?: { status_code?: number; status_msg?: string } }>('/v2/video_generation', { model, content: [] }, { signal });
    const base = res.data?.base_resp;
    if (base?.status_code) return verdict(res.status, base.status_code, base.status_msg ?? '', model) ?? probe('error', `${base.status_code} ${base.status_msg ?? ''}`, res.status);
    return probe('ok', `${model} exists (the empty probe was accepted)`, res.status);
  } catch (err) {
    if (isAxiosError(err) && err.response) {
      const data = err.response.data as { error?: { message?: string }; base_resp?: { status_code?: number; status_msg?: string } } | null;
      const message = data?.error?.message ?? data?.base_resp?.status_msg ?? bodyText(data);
      const code = data?.base_resp?.status_code ?? codeInMessage(message);
      const v = verdict(err.response.status, code, message, model);
      if (v && !(v.verdict === 'ok' && err.response.status >= 500)) return v;
    }
    return probeFromError(err);
  }
}
