// A pinned GET for result downloads of hundreds of MiB, through Node's own HTTP client (undici,
// whose parser is llhttp): no HTTP parser of ours on a connection to a server we do not trust.
// - Pinned: the connection goes only to the addresses url-policy.ts checked (the connector's
//   `lookup` answers with them, never DNS). TLS verifies the certificate against the URL's host name.
// - Kept alive, still pinned: a client whose response ended cleanly (every byte of its framing
//   received, nothing failed or aborted) waits idle a few seconds for the next download of the same
//   origin whose own check approved exactly the same addresses (idle-clients.ts). Any connection
//   such a client makes goes to those addresses, so a request only ever reuses a socket its own
//   check would have allowed; a new DNS answer is another key. A result download no longer pays a
//   TCP (and TLS) handshake each time it follows another from the same host (time to result). A
//   transfer that failed, was cut, aborted or closed early destroys its client: only clean ends are
//   reused, and bytes a server sends after a response are an error of the idle connection, never
//   the next response.
// - Bounded memory: the body is copied into 256 KiB buffers from a process-wide pool and lent to
//   the consumer one at a time (nextChunk: the previous chunk goes back to the pool). A transfer
//   holds at most the buffer being filled, READY_MAX full ones and the one lent out; when the
//   consumer is slower the response is paused, so the upstream waits in TCP flow control, not in
//   our memory. What stays is one fresh buffer per socket read (undici's body chunks are views of
//   it), garbage that young-collect.ts has collected every 16 MiB read.
// - Deadlines: the caller's signal is the one deadline over connect, head and body (a dripping
//   body is cut by it, which an idle timer would not do); undici's idle timers are off, its
//   connect timeout stays.
// - Framing is llhttp's, strict: Content-Length beside Transfer-Encoding, two lengths, folded or
//   bare-LF lines, control characters in a header and a body shorter than its length are errors,
//   never a short or doubled file. An unasked 100 Continue is refused, 103 is skipped.
// - undici 8 at least: undici 7 asserted (an uncatchable crash of the process) when a server
//   closed the connection while the response was paused for a slow consumer.
import type { Client, Dispatcher } from 'undici';
import { BufferPool } from './buffer-pool';
import { MediaProblem, deadlineProblem, throwIfAborted } from './problem';
import { describeNetError, pinnedLookup, type Hop } from './safe-fetch';
import type { ResolvedAddress } from './url-policy';
import { noteBytesRead } from './young-collect';
import { IdleClients, idleKey } from './idle-clients';

export const POOLED_CHUNK = 256 * 1024;
/** Shared by the downloads of a process; idle buffers kept: 16 MiB. */
export const downloadPool = new BufferPool(POOLED_CHUNK, 64);
/** Full chunks waiting for the consumer before the response is paused. */
const READY_MAX = 2;
/** The largest response head accepted (status line and headers). */
const MAX_HEAD = 64 * 1024;
/** Connecting (TCP and TLS) to one address. */
const CONNECT_TIMEOUT_MS = 10_000;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The body as borrowed chunks: each is valid until the next nextChunk() or close(). */
export interface PooledBody {
  /** The next bytes, null at the end; rejects when the transfer failed. One call at a time. */
  nextChunk(): Promise<Buffer | null>;
  /** Ends the transfer (idempotent): closes the connection, gives every buffer back. */
  close(err?: Error): void;
}

export interface PooledResponse {
  statusCode: number;
  /** Lower-case names; repeated headers joined with ", " (as node:http does). */
  headers: Record<string, string>;
  body: PooledBody;
  destroy(err?: Error): void;
}

/**
 * undici, loaded by the first download: loading it costs a process about 25 MiB of RSS, and the
 * gateway imports this package (reference media) without ever downloading a result.
 */
let undici: Promise<typeof import('undici')> | null = null;

/** A Hop (safe-fetch.ts) reading bodies into `pool`. */
export function pooledHop(pool: BufferPool = downloadPool): Hop<PooledResponse> {
  return async (url, addresses, headers, signal) => {
    throwIfAborted(signal);
    const checked = requestHeaders(headers);
    const { Client: ClientClass } = await (undici ??= import('undici'));
    throwIfAborted(signal);
    return new Promise((resolve, reject) => {
      new Transfer(ClientClass, pool, url, addresses, checked, signal, resolve, reject);
    });
  };
}

