// A pinned GET (the same checked addresses and DNS pinning as pinnedRequest) whose body is read
// into pooled buffers, for result downloads of hundreds of MiB (issue 15 point 4). node:http's
// client gives each socket read a fresh 64 KiB buffer and its parser copies the body into another,
// so ten 500 MiB downloads made ~80,000 buffers per GiB of garbage, which Node 24's collector frees
// late (+80-110 MiB of worker RSS, docs/benchmark.md "large results"). Here the socket reads into
// one caller-owned buffer (net/tls `onread`, no allocation per read; TLS too), http1-response.ts
// parses it, and the body is copied into 256 KiB buffers from a pool that the consumer borrows one
// at a time (nextChunk: the previous chunk goes back to the pool). A transfer holds at most its read
// buffer, the one being filled, READY_MAX full ones and the one lent out; when the consumer is
// slower the socket is paused, so the upstream waits in TCP flow control, not in our memory.
import net from 'node:net';
import tls from 'node:tls';
import { BufferPool } from './buffer-pool';
import { Http1ResponseParser, type ResponseHead } from './http1-response';
import { MediaProblem, deadlineProblem, throwIfAborted } from './problem';
import { describeNetError, pinnedLookup, type Hop } from './safe-fetch';
import type { ResolvedAddress } from './url-policy';

export const POOLED_CHUNK = 256 * 1024;
/** Shared by the downloads of a process; idle buffers kept: 16 MiB. */
export const downloadPool = new BufferPool(POOLED_CHUNK, 64);
/** Full chunks waiting for the consumer before the socket is paused. */
const READY_MAX = 2;
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
  headers: Record<string, string>;
  body: PooledBody;
  destroy(err?: Error): void;
}

/** A Hop (safe-fetch.ts) reading bodies into `pool`. */
export function pooledHop(pool: BufferPool = downloadPool): Hop<PooledResponse> {
  return (url, addresses, headers, signal) =>
    new Promise((resolve, reject) => {
      throwIfAborted(signal);
      new PooledTransfer(pool, url, addresses, headers, signal, resolve, reject);
    });
}

export const pooledRequest: Hop<PooledResponse> = pooledHop();

class PooledTransfer implements PooledBody {
  private readonly socket: net.Socket;
  private readonly parser: Http1ResponseParser;
  private fill: Buffer | null = null;
  private fillLen = 0;
  private readonly ready: Buffer[] = [];
  private readyLens: number[] = [];
  private lent: Buffer | null = null;
  private waiter: { resolve: (b: Buffer | null) => void; reject: (e: Error) => void } | null = null;
  private headSeen = false;
  private ended = false;
  private failure: Error | null = null;
  private closed = false;
  private paused = false;
  private readonly onAbort = () => this.fail(deadlineProblem(this.signal));

  constructor(
    private readonly pool: BufferPool,
    url: URL,
    addresses: ResolvedAddress[],
    headers: Record<string, string>,
    private readonly signal: AbortSignal,
    private readonly resolveHead: (r: PooledResponse) => void,
    private readonly rejectHead: (e: Error) => void,
  ) {
    const request = requestText(url, headers); // throws on a header that could split the request
    this.parser = new Http1ResponseParser({
      head: (h) => this.onHead(h),
      body: (src, start, end) => this.onBody(src, start, end),
      end: () => this.onEnd(),
    });
    const readBuf = pool.take();
    const onread = { buffer: readBuf, callback: (n: number) => this.onRead(readBuf, n) };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const lookup = pinnedLookup(addresses);
    this.socket =
      url.protocol === 'https:'
        ? tls.connect({ host, port, lookup, onread, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] } as tls.ConnectionOptions)
        : net.connect({ host, port, lookup, onread } as net.NetConnectOpts);
    this.socket.on('error', (e) => this.fail(e));
    // The read buffer goes back only once the socket can no longer read into it.
    this.socket.on('close', () => {
      pool.give(readBuf);
      this.onSocketClosed();
    });
    signal.addEventListener('abort', this.onAbort, { once: true });
    // Not end(): a server may take a half-closed connection for a client that left.
    this.socket.write(request, 'latin1');
  }

  private onRead(buf: Buffer, n: number): boolean {
    if (this.closed || this.failure || this.ended) return false;
    try {
      this.parser.push(buf.subarray(0, n));
    } catch (e) {
      this.fail(e as Error);
      return false;
    }
    this.deliver();
    if (this.ready.length >= READY_MAX && !this.ended) {
      this.paused = true;
      return false;
    }
    return true;
  }

  private onHead({ statusCode, headers }: ResponseHead): void {
    this.headSeen = true;
    this.resolveHead({ statusCode, headers, body: this, destroy: (err) => this.close(err) });
  }

  private onBody(src: Buffer, start: number, end: number): void {
    let s = start;
    while (s < end) {
      if (!this.fill) {
        this.fill = this.pool.take();
        this.fillLen = 0;
      }
      const n = Math.min(end - s, this.fill.length - this.fillLen);
      src.copy(this.fill, this.fillLen, s, s + n);
      this.fillLen += n;
      s += n;
      if (this.fillLen === this.fill.length) this.queueFill();
    }
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

  private onEnd(): void {
    this.ended = true;
    this.queueFill();
    this.signal.removeEventListener('abort', this.onAbort);
    // We asked for Connection: close; whatever follows the response is not ours to read.
    this.socket.destroy();
    this.deliver();
  }

  private onSocketClosed(): void {
    if (this.ended || this.failure || this.closed) return;
    try {
      this.parser.eof(); // ends a body delimited by the close, throws for one cut short
    } catch (e) {
      this.fail(e as Error);
    }
  }

  private fail(err: Error): void {
    if (this.failure || this.closed || this.ended) return;
    this.failure = this.headSeen || this.signal.aborted || err instanceof MediaProblem ? err : new MediaProblem(`could not be fetched (${describe(err)})`);
    this.signal.removeEventListener('abort', this.onAbort);
    this.socket.destroy();
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
    if (this.paused && this.ready.length < READY_MAX) {
      this.paused = false;
      this.socket.resume();
    }
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
    this.socket.destroy();
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

function describe(err: Error): string {
  return err.name === 'MalformedResponse' ? err.message : describeNetError(err as NodeJS.ErrnoException);
}

function requestText(url: URL, extra: Record<string, string>): string {
  const headers: Record<string, string> = {
    // Compressed bodies would make byte offsets meaningless, and the type check reads raw bytes.
    'accept-encoding': 'identity',
    'user-agent': 'mediagen-reference-inspector/1.0',
  };
  for (const [k, v] of Object.entries(extra)) headers[k.toLowerCase()] = v;
  headers.connection = 'close';
  let text = `GET ${url.pathname || '/'}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  for (const [k, v] of Object.entries(headers)) {
    if (!TOKEN.test(k) || k === 'host' || /[\r\n\0]/.test(v)) throw new TypeError(`invalid request header ${JSON.stringify(k)}`);
    text += `${k}: ${v}\r\n`;
  }
  return `${text}\r\n`;
}
