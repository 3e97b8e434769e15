// The channel check of a fal channel. The queue host has no model lookup; fal's platform API does:
// `GET {platformUrl}/models?endpoint_id={app}` with the same `Key` header answers the app's entry
// (`{models: [{endpoint_id, metadata: {status}}]}`), or none for an app fal does not have. It
// proves the key and the app without queueing a request (nothing is billed).
import type { AxiosInstance } from 'axios';
import { isAxiosError } from 'axios';
import { z } from 'zod';
import { bodyText, type ModelProbe, probe, probeFromError } from '../channel-probe';

const modelsAnswer = z.object({
  models: z.array(z.looseObject({ endpoint_id: z.string(), metadata: z.looseObject({ status: z.string().optional() }).optional() })),
});

export async function probeFalApp(client: AxiosInstance, platformUrl: string, app: string, signal: AbortSignal): Promise<ModelProbe> {
  try {
    const res = await client.get<unknown>(`${platformUrl.replace(/\/+$/, '')}/models`, { params: { endpoint_id: app }, signal });
    const parsed = modelsAnswer.safeParse(res.data);
    if (!parsed.success) return probe('error', `the platform API answered an unknown shape: ${bodyText(res.data)}`, res.status);
    const found = parsed.data.models.find((m) => m.endpoint_id === app);
    if (!found) return probe('unknown_model', `fal lists no app ${app}`, res.status);
    const status = found.metadata?.status;
    return probe('ok', `${app} exists${status ? ` (${status})` : ''}`, res.status);
  } catch (err) {
    if (isAxiosError(err) && err.response?.status === 404) return probe('unknown_model', `HTTP 404 ${bodyText(err.response.data)}`, 404);
    return probeFromError(err);
  }
}