export const pooledRequest: Hop<PooledResponse> = pooledHop();

/** Clients of downloads that ended cleanly, per origin and checked addresses (shared by the process). */
export const idleDownloadClients = new IdleClients<Client>();

class Transfer implements PooledBody, Dispatcher.DispatchHandler {
  private readonly client: Client;
  private readonly key: string;
  /** Handed back to idleDownloadClients: another transfer may use it now, this one must not touch it. */
  private clientReturned = false;
  private controller: Dispatcher.DispatchController | null = null;
  private fill: Buffer | null = null;
  private fillLen = 0;
  private readonly ready: Buffer[] = [];
  private readyLens: number[] = [];
  private lent: Buffer | null = null;
  private waiter: { resolve: (b: Buffer | null) => void; reject: (e: Error) => void } | null = null;
  private headSeen = false;
  /** Content-Length when the response has one, and the body bytes seen so far. */
  private length: number | null = null;
  private received = 0;
  private ended = false;
  private failure: Error | null = null;
  private closed = false;
  private readonly onAbort = () => this.fail(deadlineProblem(this.signal));

  constructor(
    ClientClass: typeof Client,
    private readonly pool: BufferPool,
    url: URL,
    addresses: ResolvedAddress[],
    headers: Record<string, string>,
    private readonly signal: AbortSignal,
    private readonly resolveHead: (r: PooledResponse) => void,
    private readonly rejectHead: (e: Error) => void,
  ) {
    this.key = idleKey(url.origin, addresses);
    this.client =
      idleDownloadClients.take(this.key) ??
      new ClientClass(url.origin, {
        connect: { lookup: pinnedLookup(addresses), timeout: CONNECT_TIMEOUT_MS },
        // The caller's signal is the deadline over the whole transfer.
        headersTimeout: 0,
        bodyTimeout: 0,
        maxHeaderSize: MAX_HEAD,
        pipelining: 1,
      });
    signal.addEventListener('abort', this.onAbort, { once: true });
    this.client.dispatch({ origin: url.origin, path: `${url.pathname || '/'}${url.search}`, method: 'GET', headers }, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.failure || this.closed) controller.abort(this.failure ?? new Error('the response body was closed'));
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, raw: Record<string, string | string[] | undefined>): void {
    this.controller = controller;
    if (statusCode < 200) return; // interim (103 Early Hints): the real response follows
    // No prototype: a header named __proto__ or constructor is just a header.
    const headers = Object.create(null) as Record<string, string>;
    for (const [k, v] of Object.entries(raw)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    this.headSeen = true;
    this.length = /^\d{1,15}$/.test(headers['content-length'] ?? '') ? Number(headers['content-length']) : null;
    this.resolveHead({ statusCode, headers, body: this, destroy: (err) => this.close(err) });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.closed || this.failure) return;
    let s = 0;
    while (s < chunk.length) {
      if (!this.fill) {
        this.fill = this.pool.take();
        this.fillLen = 0;
      }
      const n = chunk.copy(this.fill, this.fillLen, s);
      this.fillLen += n;
      s += n;
      if (this.fillLen === this.fill.length) this.queueFill();
    }
    this.received += chunk.length;
    noteBytesRead(chunk.length);
    this.deliver();
    // Never paused on the last byte of a known length: undici would take the server's close that
    // may follow for a cut response (when the server did not say Connection: close).
    const last = this.length !== null && this.received >= this.length;
    if (this.ready.length >= READY_MAX && !controller.paused && !last) controller.pause();
  }

  onResponseEnd(): void {
    if (this.closed || this.failure) return;
    this.ended = true;
    this.queueFill();
    this.signal.removeEventListener('abort', this.onAbort);
    // Every byte of the response's framing arrived (undici reports a short or overlong body as an
    // error, not an end): its connection may serve the next download of the same key.
    this.clientReturned = true;
    idleDownloadClients.put(this.key, this.client);
    this.deliver();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.fail(err, true);
  }

  private queueFill(): void {
    if (!this.fill) return;
    if (this.fillLen > 0) {
      this.ready.push(this.fill);
      this.readyLens.push(this.fillLen);
    } else this.pool.give(this.fill);
    this.fill = null;
    this.fillLen = 0;
  }

