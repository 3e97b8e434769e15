// The channel check of a Replicate channel: `GET {base}/models/{owner}/{name}` (and
// `/versions/{id}` for a pinned version), Replicate's model lookup; no prediction, no cost.
// 200: exists; 404: no such model or version; 401: the token.
import type { AxiosInstance } from 'axios';
import { isAxiosError } from 'axios';
import { bodyText, type ModelProbe, probe, probeFromError } from '../channel-probe';
import { parseReplicateModel } from './replicate-request';

export async function probeReplicateModel(client: AxiosInstance, value: string, signal: AbortSignal): Promise<ModelProbe> {
  const t = parseReplicateModel(value);
  if (!t) return probe('unknown_model', `"${value}" is not a Replicate model (owner/name[:version])`);
  const url = `/models/${encodeURIComponent(t.owner)}/${encodeURIComponent(t.name)}${t.version ? `/versions/${t.version}` : ''}`;
  try {
    const res = await client.get(url, { signal });
    return probe('ok', `${value} exists`, res.status);
  } catch (err) {
    if (isAxiosError(err) && err.response?.status === 404) return probe('unknown_model', `HTTP 404 ${bodyText(err.response.data)}`, 404);
    return probeFromError(err);
  }
}
