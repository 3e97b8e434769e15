// videos.generate and images.generate: one idempotency key per call, chosen before the first
// attempt and kept across the SDK's own retries (http.ts), so a retry never charges twice.
import { randomUUID } from 'node:crypto';
import type { HttpClient } from '../http';
import type { ImageGenerateParams, SubmitResponse, SubmittedTask, TaskType, VideoGenerateParams } from '../types';

export interface GenerateOptions {
  /** Your own idempotency key (1-255 chars); default: a random UUID per call. Reuse it to retry a call yourself. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

async function generate(http: HttpClient, type: TaskType, params: object, opts: GenerateOptions, remember: (id: string, type: TaskType) => void): Promise<SubmittedTask> {
  const res = await http.request<SubmitResponse>({
    method: 'POST',
    path: `/api/${type}/generate`,
    body: params,
    idempotencyKey: opts.idempotencyKey ?? randomUUID(),
    signal: opts.signal,
  });
  remember(res.taskId, type);
  return { ...res, type };
}

export class Videos {
  constructor(private readonly http: HttpClient, private readonly remember: (id: string, type: TaskType) => void) {}
  /** Submits a video task (POST /api/video/generate); poll it with tasks.wait. */
  generate(params: VideoGenerateParams, opts: GenerateOptions = {}): Promise<SubmittedTask> {
    return generate(this.http, 'video', params, opts, this.remember);
  }
}

export class Images {
  constructor(private readonly http: HttpClient, private readonly remember: (id: string, type: TaskType) => void) {}
  /** Submits an image task (POST /api/image/generate); some models answer `completed` at once. */
  generate(params: ImageGenerateParams, opts: GenerateOptions = {}): Promise<SubmittedTask> {
    return generate(this.http, 'image', params, opts, this.remember);
  }
}