  private destroyClient(err?: Error): void {
    if (this.clientReturned) return;
    // Errors of a client being destroyed have already reached (or no longer matter to) this transfer.
    this.client.destroy(err ?? null).catch(() => undefined);
  }

  /** `fromUndici`: a network or protocol error, said in words; else the caller's own error, as it is. */
  private fail(err: Error, fromUndici = false): void {
    if (this.failure || this.closed || this.ended) return;
    if (this.signal.aborted) this.failure = deadlineProblem(this.signal);
    else if (!fromUndici || err instanceof MediaProblem) this.failure = err;
    else this.failure = new MediaProblem(this.headSeen ? `the connection was cut (${describe(err)})` : `could not be fetched (${describe(err)})`);
    this.signal.removeEventListener('abort', this.onAbort);
    this.controller?.abort(this.failure);
    this.destroyClient(this.failure);
    this.release(false);
    if (!this.headSeen) this.rejectHead(this.failure);
    this.deliver();
  }

  /** Hands the oldest bytes to a waiting consumer: full chunks first, then a partial fill. */
  private deliver(): void {
    const w = this.waiter;
    if (!w) return;
    if (this.failure) {
      this.waiter = null;
      return w.reject(this.failure);
    }
    if (this.ready.length === 0 && (this.fillLen > 0 || this.ended)) this.queueFill();
    const buf = this.ready.shift();
    if (!buf) {
      if (!this.ended) return;
      this.waiter = null;
      this.release(false);
      return w.resolve(null);
    }
    const len = this.readyLens.shift()!;
    this.waiter = null;
    this.lent = buf;
    w.resolve(len === buf.length ? buf : buf.subarray(0, len));
    if (this.controller?.paused && this.ready.length < READY_MAX && !this.ended) this.controller.resume();
  }

  nextChunk(): Promise<Buffer | null> {
    if (this.waiter) return Promise.reject(new Error('nextChunk: one call at a time'));
    if (this.lent) {
      this.pool.give(this.lent);
      this.lent = null;
    }
    if (this.closed) return Promise.reject(this.failure ?? new Error('the response body was closed'));
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
      this.deliver();
    });
  }

  close(err?: Error): void {
    if (this.closed) return;
    if (!this.ended && !this.failure) this.fail(err ?? new Error('the response body was closed'));
    this.closed = true;
    this.signal.removeEventListener('abort', this.onAbort);
    this.destroyClient();
    this.release(true);
    const w = this.waiter;
    this.waiter = null;
    w?.reject(this.failure ?? err ?? new Error('the response body was closed'));
  }

  /** Gives back the buffers nobody reads; the lent one too once the consumer is done (close). */
  private release(withLent: boolean): void {
    for (const b of this.ready) this.pool.give(b);
    this.ready.length = 0;
    this.readyLens = [];
    if (this.fill) this.pool.give(this.fill);
    this.fill = null;
    this.fillLen = 0;
    if (withLent && this.lent) {
      this.pool.give(this.lent);
      this.lent = null;
    }
  }
}

/** What went wrong, in words for the task's failure detail. */
function describe(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
  // undici asserts on some impossible heads (a status below 100): still the server's doing.
  if (code === 'ERR_ASSERTION') return 'malformed HTTP response';
  if (code === 'UND_ERR_SOCKET') return 'the connection closed before the end of the response';
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return 'the body does not match its Content-Length';
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return `the head is larger than ${MAX_HEAD} bytes`;
  if (err.name === 'HTTPParserError' || code?.startsWith('HPE_')) return `malformed HTTP response: ${err.message}`;
  if (err.name === 'InformationalError' || err.name === 'SocketError') return `malformed HTTP response: ${err.message}`;
  return describeNetError(err as NodeJS.ErrnoException);
}

/** Our request headers, checked: a name or value that could split the request is refused. */
function requestHeaders(extra: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {
    // Compressed bodies would make byte offsets meaningless, and the type check reads raw bytes.
    'accept-encoding': 'identity',
    'user-agent': 'mediagen-reference-inspector/1.0',
  };
  for (const [k, v] of Object.entries(extra)) {
    const key = k.toLowerCase();
    if (!TOKEN.test(key) || key === 'host' || key === 'connection' || /[\r\n\0]/.test(v)) throw new TypeError(`invalid request header ${JSON.stringify(k)}`);
    headers[key] = v;
  }
  return headers;
}
