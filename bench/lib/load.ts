// Load generation: autocannon, or undici's Pool driven in a closed loop. Every response is handed
// to `check`; a figure only counts the responses that passed, and the run reports how many did not
// and the first reason why.
//
// Why two: the load generator shares the machine with the servers it measures, so what it spends
// per response is taken from them. autocannon parses responses with http-parser-js (JavaScript, a
// regular expression per header line) and builds a per-call request anew with a deep clone, so its
// cost per response grows with the number of response headers: with a plain Node server in the
// same process, answering 21 headers instead of 3 cost the pair 14-18 us more per response under
// autocannon and 6-7 us more under undici (llhttp in WebAssembly, one dispatch per request, no
// stream or promise per response); docs/benchmark.md, "The poll floor". A comparison of two servers that send different header sets (the poll section:
// the gateway's 21 against a bare Express route's 7) uses undici, so it measures the servers
// rather than the load generator's parser.
import autocannon from 'autocannon';
import { Pool } from 'undici';

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
  /** 'autocannon' (the default) or 'undici' (see above). */
  engine?: 'autocannon' | 'undici';
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
  if (o.engine === 'undici') return undiciLoad(o);
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

/**
 * The same run with undici: `connections` loops, each sending its next request when the previous
 * response has been read (as autocannon does without pipelining), over a Pool of as many
 * keep-alive connections. Latencies in ms, percentiles over every response.
 */
async function undiciLoad(o: LoadOptions): Promise<LoadResult> {
  const url = new URL(o.url);
  const timeoutMs = (o.timeoutS ?? 30) * 1000;
  const pool = new Pool(url.origin, { connections: o.connections, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 60_000 });
  const next = typeof o.request === 'function' ? o.request : () => o.request as LoadRequest;
  let latencies = new Float64Array(1 << 16);
  let total = 0;
  let ok = 0;
  let bad = 0;
  let errors = 0;
  let timeouts = 0;
  let firstBad: string | null = null;
  let sent = 0;
  const start = performance.now();
  const endAt = o.amount ? Infinity : start + (o.duration ?? 10) * 1000;
  const more = () => (o.amount ? sent < o.amount : performance.now() < endAt);
  const record = (ms: number) => {
    if (total === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[total++] = ms;
  };

  const loop = (done: () => void) => {
    if (!more()) return done();
    sent += 1;
    const r = next();
    const t0 = performance.now();
    const chunks: Buffer[] = [];
    let status = 0;
    pool.dispatch(
      { method: o.method, path: r.path, headers: r.headers, body: r.body },
      {
        onConnect() {},
        onHeaders(s: number) {
          status = s;
          return true;
        },
        onData(chunk: Buffer) {
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          record(performance.now() - t0);
          const body = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString();
          const problem = o.check(status, body, r.tag);
          if (problem === null) ok += 1;
          else {
            bad += 1;
            firstBad ??= `${status}: ${problem} ${body.slice(0, 300)}`;
          }
          loop(done);
        },
        onError(err: Error & { code?: string }) {
          record(performance.now() - t0);
          if (err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT') timeouts += 1;
          else errors += 1;
          // A refused or reset connection: the next request opens another, without a busy loop.
          setImmediate(() => loop(done));
        },
      } as never,
    );
  };
  await Promise.all(Array.from({ length: o.connections }, () => new Promise<void>((resolve) => loop(resolve))));
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  const sorted = latencies.subarray(0, total).sort();
  const at = (q: number) => (total === 0 ? 0 : sorted[Math.min(total - 1, Math.floor((q / 100) * total))]);
  let sum = 0;
  for (let i = 0; i < total; i++) sum += sorted[i];
  return {
    rps: ok / seconds,
    p50: Number(at(50).toFixed(2)),
    p99: Number(at(99).toFixed(2)),
    mean: total ? sum / total : 0,
    total,
    ok,
    bad,
    firstBad,
    errors,
    timeouts,
    seconds,
  };
}
