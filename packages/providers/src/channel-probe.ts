// The answer of one channel check (`npm run channels:check`, the console's check button, the
// worker's CHANNEL_CHECK_AT_START): for one channel and one upstream model, whether the base URL
// answers, the key is accepted and the model exists. Each adapter knows the cheapest request of
// its protocol that proves it without rendering (ChannelAdapter.probeModel); this file reads the
// failures every protocol shares.
import { isAxiosError } from 'axios';
import { isUpstreamError } from './upstream-error';

/** skipped: the protocol has no check (the simulator's own http-jobs). */
export type ProbeVerdict = 'ok' | 'bad_key' | 'unknown_model' | 'unreachable' | 'error' | 'skipped';

export interface ModelProbe {
  verdict: ProbeVerdict;
  /** What the upstream said, short (for the one output line and the console). */
  detail: string;
  httpStatus?: number;
}

export const probe = (verdict: ProbeVerdict, detail: string, httpStatus?: number): ModelProbe => ({ verdict, detail: detail.slice(0, 300), ...(httpStatus ? { httpStatus } : {}) });

/** A short text of an upstream error body: its message where one of the usual shapes has one. */
export function bodyText(data: unknown): string {
  if (typeof data === 'string') return data.slice(0, 200);
  const d = data as { error?: { message?: unknown; code?: unknown } | string; detail?: unknown; message?: unknown } | null;
  const e = d?.error;
  if (typeof e === 'string') return e;
  const parts = [e?.code, e?.message, typeof d?.detail === 'string' ? d.detail : undefined, d?.message].filter((v) => typeof v === 'string' && v);
  return parts.length ? parts.join(' ') : JSON.stringify(data ?? '').slice(0, 200);
}

/**
 * The verdict of a failure no protocol rule claimed: no answer at all (DNS, refused, reset, our
 * deadline) is `unreachable`; 401/403 `bad_key`; anything else `error` with what the upstream said.
 */
export function probeFromError(err: unknown): ModelProbe {
  if (isAxiosError(err) && err.response) {
    const status = err.response.status;
    const text = `HTTP ${status} ${bodyText(err.response.data)}`;
    if (status === 401 || status === 403) return probe('bad_key', text, status);
    return probe('error', text, status);
  }
  if (isAxiosError(err)) return probe('unreachable', err.code ?? err.message);
  if (isUpstreamError(err) && err.kind === 'transient') return probe('unreachable', err.message);
  return probe('error', (err as Error)?.message ?? String(err));
}
