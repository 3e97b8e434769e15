// Large JSON bodies are decoded and parsed on worker threads (issue 11.2/11.9): JSON.parse of a
// 30 MB body is one uninterruptible step of 30-100 ms, and four of them at once (the large-body
// gate's slots) held the gateway's loop for ~290 ms under load. On a worker the main thread only
// hands over the bytes (transferred, not copied) and takes back the parsed value (a structured
// clone: a memory copy of the strings, a few ms for tens of MB). Small bodies never come here:
// for them a thread hop would cost more than the parse (see json-body.ts).
//
// The worker's code is plain JavaScript given as a string (eval): it needs no TypeScript loader,
// so it runs the same under tsx, ts-jest and a built image. Workers are started lazily, at most
// POOL_SIZE, and unref'd while idle so they never keep a process alive.
import { Worker } from 'node:worker_threads';

export const POOL_SIZE = 2;

/**
 * No field of any request accepts a string this long (an inline file is at most 10 MiB decoded,
 * ~14 M base64 characters with line breaks): a longer one is refused on the worker, so the main
 * thread never copies it in (a 30 MB string costs ~20 ms of its CPU to take back).
 */
export const MAX_STRING_CHARS = 16 * 1024 * 1024;

/** What the worker answers: the value, the parse error's message, `nul` for a U+0000, or an over-long string. */
type Answer =
  | { id: number; value: unknown }
  | { id: number; error: string }
  | { id: number; nul: true }
  | { id: number; tooLong: { path: string; chars: number } };

/**
 * No request nests deeper than a few levels; a body nesting deeper than this is refused on the
 * worker, so the main thread never deserializes (recursively) a structure thousands deep.
 */
export const MAX_DEPTH = 64;

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const MAX_DEPTH = ${MAX_DEPTH};
function containsNul(v) {
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string') { if (x.includes('\\u0000')) return true; }
    else if (x && typeof x === 'object') {
      for (const k of Object.keys(x)) { if (k.includes('\\u0000')) return true; stack.push(x[k]); }
    }
  }
  return false;
}
function longString(v, max) {
  const stack = [[v, '', 0]];
  while (stack.length) {
    const [x, path, depth] = stack.pop();
    if (typeof x === 'string') { if (x.length > max) return { path, chars: x.length }; }
    else if (x && typeof x === 'object') {
      if (depth >= MAX_DEPTH) return { deep: true };
      if (Array.isArray(x)) { for (let i = 0; i < x.length; i++) stack.push([x[i], path + '[' + i + ']', depth + 1]); }
      else { for (const k of Object.keys(x)) stack.push([x[k], path ? path + '.' + k : k, depth + 1]); }
    }
  }
  return null;
}
parentPort.on('message', ({ id, chunks, maxString }) => {
  // One piece (a body read whole) is decoded where it lies; several are joined first.
  let bytes;
  if (chunks.length === 1) bytes = new Uint8Array(chunks[0]);
  else {
    let total = 0;
    for (const c of chunks) total += c.byteLength;
    bytes = new Uint8Array(total);
    let off = 0;
    for (const c of chunks) { bytes.set(new Uint8Array(c), off); off += c.byteLength; }
  }
  chunks = null;
  let text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  bytes = null;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value;
  try {
    value = text.length === 0 ? {} : JSON.parse(text);
  } catch (e) {
    return parentPort.postMessage({ id, error: String(e && e.message) });
  }
  if (text.includes('\\\\u0000') && containsNul(value)) return parentPort.postMessage({ id, nul: true });
  text = null;
  const tooLong = longString(value, maxString);
  if (tooLong && tooLong.deep) return parentPort.postMessage({ id, error: 'Request body nests deeper than ' + MAX_DEPTH + ' levels' });
  if (tooLong) return parentPort.postMessage({ id, tooLong });
  parentPort.postMessage({ id, value });
});
`;

export class JsonParseError extends Error {}
export class JsonNulError extends Error {}
export class JsonStringTooLong extends Error {
  constructor(readonly path: string, readonly chars: number) {
    super(`${path || 'the body'}: a string of ${chars} characters; no field accepts more than ${MAX_STRING_CHARS} (an inline file is at most 10 MiB)`);
  }
}

interface Job {
  id: number;
  /** The body as pieces the worker owns once sent (transferred, then joined there). */
  chunks: ArrayBuffer[];
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export class JsonParsePool {
  private readonly idle: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly inFlight = new Map<Worker, Job>();
  private started = 0;
  private nextId = 1;

  constructor(private readonly size = POOL_SIZE) {}

  /**
   * The parsed body; JsonParseError for bad JSON, JsonNulError for a U+0000 anywhere in it,
   * JsonStringTooLong for a string over MAX_STRING_CHARS. `chunks` are handed over (detached).
   */
  parse(chunks: ArrayBuffer[] | Buffer): Promise<unknown> {
    const list = Buffer.isBuffer(chunks) ? [ownedCopy(chunks)] : chunks;
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, chunks: list, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length) {
      const w = this.idle.pop() ?? (this.started < this.size ? this.spawn() : undefined);
      if (!w) return;
      const job = this.queue.shift()!;
      this.inFlight.set(w, job);
      w.ref();
      w.postMessage({ id: job.id, chunks: job.chunks, maxString: MAX_STRING_CHARS }, job.chunks);
    }
  }

  private spawn(): Worker {
    this.started++;
    const w = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 512 } });
    w.on('message', (a: Answer) => {
      const job = this.inFlight.get(w);
      this.inFlight.delete(w);
      this.idle.push(w);
      w.unref();
      if (job && job.id === a.id) {
        if ('value' in a) job.resolve(a.value);
        else if ('nul' in a) job.reject(new JsonNulError('Request body contains a NUL character (\\u0000)'));
        else if ('tooLong' in a) job.reject(new JsonStringTooLong(a.tooLong.path, a.tooLong.chars));
        else job.reject(new JsonParseError(a.error));
      }
      this.pump();
    });
    // A worker that dies (out of memory on a hostile body) fails its job and is replaced on demand.
    const fail = (e: Error) => {
      const job = this.inFlight.get(w);
      this.inFlight.delete(w);
      const i = this.idle.indexOf(w);
      if (i >= 0) this.idle.splice(i, 1);
      this.started--;
      job?.reject(e);
      this.pump();
    };
    w.on('error', fail);
    // An answer the main thread cannot deserialize fails its job (it must not hang the request).
    w.on('messageerror', (e) => {
      const job = this.inFlight.get(w);
      this.inFlight.delete(w);
      this.idle.push(w);
      w.unref();
      job?.reject(new JsonParseError(`the parsed body could not be handed over (${e.message})`));
      this.pump();
    });
    w.on('exit', (code) => {
      if (this.inFlight.has(w) || this.idle.includes(w)) fail(new Error(`JSON parse worker exited (${code})`));
    });
    w.unref();
    return w;
  }

  async close(): Promise<void> {
    const all = [...this.idle, ...this.inFlight.keys()];
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }
}

/** An ArrayBuffer holding exactly `b`'s bytes that may be transferred (never a shared pool slab). */
export function ownedCopy(b: Uint8Array): ArrayBuffer {
  const ab = new ArrayBuffer(b.byteLength);
  new Uint8Array(ab).set(b);
  return ab;
}

/** One pool per process: the gate already bounds how many large bodies are read at once. */
export const sharedJsonParsePool = new JsonParsePool();
