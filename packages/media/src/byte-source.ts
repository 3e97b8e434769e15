// Random access to the bytes of a reference file, for the parsers. Over HTTP it reads aligned
// chunks with Range requests, so a parser that skips the media data (an MP4 with its index at the
// end) costs a seek, not a download. A server that ignores Range gets its body read from the start
// and cut at the byte budget. Either way at most `maxBytesPerRef` bytes come off the network.

import type { IncomingMessage } from 'node:http';
import { BodyReader, readAtMost } from './body-reader';
import { formatBytes } from './data-uri';
import type { MediaPolicy } from './policy';
import { MediaProblem } from './problem';
import { safeFetch } from './safe-fetch';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface ByteSource {
  /** Total size in bytes, when known. */
  readonly size: number | undefined;
  /** Bytes [pos, pos + len); fewer only at the end of the file. */
  read(pos: number, len: number): Promise<Buffer>;
  close(): void;
}

export class BufferSource implements ByteSource {
  constructor(private readonly data: Buffer) {}
  get size(): number {
    return this.data.length;
  }
  async read(pos: number, len: number): Promise<Buffer> {
    return this.data.subarray(pos, pos + len);
  }
  close(): void {}
}

type HttpPolicy = Pick<MediaPolicy, 'allowPrivate' | 'resolve' | 'maxRedirects' | 'maxBytesPerRef'>;
const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

export class HttpSource implements ByteSource {
  size: number | undefined;
  /** Bytes taken off the network and HTTP requests made, over the life of this source. */
  bytesRead = 0;
  requests = 0;
  private readonly chunks = new Map<number, Buffer>();
  /** Set when the server answered the first request with the whole file (200, Range ignored). */
  private whole?: { reader: BodyReader; buf: Buffer; have: number; ended: boolean };

  private constructor(private url: string, private readonly policy: HttpPolicy, private readonly signal: AbortSignal, private readonly chunk: number) {}

  /** Opens `url` with a first Range request for `chunkSize` bytes. */
  static async open(url: string, policy: HttpPolicy, signal: AbortSignal, chunkSize = 64 * 1024): Promise<HttpSource> {
    const src = new HttpSource(url, policy, signal, Math.min(chunkSize, policy.maxBytesPerRef));
    try {
      await src.first();
    } catch (e) {
      src.close();
      throw e;
    }
    return src;
  }

  private async first(): Promise<void> {
    const { res, url } = await this.get(0, this.chunk - 1);
    this.url = url.toString(); // later Range requests go where the redirects led, checked again
    if (res.statusCode === 200) {
      const len = Number(res.headers['content-length']);
      this.size = res.headers['content-length'] !== undefined && Number.isSafeInteger(len) ? len : undefined;
      this.whole = { reader: new BodyReader(res, this.signal), buf: Buffer.alloc(0), have: 0, ended: false };
      return;
    }
    if (res.statusCode === 416) throw drop(res, new MediaProblem('the file is empty'));
    await this.takeRange(res, 0, this.chunk);
  }

  async read(pos: number, len: number): Promise<Buffer> {
    if (!Number.isSafeInteger(pos) || pos < 0) throw new MediaProblem('the file points outside itself');
    if (this.size !== undefined) len = Math.min(len, this.size - pos);
    // No read may ask for more than the whole budget, whatever a parser or a lying server (a size
    // of `*`, a huge Content-Range total) made it believe: the chunk loop below is then bounded by
    // maxBytesPerRef / chunk iterations, and a read past the budget is refused, not attempted
    // (a lying server once made one read(0, MAX_SAFE_INTEGER) looped ~1.4e11 times synchronously).
    len = Math.min(len, this.policy.maxBytesPerRef);
    if (len <= 0) return Buffer.alloc(0);
    if (this.whole) return this.readWhole(pos, len);
    const c = this.chunk;
    const first = Math.floor(pos / c);
    const last = Math.floor((pos + len - 1) / c);
    let from = -1;
    let to = -1;
    for (let i = first; i <= last; i++) {
      if (!this.chunks.has(i)) {
        if (from < 0) from = i;
        to = i;
      }
    }
    if (from >= 0) await this.fetchChunks(from, to);
    const parts: Buffer[] = [];
    for (let i = first; i <= last; i++) {
      if ((i - first) % 64 === 63) await nextTurn(); // lets timers (and /healthz) run between pieces
      const piece = this.chunks.get(i);
      if (!piece) break;
      parts.push(piece);
      if (piece.length < c) break; // a short chunk is the end of the file
    }
    const off = pos - first * c;
    return Buffer.concat(parts).subarray(off, off + len);
  }

