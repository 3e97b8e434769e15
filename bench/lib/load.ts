// Load generation with autocannon. Every response is handed to `check`; a figure only counts the
// responses that passed, and the run reports how many did not and the first reason why.
import autocannon from 'autocannon';

export interface LoadRequest {
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Handed to `check` with this request's response. */
  tag?: unknown;
}

export interface LoadOptions {
  url: string;
  method: 'GET' | 'POST';
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration?: number;
  amount?: number;
  /** The request to send next (called once per request); or one fixed request. */
  request: LoadRequest | (() => LoadRequest);
  /** null when the response is right, else what is wrong with it. */
  check: (status: number, body: string, tag: unknown) => string | null;
  timeoutS?: number;
}

export interface LoadResult {
  /** Responses that passed the check, per second of the run. */
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  total: number;
  ok: number;
  bad: number;
  firstBad: string | null;
  errors: number;
  timeouts: number;
  seconds: number;
}

export async function load(o: LoadOptions): Promise<LoadResult> {
  let ok = 0;
  let bad = 0;
  let firstBad: string | null = null;
  // autocannon keeps one context per connection, and a connection has one request out at a time:
  // the tag set when a request is built is still there when its response arrives.
  const onResponse = (status: number, body: string, context: object) => {
    const problem = o.check(status, body, (context as { tag?: unknown }).tag);
    if (problem === null) ok += 1;
    else {
      bad += 1;
      firstBad ??= `${status}: ${problem} ${body.slice(0, 300)}`;
    }
  };
  const fixed = typeof o.request === 'function' ? null : o.request;
  const next = typeof o.request === 'function' ? o.request : null;
  const req: autocannon.Request = fixed
    ? { method: o.method, path: fixed.path, headers: fixed.headers, body: fixed.body, onResponse: (s, b) => onResponse(s, b, { tag: fixed.tag }) }
    : {
        method: o.method,
        onResponse,
        setupRequest: (r: autocannon.Request, context: object) => {
          const n = next!();
          (context as { tag?: unknown }).tag = n.tag;
          return { ...r, method: o.method, path: n.path, headers: n.headers, body: n.body };
        },
      };
  const result = await autocannon({
    url: o.url,
    connections: o.connections,
    ...(o.amount ? { amount: o.amount } : { duration: o.duration }),
    timeout: o.timeoutS ?? 30,
    requests: [req],
  });
  const seconds = result.duration;
  return {
    rps: ok / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.mean,
    total: result.requests.total,
    ok,
    bad,
    firstBad,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds,
  };
}

/** A JSON check: status, then a predicate over the parsed body. */
export function expectJson(status: number, pred: (b: Record<string, unknown>, tag: unknown) => string | null) {
  return (s: number, body: string, tag: unknown): string | null => {
    if (s !== status) return `status ${s}, expected ${status}`;
    let b: Record<string, unknown>;
    try {
      b = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return 'body is not JSON';
    }
    return pred(b, tag);
  };
}
