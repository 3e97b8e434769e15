// One request path for every call: bearer auth, JSON, a per-attempt timeout, and retries of the
// answers that are safe to retry: no answer at all, 409 idempotency_in_progress, 429 (after its
// Retry-After), 5xx. A generate call passes the same Idempotency-Key on every attempt, so a retry
// after a lost answer replays the first task instead of charging a second one.
import { ApiConnectionError, ApiError, MediaGenError, parseRetryAfter } from './errors';
import { VERSION } from './version';

export interface ClientOptions {
  /** Default: MEDIAGEN_API_KEY. */
  apiKey?: string;
  /** Default: MEDIAGEN_BASE_URL, else http://localhost:3000. */
  baseUrl?: string;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** Per attempt, in ms (default 60 000; a 40 MB submit needs time). */
  timeoutMs?: number;
  /** Longest Retry-After the SDK waits out by itself, in s (default 60); longer ones are thrown. */
  maxRetryAfterSeconds?: number;
  /** A fetch implementation (default: the global fetch of Node 20+). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const retryable = (e: ApiError): boolean =>
  (e.status === 409 && e.code === 'idempotency_in_progress') || e.status === 429 || e.status >= 500;

export class HttpClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly maxRetryAfterS: number;
  private readonly fetchImpl: typeof fetch;

  constructor(opts: ClientOptions = {}) {
    this.apiKey = opts.apiKey ?? process.env.MEDIAGEN_API_KEY;
    this.baseUrl = (opts.baseUrl ?? process.env.MEDIAGEN_BASE_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
    this.maxRetries = opts.maxRetries ?? 3;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.maxRetryAfterS = opts.maxRetryAfterSeconds ?? 60;
    this.fetchImpl = opts.fetch ?? globalThis.fetch;
    if (typeof this.fetchImpl !== 'function') throw new MediaGenError('No fetch available: use Node 20 or later, or pass options.fetch');
  }

  /**
   * Opens a long-lived GET (an event stream): one attempt, no per-attempt timeout (the stream
   * lasts as long as the task; heartbeats keep it alive), aborted by `signal` only.
   */
  async openStream(path: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    if (!this.apiKey) throw new MediaGenError('No API key: pass { apiKey } or set MEDIAGEN_API_KEY');
    return this.fetchImpl(new URL(this.baseUrl + path), {
      method: 'GET',
      headers: { Authorization: `Bearer ${this.apiKey}`, Accept: 'text/event-stream', 'User-Agent': `mediagen-client/${VERSION} node/${process.version}`, ...headers },
      signal,
    });
  }

  async request<T>(o: RequestOptions): Promise<T> {
    if (!this.apiKey) throw new MediaGenError('No API key: pass { apiKey } or set MEDIAGEN_API_KEY');
    const url = new URL(this.baseUrl + o.path);
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.apiKey}`,
      Accept: 'application/json',
      'User-Agent': `mediagen-client/${VERSION} node/${process.version}`,
    };
    if (o.body !== undefined) headers['Content-Type'] = 'application/json';
    if (o.idempotencyKey) headers['Idempotency-Key'] = o.idempotencyKey;
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);

    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.maxRetries;
      let res: Response;
      try {
        const signals = [AbortSignal.timeout(this.timeoutMs), ...(o.signal ? [o.signal] : [])];
        res = await this.fetchImpl(url, { method: o.method, headers, body, signal: AbortSignal.any(signals) });
      } catch (err) {
        if (o.signal?.aborted) throw o.signal.reason;
        const e = new ApiConnectionError(`${o.method} ${url.pathname}: no answer (${(err as Error).message})`, { cause: err });
        if (last) throw e;
        await sleep(backoffMs(attempt), o.signal);
        continue;
      }
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      if (res.ok) return parsed as T;
      const e = ApiError.generate(res.status, parsed, res.headers);
      if (last || !retryable(e)) throw e;
      const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
      if (retryAfter !== undefined && retryAfter > this.maxRetryAfterS) throw e;
      await sleep(retryAfter !== undefined ? retryAfter * 1000 : backoffMs(attempt), o.signal);
    }
  }
}

/** Exponential backoff with jitter: about 0.5 s, 1 s, 2 s ... at most 8 s. */
function backoffMs(attempt: number): number {
  return Math.min(8000, 500 * 2 ** attempt) * (0.75 + Math.random() / 2);
}
