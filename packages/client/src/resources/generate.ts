// videos.generate / images.generate: one idempotency key per call, chosen before the first attempt
// and kept across the SDK's own retries (http.ts), so a retry never charges twice. videos.quote /
// images.quote: what the same body would cost, with nothing created or charged.
import { randomUUID } from 'node:crypto';
import type { HttpClient } from '../http';
import type { ImageGenerateParams, Quote, SubmitResponse, SubmittedTask, TaskType, VideoGenerateParams } from '../types';

export interface GenerateOptions {
  /** Your own idempotency key (1-255 chars); default: a random UUID per call. Reuse it to retry a call yourself. */
  idempotencyKey?: string;
  /** The most the task may cost, in cents (the body's max_cost_cents): a dearer one is refused with CostAboveLimitError, uncharged. */
  maxCostCents?: number;
  signal?: AbortSignal;
}

/** The body with the options that travel in it. */
const withCeiling = (params: object, maxCostCents: number | undefined): object =>
  maxCostCents === undefined ? params : { ...params, max_cost_cents: maxCostCents };

function quote(http: HttpClient, type: TaskType, params: object, opts: { maxCostCents?: number; signal?: AbortSignal }): Promise<Quote> {
  // Nothing is created, so a retry of a quote is always safe and needs no idempotency key.
  return http.request<Quote>({ method: 'POST', path: `/api/${type}/quote`, body: withCeiling(params, opts.maxCostCents), signal: opts.signal });
}

async function generate(http: HttpClient, type: TaskType, params: object, opts: GenerateOptions, remember: (id: string, type: TaskType) => void): Promise<SubmittedTask> {
  const res = await http.request<SubmitResponse>({
    method: 'POST',
    path: `/api/${type}/generate`,
    body: withCeiling(params, opts.maxCostCents),
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
  /** What generate would charge for these params (POST /api/video/quote): validated and priced, nothing created. */
  quote(params: VideoGenerateParams, opts: { maxCostCents?: number; signal?: AbortSignal } = {}): Promise<Quote> {
    return quote(this.http, 'video', params, opts);
  }
}

export class Images {
  constructor(private readonly http: HttpClient, private readonly remember: (id: string, type: TaskType) => void) {}
  /** Submits an image task (POST /api/image/generate); some models answer `completed` at once. */
  generate(params: ImageGenerateParams, opts: GenerateOptions = {}): Promise<SubmittedTask> {
    return generate(this.http, 'image', params, opts, this.remember);
  }
  /** What generate would charge for these params (POST /api/image/quote): validated and priced, nothing created. */
  quote(params: ImageGenerateParams, opts: { maxCostCents?: number; signal?: AbortSignal } = {}): Promise<Quote> {
    return quote(this.http, 'image', params, opts);
  }
}
