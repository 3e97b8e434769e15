// The SDK's entry point: `new MediaGen({ apiKey, baseUrl })` with one object per resource.
import { ClientOptions, HttpClient } from './http';
import { Images, Videos } from './resources/generate';
import { Tasks } from './resources/tasks';
import { Webhooks } from './resources/webhooks';
import { BatchItem, BatchOptions, BatchOutcome, runBatch } from './resources/batch';
import type { Balance, ModelList } from './types';

export class MediaGen {
  readonly videos: Videos;
  readonly images: Images;
  readonly tasks: Tasks;
  readonly webhooks = new Webhooks();
  private readonly http: HttpClient;

  constructor(opts: ClientOptions = {}) {
    this.http = new HttpClient(opts);
    this.tasks = new Tasks(this.http);
    this.videos = new Videos(this.http, this.tasks.remember);
    this.images = new Images(this.http, this.tasks.remember);
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** The models this service sells, with their sold tiers or variants (GET /api/models). */
  models(opts: { signal?: AbortSignal } = {}): Promise<ModelList> {
    return this.http.request<ModelList>({ method: 'GET', path: '/api/models', signal: opts.signal });
  }

  /**
   * Generates every item (a generate body; the model says video or image) and waits for each, at
   * most `concurrency` in progress at once, waiting out 429s. Answers one outcome per item, in
   * order. Each item's idempotency key is derived from the item: running the same batch again
   * (after a crash, say) replays what was created instead of charging it twice.
   */
  batch(items: readonly BatchItem[], opts: BatchOptions = {}): Promise<BatchOutcome[]> {
    return runBatch(this, items, opts);
  }

  /** The account's balance in cents and where to top it up (GET /api/balance). */
  balance(opts: { signal?: AbortSignal } = {}): Promise<Balance> {
    return this.http.request<Balance>({ method: 'GET', path: '/api/balance', signal: opts.signal });
  }
}
