// Filesystem storage under one root directory. A file's content type is what its name's extension
// says (keys.ts typeOfName: every result key ends in the extension of its type); any other type is
// kept beside the file in a dotfile sidecar (`.<name>.meta.json`), which keys can never name
// (keys.ts forbids dotfiles). Until 2026-12-02 every file had a sidecar; such sidecars are still read.
// Skipping it saves one file creation and one rename per result (about 0.15 ms of a small result's
// 0.5 ms put on this machine's ext4, on the worker's thread and on the path to the task's completion).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidKey, typeOfName } from './keys';
import { sendFile } from './file-sender';
import { isChunkSource, type ByteRange, type ChunkSource, type FileInfo, type StorageDriver, type StoredFile } from './storage-driver';

interface Sidecar {
  contentType: string;
}

export class FsStorageDriver implements StorageDriver {
  private readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    const p = path.resolve(this.root, key);
    // Belt and braces: the key rules already exclude `..`, but a path outside the root is never served.
    if (!p.startsWith(this.root + path.sep)) throw new Error(`storage key escapes the root: ${key}`);
    return p;
  }

  /** Whether the file's name says its type exactly (then it has no sidecar). */
  private static implies(file: string, contentType: string): boolean {
    return typeOfName(file) === contentType;
  }

  private static sidecarOf(file: string): string {
    return path.join(path.dirname(file), `.${path.basename(file)}.meta.json`);
  }

  async put(key: string, data: Buffer | NodeJS.ReadableStream | ChunkSource, contentType: string): Promise<StoredFile> {
    let file: string;
    let body: Buffer | NodeJS.ReadableStream | ChunkSource = data;
    try {
      file = this.pathOf(key);
      if (isChunkSource(data)) body = await peekSmall(data);
      if (Buffer.isBuffer(body) && body.length <= SMALL_WRITE_BYTES) return this.putSmall(key, file, body, contentType);
      await fsp.mkdir(path.dirname(file), { recursive: true });
    } catch (err) {
      // The caller handed the stream over: never leave it (and the socket under it) open.
      if (isChunkSource(data)) data.close();
      else if (!Buffer.isBuffer(data)) (data as Readable).destroy?.();
      throw err;
    }
    // Write to temporary names and rename: a crash or a failed download never leaves a partial file
    // under the real key, and a retried put simply replaces the earlier one.
    const tmp = path.join(path.dirname(file), `.tmp-${randomBytes(6).toString('hex')}`);
    const tmpMeta = `${tmp}.meta`;
    const src = body;
    const implied = FsStorageDriver.implies(file, contentType);
    try {
      const writeData = async (): Promise<number> => {
        if (Buffer.isBuffer(src)) {
          await fsp.writeFile(tmp, src);
          return src.length;
        }
        if (isChunkSource(src)) return writeChunks(tmp, src);
        const out = fs.createWriteStream(tmp);
        await pipeline(src as Readable, out);
        return out.bytesWritten;
      };
      // The sidecar is written while the bytes arrive and the size is counted as they are written:
      // each file operation is a thread-pool round trip, and an answers-at-once submit waits for
      // every one (traced: 4-6 ms of a small image's put on a busy machine). Both settle before
      // any cleanup below, so no temporary file is created after its removal. The sidecar is
      // renamed first: a file under its real key always has its type beside it.
      // A sidecar left by an earlier put of the same key with another type goes (a retried put
      // replaces the file, and the type with it).
      const sidecar = implied ? fsp.rm(FsStorageDriver.sidecarOf(file), { force: true }) : fsp.writeFile(tmpMeta, sidecarJson(contentType));
      const [bytes, meta] = await Promise.allSettled([writeData(), sidecar]);
      if (bytes.status === 'rejected') throw bytes.reason;
      if (meta.status === 'rejected') throw meta.reason;
      const size = bytes.value;
      if (!implied) await fsp.rename(tmpMeta, FsStorageDriver.sidecarOf(file));
      await fsp.rename(tmp, file);
      return { key, bytes: size };
    } catch (err) {
      await Promise.allSettled([fsp.rm(tmp, { force: true }), fsp.rm(tmpMeta, { force: true })]);
      throw err;
    }
  }

  /**
   * A small file already whole in memory, written with synchronous calls: the same temporary names,
   * renames and order as put(), in one turn of the event loop. Each asynchronous file operation is
   * a round trip through libuv's thread pool that waits for a pool thread and then for the event
   * loop; put()'s six in sequence traced 4-8 ms for a 10 KB image in a busy worker on the
   * answers-at-once path (1.0 ms in a process doing nothing else). These calls hold the loop 0.26
   * ms p50 for 10 KB and 0.58 ms for 256 KiB (same machine, load 5), on a local disk: this driver
   * serves one machine's own disk (storage-driver.ts), not a network share. Larger files and
   * streams keep the thread pool.
   */
  private putSmall(key: string, file: string, bytes: Buffer, contentType: string): StoredFile {
    const tmp = path.join(path.dirname(file), `.tmp-${randomBytes(6).toString('hex')}`);
    const tmpMeta = `${tmp}.meta`;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      if (FsStorageDriver.implies(file, contentType)) {
        fs.rmSync(FsStorageDriver.sidecarOf(file), { force: true });
        fs.writeFileSync(tmp, bytes);
      } else {
        fs.writeFileSync(tmpMeta, sidecarJson(contentType));
        fs.writeFileSync(tmp, bytes);
        fs.renameSync(tmpMeta, FsStorageDriver.sidecarOf(file));
      }
      fs.renameSync(tmp, file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      fs.rmSync(tmpMeta, { force: true });
      throw err;
    }
    return { key, bytes: bytes.length };
  }

  async stat(key: string): Promise<FileInfo | null> {
    const file = this.pathOf(key);
    let bytes: number;
    try {
      const st = await fsp.stat(file);
      if (!st.isFile()) return null;
      bytes = st.size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let contentType = typeOfName(file) ?? 'application/octet-stream';
    try {
      const meta = JSON.parse(await fsp.readFile(FsStorageDriver.sidecarOf(file), 'utf8')) as Sidecar;
      if (typeof meta.contentType === 'string' && meta.contentType) contentType = meta.contentType;
    } catch {
      // No sidecar: the name's type (see the top of this file), else opaque bytes (a file copied
      // in by hand under a name we do not map).
    }
    return { bytes, contentType };
  }

  createReadStream(key: string, range?: ByteRange): NodeJS.ReadableStream {
    const file = this.pathOf(key);
    return range ? fs.createReadStream(file, { start: range.start, end: range.end }) : fs.createReadStream(file);
  }

  sendTo(key: string, range: ByteRange | undefined, dest: NodeJS.WritableStream, done: (err?: Error) => void): void {
    sendFile(this.pathOf(key), range, dest as Writable, done);
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    await Promise.all([fsp.rm(file, { force: true }), fsp.rm(FsStorageDriver.sidecarOf(file), { force: true })]);
  }
}