  private async fetchChunks(from: number, to: number): Promise<void> {
    const start = from * this.chunk;
    let end = (to + 1) * this.chunk - 1;
    if (this.size !== undefined) end = Math.min(end, this.size - 1);
    this.spend(end - start + 1);
    const { res } = await this.get(start, end);
    // Past the end of a file whose size the server did not tell (Content-Range: bytes 0-9/*).
    if (res.statusCode === 416) {
      res.destroy();
      this.size ??= start;
      return;
    }
    if (res.statusCode === 200) throw drop(res, new MediaProblem('the server stopped honouring Range requests'));
    await this.takeRange(res, start, end - start + 1);
  }

  /** Stores the body of a 206 answer to a request for `want` bytes at `start`. */
  private async takeRange(res: IncomingMessage, start: number, want: number): Promise<void> {
    if (res.statusCode !== 206) throw drop(res, new MediaProblem(httpStatusProblem(res.statusCode ?? 0)));
    const m = CONTENT_RANGE.exec(String(res.headers['content-range'] ?? ''));
    if (!m || Number(m[1]) !== start) throw drop(res, new MediaProblem('the server answered with a different byte range than asked'));
    if (m[3] !== '*') this.size = Number(m[3]);
    const data = await readAtMost(res, want, this.signal);
    this.bytesRead += data.length;
    if (data.length < want && this.size === undefined) this.size = start + data.length;
    for (let off = 0; off < data.length; off += this.chunk) {
      this.chunks.set((start + off) / this.chunk, data.subarray(off, off + this.chunk));
    }
  }

  private async readWhole(pos: number, len: number): Promise<Buffer> {
    const w = this.whole!;
    const need = pos + len;
    const max = this.policy.maxBytesPerRef;
    while (w.have < need && !w.ended) {
      if (w.have >= max) {
        throw new MediaProblem(`the server ignores Range requests and the part needed lies beyond the first ${formatBytes(max)}`);
      }
      const piece = await w.reader.pull();
      if (!piece) {
        w.ended = true;
        this.size = w.have;
        break;
      }
      const take = piece.subarray(0, max - w.have);
      if (w.have + take.length > w.buf.length) {
        const grown = Buffer.allocUnsafe(Math.min(max, Math.max(2 * w.buf.length, w.have + take.length, 64 * 1024)));
        w.buf.copy(grown, 0, 0, w.have);
        w.buf = grown;
      }
      take.copy(w.buf, w.have);
      w.have += take.length;
      this.bytesRead += piece.length;
    }
    return w.buf.subarray(pos, Math.min(need, w.have));
  }

  private spend(n: number): void {
    if (this.bytesRead + n > this.policy.maxBytesPerRef) {
      throw new MediaProblem(`reading it would take more than ${formatBytes(this.policy.maxBytesPerRef)}`);
    }
  }

  private async get(start: number, end: number) {
    this.requests++;
    return safeFetch(this.url, this.policy, { headers: { range: `bytes=${start}-${end}` }, signal: this.signal });
  }

  close(): void {
    this.whole?.reader.close();
  }
}

function drop(res: IncomingMessage, e: MediaProblem): MediaProblem {
  res.destroy();
  return e;
}

export function httpStatusProblem(status: number): string {
  if (status === 404 || status === 410) return `not found (HTTP ${status})`;
  if (status === 401 || status === 403) return `access denied (HTTP ${status}); the URL must be public, without login`;
  return `the server answered HTTP ${status}`;
}