/** Files up to this size that are whole in memory are written synchronously (putSmall). */
export const SMALL_WRITE_BYTES = 256 * 1024;

const sidecarJson = (contentType: string): string => JSON.stringify({ contentType } satisfies Sidecar);

/** A chunk source whose first chunks were read ahead by peekSmall; they are written first. */
class PeekedSource implements ChunkSource {
  constructor(
    private ahead: Buffer[],
    private readonly rest: ChunkSource,
  ) {}

  async nextChunk(): Promise<Buffer | null> {
    const c = this.ahead.shift();
    return c ?? this.rest.nextChunk();
  }

  close(): void {
    this.ahead = [];
    this.rest.close();
  }
}

/**
 * A chunk source that ends within SMALL_WRITE_BYTES as one buffer (copied: a lent chunk is the
 * source's again at the next nextChunk()); otherwise the source with the chunks read so far in
 * front. The first chunk of a result already downloaded (pooled-request.ts, an inline result) is
 * the whole file, and the second call answers null at once.
 */
async function peekSmall(source: ChunkSource): Promise<Buffer | PeekedSource> {
  const first = await source.nextChunk();
  if (first === null) {
    source.close();
    return Buffer.alloc(0);
  }
  if (first.length > SMALL_WRITE_BYTES) return new PeekedSource([first], source);
  const copy = Buffer.from(first);
  const second = await source.nextChunk();
  if (second === null) {
    source.close();
    return copy;
  }
  return new PeekedSource([copy, second], source);
}

/**
 * Writes a chunk source into `file`, one write at a time: a chunk is the source's to reuse as soon
 * as the next is asked for, so it is asked for only once the write is done. No buffer of our own:
 * the memory is the source's few pooled buffers (packages/media pooled-request.ts). Returns the
 * number of bytes written.
 */
async function writeChunks(file: string, source: ChunkSource): Promise<number> {
  let fh: fsp.FileHandle | undefined;
  let size = 0;
  try {
    fh = await fsp.open(file, 'w');
    for (let c = await source.nextChunk(); c; c = await source.nextChunk()) {
      for (let off = 0; off < c.length; ) off += (await fh.write(c, off, c.length - off)).bytesWritten;
      size += c.length;
    }
    return size;
  } finally {
    source.close();
    await fh?.close();
  }
}
